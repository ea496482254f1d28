// The SQL store: metadata stored split into a head and lists of parts (see
// MetadataParts), written by swaps and read back whole.

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/macros.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {
namespace {

/// The text of `span` in `document`.
std::string_view TextOf(const std::string& document, TextSpan span) {
  return std::string_view(document).substr(span.begin, span.size());
}

/// Where a list's new parts go: the stored parts kept and the position of the new
/// version's first part. Positions only order a list's parts: a list that drops parts at
/// the front starts at a later position than 0.
struct KeptParts {
  bool stored_as_believed = false;  // the store holds the current version's list
  size_t kept = 0;                  // leading parts of the new version already stored
  size_t stale_after = 0;           // stored parts after the kept ones (to delete)
  int64_t first = 0;                // position of the new version's first part
};

/// How the store holds one list of an entity.
struct StoredList {
  int64_t part_count = 0;
  int64_t first_position = 0;
};

/// The lists of entity `id` as stored, by list number (one read for all of them).
Result<std::map<int64_t, StoredList>> StoredLists(SqlConnection& conn, int64_t id) {
  CAIRN_ASSIGN_OR_RAISE(auto* layout,
                        conn.Prepare("SELECT list, part_count, first_position FROM "
                                     "split_entities WHERE entity_id = ?"));
  Query query(conn, layout);
  query.Bind(id);
  std::map<int64_t, StoredList> lists;
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load entity layout"));
    if (!row) break;
    lists[query.Int(0)] = StoredList{query.Int(1), query.Int(2)};
  }
  return lists;
}

/// Lists below this number never start past position 0. Binaries from before schema v15
/// (PostgreSQL v11) write lists 0 and 1 (snapshots, snapshot log) counting positions from
/// 0 and never set `first_position`; while one of them still runs beside a newer replica
/// (a rolling upgrade), a list of theirs that started further on would be corrupted. They
/// drop every list from 2 on whenever they swap, and read any list correctly.
constexpr int64_t kFirstSlidingList = 2;

/// What the store keeps of list `list`, held as `stored` (null: not held split), for
/// `parts` (see MetadataParts).
KeptParts KeptPartsOf(int64_t list, const StoredList* stored,
                      const MetadataParts& parts) {
  KeptParts out;
  if (parts.shared == 0 || stored == nullptr ||
      stored->part_count != static_cast<int64_t>(parts.current_count) ||
      parts.dropped + parts.shared > parts.current_count ||
      (parts.dropped > 0 && list < kFirstSlidingList)) {
    return out;  // everything is written again, from position 0
  }
  out.stored_as_believed = true;
  out.kept = std::min(parts.shared, parts.parts.size());
  out.stale_after = parts.current_count - parts.dropped - out.kept;
  out.first = stored->first_position + static_cast<int64_t>(parts.dropped);
  return out;
}

/// Deletes the parts of list `list` of entity `id` at positions below `end` (`below`)
/// or from `end` on (not `below`): one range of the key, not the whole list.
Status DeleteParts(SqlConnection& conn, int64_t id, int64_t list, bool below,
                   int64_t end) {
  CAIRN_ASSIGN_OR_RAISE(
      auto* del,
      below ? conn.Prepare("DELETE FROM entity_parts "
                           "WHERE entity_id = ? AND list = ? AND position < ?")
            : conn.Prepare("DELETE FROM entity_parts "
                           "WHERE entity_id = ? AND list = ? AND position >= ?"));
  Query query(conn, del);
  return query.Bind(id).Bind(list).Bind(end).Run("drop entity parts");
}

/// A part to insert: its list, position and text.
struct PartRow {
  int64_t list = 0;
  int64_t position = 0;
  std::string_view body;
};

/// Where a list's parts go in the head, how many it has and where it starts.
struct LayoutRow {
  int64_t list = 0;
  int64_t parts_at = 0;
  int64_t part_count = 0;
  int64_t first_position = 0;
};

/// The rows a swap inserts or updates, written together after the deletions: a commit
/// appending to three lists runs two statements instead of six (on PostgreSQL each is a
/// round trip; on SQLite each runs while the writers' gate is held).
struct PendingRows {
  std::vector<PartRow> parts;
  std::vector<LayoutRow> layouts;
};

/// Rows per statement of the batched INSERTs (`rows` tuples of `columns` parameters).
constexpr size_t kRowsPerStatement = 16;

/// `prefix` followed by `rows` tuples of `columns` parameters and then `suffix`.
std::string MultiRowSql(std::string_view prefix, size_t columns, size_t rows,
                        std::string_view suffix) {
  std::string tuple = "(?";
  for (size_t i = 1; i < columns; ++i) tuple += ", ?";
  tuple += ')';
  std::string sql(prefix);
  for (size_t i = 0; i < rows; ++i) {
    if (i > 0) sql += ", ";
    sql += tuple;
  }
  sql += suffix;
  return sql;
}

/// The texts of one batched statement for 1 to kRowsPerStatement rows, built once:
/// `Prepare` caches statements by the address of their text.
using BatchTexts = std::array<std::string, kRowsPerStatement>;
BatchTexts BuildBatchTexts(std::string_view prefix, size_t columns,
                           std::string_view suffix) {
  BatchTexts texts;
  for (size_t rows = 1; rows <= kRowsPerStatement; ++rows) {
    texts[rows - 1] = MultiRowSql(prefix, columns, rows, suffix);
  }
  return texts;
}

const char* InsertPartsSql(size_t rows) {
  static const BatchTexts kTexts = BuildBatchTexts(
      "INSERT INTO entity_parts (entity_id, list, position, body) VALUES ", 4, "");
  return kTexts[rows - 1].c_str();
}

const char* UpsertLayoutsSql(size_t rows) {
  static const BatchTexts kTexts = BuildBatchTexts(
      "INSERT INTO split_entities "
      "(entity_id, list, parts_at, part_count, first_position) VALUES ",
      5,
      " ON CONFLICT (entity_id, list) DO UPDATE SET "
      "parts_at = excluded.parts_at, part_count = excluded.part_count, "
      "first_position = excluded.first_position");
  return kTexts[rows - 1].c_str();
}

/// Runs `rows` through the batched statement `sql_for(n)`, kRowsPerStatement rows at a
/// time; `bind` binds one row.
template <class Row, class SqlFor, class BindRow>
Status RunBatched(SqlConnection& conn, const std::vector<Row>& rows, SqlFor sql_for,
                  BindRow bind, const char* what) {
  for (size_t start = 0; start < rows.size(); start += kRowsPerStatement) {
    const size_t count = std::min(kRowsPerStatement, rows.size() - start);
    CAIRN_ASSIGN_OR_RAISE(auto* stmt, conn.Prepare(sql_for(count)));
    Query query(conn, stmt);
    for (size_t i = start; i < start + count; ++i) bind(query, rows[i]);
    CAIRN_RETURN_IF_ERROR(query.Run(what));
  }
  return Ok();
}

/// Writes what `pending` holds for entity `id`.
Status WritePending(SqlConnection& conn, int64_t id, const PendingRows& pending) {
  CAIRN_RETURN_IF_ERROR(RunBatched(
      conn, pending.parts, InsertPartsSql,
      [id](Query& query, const PartRow& row) {
        query.Bind(id).Bind(row.list).Bind(row.position).Bind(row.body);
      },
      "store entity parts"));
  return RunBatched(
      conn, pending.layouts, UpsertLayoutsSql,
      [id](Query& query, const LayoutRow& row) {
        query.Bind(id)
            .Bind(row.list)
            .Bind(row.parts_at)
            .Bind(row.part_count)
            .Bind(row.first_position);
      },
      "store entity layout");
}

/// Stores list `list` of `document` for entity `id`, of which the store keeps `keep`;
/// `insert_at`: where in the head its parts go. Deletes now what the new version does
/// not have; adds the rows to insert to `pending`.
Status WritePartList(SqlConnection& conn, int64_t id, int64_t list,
                     const std::string& document, const MetadataParts& parts,
                     const KeptParts& keep, size_t insert_at, PendingRows& pending) {
  // Parts the new version does not have. When the store holds the list as believed,
  // only those dropped at the front or changed at the back, which a commit appending to
  // a list does not have: no statement then.
  if (!keep.stored_as_believed) {
    CAIRN_RETURN_IF_ERROR(
        DeleteParts(conn, id, list, false, std::numeric_limits<int64_t>::min()));
  } else {
    if (parts.dropped > 0)
      CAIRN_RETURN_IF_ERROR(DeleteParts(conn, id, list, true, keep.first));
    if (keep.stale_after > 0) {
      CAIRN_RETURN_IF_ERROR(DeleteParts(conn, id, list, false,
                                        keep.first + static_cast<int64_t>(keep.kept)));
    }
  }
  for (size_t i = keep.kept; i < parts.parts.size(); ++i) {
    pending.parts.push_back(PartRow{list, keep.first + static_cast<int64_t>(i),
                                    TextOf(document, parts.parts[i])});
  }
  pending.layouts.push_back(LayoutRow{list, static_cast<int64_t>(insert_at),
                                      static_cast<int64_t>(parts.parts.size()),
                                      keep.first});
  return Ok();
}

/// The head with each list's parts (rows of `parts`: list, body), joined by `,`, put in
/// at the list's offset.
Result<std::string> JoinParts(const std::string& head,
                              const std::vector<std::pair<int64_t, int64_t>>& lists,
                              Query& parts) {
  std::vector<std::pair<int64_t, std::string>> bodies;
  size_t total = head.size();
  for (;;) {
    CAIRN_ASSIGN_OR_RAISE(bool row, parts.Step("load entity parts"));
    if (!row) break;
    bodies.emplace_back(parts.Int(0), parts.TakeText(1));
    total += bodies.back().second.size() + 1;
  }
  std::string whole;
  whole.reserve(total);
  size_t copied = 0;  // of the head
  size_t next = 0;    // in bodies
  for (const auto& [list, at] : lists) {
    if (at < static_cast<int64_t>(copied) || static_cast<size_t>(at) > head.size()) {
      return Internal("Stored metadata splits at {}, outside its {} bytes", at,
                      head.size());
    }
    whole.append(head, copied, static_cast<size_t>(at) - copied);
    copied = static_cast<size_t>(at);
    while (next < bodies.size() && bodies[next].first < list) ++next;  // never written
    for (bool first = true; next < bodies.size() && bodies[next].first == list; ++next) {
      if (!first) whole.push_back(',');
      first = false;
      whole.append(bodies[next].second);
    }
  }
  whole.append(head, copied);
  return whole;
}

/// The document of entity `id` stored split, from its `head` and the stored layout and
/// parts (which may belong to another version than `head` when read without a snapshot:
/// the caller checks).
Result<std::string> ReadSplit(SqlConnection& conn, int64_t id, const std::string& head) {
  CAIRN_ASSIGN_OR_RAISE(auto* layout_stmt,
                        conn.Prepare("SELECT list, parts_at FROM split_entities "
                                     "WHERE entity_id = ? ORDER BY list"));
  CAIRN_ASSIGN_OR_RAISE(auto* parts_stmt,
                        conn.Prepare("SELECT list, body FROM entity_parts "
                                     "WHERE entity_id = ? ORDER BY list, position"));
  std::vector<std::pair<int64_t, int64_t>> lists;  // (list, parts_at)
  {
    Query layout(conn, layout_stmt);
    layout.Bind(id);
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, layout.Step("load entity layout"));
      if (!row) break;
      lists.emplace_back(layout.Int(0), layout.Int(1));
    }
  }
  Query parts(conn, parts_stmt);
  parts.Bind(id);
  return JoinParts(head, lists, parts);
}

}  // namespace

/// Inside a swap's transaction, after its row was updated: stores the new version's
/// lists of parts (keeping each list's shared leading parts when the store holds the
/// current version as the caller believes), or drops an earlier version's parts when
/// the new metadata is whole.
Status WriteParts(SqlConnection& conn, const EntitySwap& swap) {
  const int64_t id = swap.entity_id;
  const auto lists = static_cast<int64_t>(swap.parts.size());
  CAIRN_ASSIGN_OR_RAISE(auto stored, StoredLists(conn, id));
  // Lists the new version does not have (all of them when it is whole).
  if (!stored.empty() && stored.rbegin()->first >= lists) {
    CAIRN_ASSIGN_OR_RAISE(
        auto* drop_lists,
        conn.Prepare("DELETE FROM split_entities WHERE entity_id = ? AND list >= ?"));
    Query query(conn, drop_lists);
    CAIRN_RETURN_IF_ERROR(query.Bind(id).Bind(lists).Run("drop entity part lists"));
    CAIRN_ASSIGN_OR_RAISE(
        auto* drop_parts,
        conn.Prepare("DELETE FROM entity_parts WHERE entity_id = ? AND list >= ?"));
    Query parts(conn, drop_parts);
    CAIRN_RETURN_IF_ERROR(parts.Bind(id).Bind(lists).Run("drop entity parts"));
  }
  size_t cut = 0;  // bytes of the document cut out of the head before this list
  PendingRows pending;
  for (int64_t list = 0; list < lists; ++list) {
    const MetadataParts& parts = swap.parts[static_cast<size_t>(list)];
    const auto held = stored.find(list);
    const KeptParts keep =
        KeptPartsOf(list, held == stored.end() ? nullptr : &held->second, parts);
    CAIRN_RETURN_IF_ERROR(WritePartList(conn, id, list, *swap.metadata, parts, keep,
                                        parts.range.begin - cut, pending));
    cut += parts.range.size();
  }
  return WritePending(conn, id, pending);
}

Status CheckParts(const EntitySwap& swap) {
  if (!swap.metadata)
    return InvalidArgument("A swap of entity {} has no metadata", swap.entity_id);
  size_t at = 0;
  for (const MetadataParts& list : swap.parts) {
    bool inside = list.range.begin >= at && list.range.begin <= list.range.end &&
                  list.range.end <= swap.metadata->size();
    size_t part_at = list.range.begin;
    for (const TextSpan& part : list.parts) {
      inside = inside && part.begin >= part_at && part.begin <= part.end &&
               part.end <= list.range.end;
      part_at = part.end;
    }
    if (!inside) {
      return InvalidArgument("The parts of a swap of entity {} lie outside its metadata",
                             swap.entity_id);
    }
    if (list.shared > list.parts.size() || list.shared > list.current_count ||
        list.dropped > list.current_count) {
      return InvalidArgument("A swap of entity {} keeps more parts than a list has",
                             swap.entity_id);
    }
    at = list.range.end;
  }
  return Ok();
}

std::string HeadOf(const EntitySwap& swap) {
  const std::string& document = *swap.metadata;
  if (swap.parts.empty()) return document;
  std::string head;
  size_t cut = 0;
  for (const MetadataParts& list : swap.parts) cut += list.range.size();
  head.reserve(document.size() - cut);
  size_t copied = 0;
  for (const MetadataParts& list : swap.parts) {
    head.append(document, copied, list.range.begin - copied);
    copied = list.range.end;
  }
  head.append(document, copied);
  return head;
}

Result<bool> ReadMetadata(SqlConnection& conn, EntityRecord& record) {
  // Whether the entity is stored split comes in the same statement (one snapshot) as
  // its row, so that an entity stored whole costs one read.
  CAIRN_ASSIGN_OR_RAISE(
      auto* row_stmt,
      conn.Prepare("SELECT metadata_location, metadata, version, CASE WHEN EXISTS "
                   "(SELECT 1 FROM split_entities s WHERE s.entity_id = entities.id) "
                   "THEN 1 ELSE 0 END FROM entities WHERE id = ?"));
  CAIRN_ASSIGN_OR_RAISE(auto* version_stmt,
                        conn.Prepare("SELECT version FROM entities WHERE id = ?"));
  constexpr int kMaxReads = 16;
  for (int read = 0; read < kMaxReads; ++read) {
    bool split = false;
    {
      Query query(conn, row_stmt);
      query.Bind(record.id);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("load entity metadata"));
      if (!row) return false;
      record.metadata_location = query.Text(0);
      record.metadata = query.TakeText(1);
      record.version = query.Int(2);
      split = query.Int(3) != 0;
    }
    if (!split) return true;
    // An error here may only mean that the parts read belong to a newer version than
    // the head: the version check below tells.
    auto whole = ReadSplit(conn, record.id, record.metadata);
    Query again(conn, version_stmt);
    again.Bind(record.id);
    CAIRN_ASSIGN_OR_RAISE(bool row, again.Step("check entity version"));
    if (!row) return false;
    if (again.Int(0) != record.version) continue;
    if (!whole) return tl::unexpected(whole.error());  // consistent, yet unreadable
    record.metadata = std::move(*whole);
    return true;
  }
  return ServiceUnavailable("The metadata of entity {} kept changing while being read",
                            record.id);
}

/// ReadMetadata, and when swaps kept landing between its reads (a table committed to
/// without pause), once more in a transaction that holds them off for that one read,
/// so that no load is starved by a busy writer. Outside a transaction only.
Result<bool> ReadMetadataConsistently(SqlConnection& conn, EntityRecord& record) {
  auto read = ReadMetadata(conn, record);
  if (read || read.error().kind != ErrorKind::kServiceUnavailable) return read;
  // In one snapshot no swap lands between the reads: the first one is consistent.
  CAIRN_RETURN_IF_ERROR(conn.BeginSnapshot());
  auto snapshot = ReadMetadata(conn, record);
  conn.Rollback();
  return snapshot;
}

}  // namespace cairn::sql_internal
