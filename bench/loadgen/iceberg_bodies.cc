#include "loadgen/iceberg_bodies.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <random>
#include <utility>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

namespace cairn::bench {
namespace json = boost::json;
namespace {

/// splitmix64: a cheap deterministic mix, so a snapshot's numbers follow from its id.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

std::string RandomUuid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t hi = (rng() & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // v4
  const uint64_t lo =
      (rng() & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF,
                     hi & 0xFFFF, lo >> 48, lo & 0xFFFFFFFFFFFFULL);
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

json::object Field(int id, std::string_view name, json::value type, bool required) {
  return json::object{
      {"id", id}, {"name", name}, {"type", std::move(type)}, {"required", required}};
}

json::object RealisticSchema() {
  json::array fields{
      Field(1, "event_id", "long", true),
      Field(2, "event_ts", "timestamptz", true),
      Field(3, "user_id", "string", false),
      Field(4, "amount", "decimal(12, 2)", false),
      Field(5, "score", "double", false),
      Field(6, "is_test", "boolean", false),
      Field(7, "event_date", "date", false),
      Field(8, "tags",
            json::object{{"type", "list"},
                         {"element-id", 9},
                         {"element", "string"},
                         {"element-required", false}},
            false),
  };
  return json::object{
      {"type", "struct"}, {"schema-id", 0}, {"fields", std::move(fields)}};
}

json::object SmallSchema() {
  json::array fields{Field(1, "id", "long", true), Field(2, "name", "string", false)};
  return json::object{
      {"type", "struct"}, {"schema-id", 0}, {"fields", std::move(fields)}};
}

const json::value* Find(const json::object& object, std::string_view key) {
  return object.if_contains(key);
}

/// A summary value ("123") as a number; 0 when absent or malformed.
int64_t SummaryNumber(const json::object& summary, std::string_view key) {
  const json::value* value = Find(summary, key);
  if (value == nullptr || !value->is_string()) return 0;
  const json::string& text = value->get_string();
  int64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  return ec == std::errc() && end == text.data() + text.size() ? number : 0;
}

}  // namespace

std::string EncodeComponent(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (byte >= 'A' && byte <= 'Z') ||
                            (byte >= 'a' && byte <= 'z') ||
                            (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' ||
                            byte == '_' || byte == '~';
    if (unreserved) {
      out += c;
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

std::string CreateNamespaceBody(std::string_view ns) {
  return json::serialize(json::object{{"namespace", json::array{ns}}});
}

std::string CreateTableBody(std::string_view name, SchemaKind kind) {
  json::object body{{"name", name}};
  if (kind == SchemaKind::kSmall) {
    body["schema"] = SmallSchema();
  } else {
    body["schema"] = RealisticSchema();
    body["partition-spec"] =
        json::object{{"spec-id", 0},
                     {"fields", json::array{json::object{{"source-id", 2},
                                                         {"field-id", 1000},
                                                         {"name", "event_ts_day"},
                                                         {"transform", "day"}}}}};
  }
  body["properties"] = json::object{{"format-version", "2"}};
  return json::serialize(body);
}

Result<TableState> ParseTableState(std::string_view body) {
  boost::system::error_code ec;
  const json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object())
    return BadRequest("LoadTableResult is not a JSON object");
  const json::value* metadata_value = Find(parsed.get_object(), "metadata");
  if (metadata_value == nullptr || !metadata_value->is_object()) {
    return BadRequest("LoadTableResult has no metadata object");
  }
  const json::object& metadata = metadata_value->get_object();
  const json::value* uuid = Find(metadata, "table-uuid");
  const json::value* location = Find(metadata, "location");
  if (uuid == nullptr || !uuid->is_string() || location == nullptr ||
      !location->is_string()) {
    return BadRequest("table metadata lacks table-uuid or location");
  }
  TableState state;
  state.uuid = uuid->get_string();
  state.location = location->get_string();
  if (const json::value* seq = Find(metadata, "last-sequence-number");
      seq != nullptr && seq->is_int64()) {
    state.last_sequence_number = seq->get_int64();
  }
  const json::value* refs = Find(metadata, "refs");
  const json::value* main =
      refs != nullptr && refs->is_object() ? Find(refs->get_object(), "main") : nullptr;
  if (main == nullptr || !main->is_object()) return state;
  const json::value* main_id = Find(main->get_object(), "snapshot-id");
  if (main_id == nullptr || !main_id->is_int64()) {
    return BadRequest("ref main has no snapshot-id");
  }
  state.main_id = main_id->get_int64();
  // The totals and timestamp continue from main's snapshot (present with snapshots=refs).
  const json::value* snapshots = Find(metadata, "snapshots");
  if (snapshots == nullptr || !snapshots->is_array()) return state;
  for (const json::value& snapshot : snapshots->get_array()) {
    if (!snapshot.is_object()) continue;
    const json::object& object = snapshot.get_object();
    const json::value* id = Find(object, "snapshot-id");
    if (id == nullptr || !id->is_int64() || id->get_int64() != *state.main_id) continue;
    if (const json::value* ts = Find(object, "timestamp-ms"); ts && ts->is_int64()) {
      state.last_timestamp_ms = ts->get_int64();
    }
    if (const json::value* summary = Find(object, "summary");
        summary && summary->is_object()) {
      const json::object& s = summary->get_object();
      state.totals = TableTotals{SummaryNumber(s, "total-records"),
                                 SummaryNumber(s, "total-files-size"),
                                 SummaryNumber(s, "total-data-files"),
                                 SummaryNumber(s, "total-delete-files"),
                                 SummaryNumber(s, "total-position-deletes"),
                                 SummaryNumber(s, "total-equality-deletes")};
    }
    break;
  }
  return state;
}

json::object NextSnapshot(TableState& state, int64_t snapshot_id) {
  // Plausible append: 1-8 data files of 20k-120k rows at ~24 bytes a row (Parquet, zstd)
  // spread over 1-3 day partitions.
  const uint64_t r = Mix(static_cast<uint64_t>(snapshot_id));
  const int64_t files = 1 + static_cast<int64_t>(r % 8);
  const int64_t records = files * (20'000 + static_cast<int64_t>((r >> 8) % 100'000));
  const int64_t bytes = records * 24 + files * 4'096;
  const int64_t partitions =
      std::min<int64_t>(files, 1 + static_cast<int64_t>((r >> 40) % 3));
  state.totals.records += records;
  state.totals.files_size += bytes;
  state.totals.data_files += files;

  // Timestamps never go backwards, even when several snapshots share a millisecond.
  const int64_t timestamp = std::max(NowMs(), state.last_timestamp_ms + 1);
  json::object summary{
      {"operation", "append"},
      {"added-data-files", std::to_string(files)},
      {"added-records", std::to_string(records)},
      {"added-files-size", std::to_string(bytes)},
      {"changed-partition-count", std::to_string(partitions)},
      {"total-records", std::to_string(state.totals.records)},
      {"total-files-size", std::to_string(state.totals.files_size)},
      {"total-data-files", std::to_string(state.totals.data_files)},
      {"total-delete-files", std::to_string(state.totals.delete_files)},
      {"total-position-deletes", std::to_string(state.totals.position_deletes)},
      {"total-equality-deletes", std::to_string(state.totals.equality_deletes)},
  };
  json::object snapshot{
      {"snapshot-id", snapshot_id},
      {"sequence-number", state.last_sequence_number + 1},
      {"timestamp-ms", timestamp},
      {"manifest-list", fmt::format("{}/metadata/snap-{}-1-{}.avro", state.location,
                                    snapshot_id, RandomUuid())},
      {"summary", std::move(summary)},
      {"schema-id", 0},
  };
  if (state.main_id) snapshot["parent-snapshot-id"] = *state.main_id;

  state.main_id = snapshot_id;
  state.last_sequence_number += 1;
  state.last_timestamp_ms = timestamp;
  return snapshot;
}

std::string AppendCommitBody(std::string_view uuid, std::optional<int64_t> base_main,
                             json::array snapshots) {
  json::value expected_main = nullptr;
  if (base_main) expected_main = *base_main;
  json::value last_id = nullptr;
  json::array updates;
  updates.reserve(snapshots.size() + 1);
  for (json::value& snapshot : snapshots) {
    if (const json::value* id = snapshot.as_object().if_contains("snapshot-id"))
      last_id = *id;
    updates.push_back(
        json::object{{"action", "add-snapshot"}, {"snapshot", std::move(snapshot)}});
  }
  updates.push_back(json::object{{"action", "set-snapshot-ref"},
                                 {"ref-name", "main"},
                                 {"type", "branch"},
                                 {"snapshot-id", std::move(last_id)}});
  json::array requirements{
      json::object{{"type", "assert-table-uuid"}, {"uuid", uuid}},
      json::object{{"type", "assert-ref-snapshot-id"},
                   {"ref", "main"},
                   {"snapshot-id", std::move(expected_main)}},
  };
  return json::serialize(json::object{{"requirements", std::move(requirements)},
                                      {"updates", std::move(updates)}});
}

}  // namespace cairn::bench
