// The SQL store: the locations entities claim (see LocationClaim), and whether a
// location is in use.

#include "common/location.h"
#include "common/macros.h"
#include "store/sql_store_internal.h"

namespace cairn::sql_internal {

Result<std::optional<ClaimedLocation>> FindOverlap(SqlConnection& conn, int64_t entity_id,
                                                   int64_t catalog_id,
                                                   const std::string& location,
                                                   bool overlap_in_catalog) {
  // The location itself and everything below it are one index range ('0' follows '/');
  // each ancestor is one point read. Both grow with the location's depth only.
  CAIRN_ASSIGN_OR_RAISE(
      auto* below,
      conn.Prepare("SELECT catalog_id, location FROM entity_locations "
                   "WHERE entity_id != ? AND (location = ? OR (location >= ? AND "
                   "location < ?)) AND NOT (? = 1 AND catalog_id = ?) LIMIT 1"));
  CAIRN_ASSIGN_OR_RAISE(auto* at,
                        conn.Prepare("SELECT catalog_id, location FROM entity_locations "
                                     "WHERE location = ? AND entity_id != ? "
                                     "AND NOT (? = 1 AND catalog_id = ?) LIMIT 1"));
  const std::string prefix = DescendantPrefix(location);
  std::string upper = prefix;
  upper.back() = static_cast<char>(upper.back() + 1);
  const int64_t skip_catalog = overlap_in_catalog ? 1 : 0;
  {
    Query query(conn, below);
    query.Bind(entity_id)
        .Bind(location)
        .Bind(prefix)
        .Bind(upper)
        .Bind(skip_catalog)
        .Bind(catalog_id);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("check locations below"));
    if (row) return std::optional<ClaimedLocation>({query.Int(0), query.Text(1)});
  }
  for (const auto& ancestor : LocationAncestors(location)) {
    Query query(conn, at);
    query.Bind(ancestor).Bind(entity_id).Bind(skip_catalog).Bind(catalog_id);
    CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("check locations above"));
    if (row) return std::optional<ClaimedLocation>({query.Int(0), query.Text(1)});
  }
  return std::optional<ClaimedLocation>{};
}

/// Inside a write transaction: replaces the locations entity `entity_id` (of catalog
/// `catalog_id`) claims by `claim`, after checking — unless told not to, for the claims
/// of entities that exist already — that no other entity's overlap them.
Status ClaimLocations(SqlConnection& conn, int64_t entity_id, int64_t catalog_id,
                      const LocationClaim& claim, bool check_overlap) {
  if (!conn.SerializesWriters()) {
    // Overlap is no single row to lock: concurrent claims queue on one advisory lock
    // until their transactions end. Only creates and location changes take it.
    CAIRN_RETURN_IF_ERROR(conn.ExecScript("SELECT pg_advisory_xact_lock(7143924019)",
                                          "lock entity locations"));
  }
  CAIRN_ASSIGN_OR_RAISE(auto* clear,
                        conn.Prepare("DELETE FROM entity_locations WHERE entity_id = ?"));
  CAIRN_RETURN_IF_ERROR(Query(conn, clear).Bind(entity_id).Run("clear entity locations"));
  CAIRN_ASSIGN_OR_RAISE(
      auto* insert,
      conn.Prepare("INSERT INTO entity_locations (entity_id, catalog_id, location) "
                   "VALUES (?, ?, ?)"));
  for (const auto& location : claim.locations) {
    std::optional<ClaimedLocation> overlap;
    if (check_overlap) {
      CAIRN_ASSIGN_OR_RAISE(overlap, FindOverlap(conn, entity_id, catalog_id, location,
                                                 claim.overlap_in_catalog));
    }
    if (overlap) {
      if (overlap->catalog_id == catalog_id) {
        return BadRequest(
            "Location {} overlaps location {} of another table, view or Lance table",
            ShortLocation(location), ShortLocation(overlap->location));
      }
      return BadRequest(
          "Location {} overlaps the location of a table, view or Lance table of "
          "another catalog",
          ShortLocation(location));
    }
    CAIRN_RETURN_IF_ERROR(Query(conn, insert)
                              .Bind(entity_id)
                              .Bind(catalog_id)
                              .Bind(location)
                              .Run("claim entity location"));
  }
  return Ok();
}

Result<bool> SqlStore::LocationInUse(std::string_view location,
                                     int64_t except_entity_id) {
  return Read([&](Lease& conn) -> Result<bool> {
    // An index range: the location itself, or anything below it ('0' follows '/').
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare(
            "SELECT 1 FROM entities WHERE id != ? AND (metadata_location = ? OR "
            "(metadata_location > ? AND metadata_location < ?)) LIMIT 1"));
    Query query(*conn, stmt);
    const std::string dir(location);
    query.Bind(except_entity_id).Bind(dir).Bind(dir + "/").Bind(dir + "0");
    CAIRN_ASSIGN_OR_RAISE(bool pointed_at, query.Step("check location use"));
    if (pointed_at) return true;
    // Or a location another entity claims at, above or below it.
    CAIRN_ASSIGN_OR_RAISE(auto overlap, FindOverlap(*conn, except_entity_id, 0, dir,
                                                    /*overlap_in_catalog=*/false));
    return overlap.has_value();
  });
}

Result<std::optional<std::vector<std::string>>> SqlStore::TableClaimHolding(
    std::string_view location) {
  using Found = std::optional<std::vector<std::string>>;
  return Read([&](Lease& conn) -> Result<Found> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* at,
        conn->Prepare("SELECT l.entity_id FROM entity_locations l "
                      "JOIN entities e ON e.id = l.entity_id "
                      "WHERE l.location = ? AND e.kind != 'iceberg-view' LIMIT 1"));
    std::optional<int64_t> holder;
    std::vector<std::string> candidates = {std::string(location)};
    for (auto& ancestor : LocationAncestors(location))
      candidates.push_back(std::move(ancestor));
    for (const auto& candidate : candidates) {
      Query query(*conn, at);
      query.Bind(candidate);
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("find the claim holding a location"));
      if (row) {
        holder = query.Int(0);
        break;
      }
    }
    if (!holder) return Found();
    CAIRN_ASSIGN_OR_RAISE(
        auto* all,
        conn->Prepare("SELECT location FROM entity_locations WHERE entity_id = ? "
                      "ORDER BY location"));
    Query query(*conn, all);
    query.Bind(*holder);
    std::vector<std::string> claimed;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("read a claim"));
      if (!row) break;
      claimed.push_back(query.Text(0));
    }
    return Found(std::move(claimed));
  });
}

Result<std::vector<UnclaimedEntity>> SqlStore::ListUnclaimedEntities(int64_t after_id,
                                                                     size_t limit) {
  return Read([&](Lease& conn) -> Result<std::vector<UnclaimedEntity>> {
    CAIRN_ASSIGN_OR_RAISE(
        auto* stmt,
        conn->Prepare("SELECT e.id, c.name, e.kind, e.metadata_location, "
                      "e.metadata FROM entities e JOIN namespaces n "
                      "ON n.id = e.namespace_id JOIN catalogs c ON c.id = n.catalog_id "
                      "WHERE e.id > ? AND NOT EXISTS "
                      "(SELECT 1 FROM entity_locations l WHERE l.entity_id = e.id) "
                      "ORDER BY e.id LIMIT ?"));
    Query query(*conn, stmt);
    query.Bind(after_id).Bind(static_cast<int64_t>(limit));
    std::vector<UnclaimedEntity> out;
    for (;;) {
      CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("list unclaimed entities"));
      if (!row) break;
      CAIRN_ASSIGN_OR_RAISE(auto kind, ParseKind(query.Text(2)));
      out.push_back(UnclaimedEntity{query.Int(0), query.Text(1), kind, query.Text(3),
                                    query.TakeText(4)});
    }
    return out;
  });
}

Status SqlStore::RecordLegacyClaim(int64_t entity_id, const LocationClaim& claim) {
  return Write(
      WriteContext::Immediate(), [&](Lease& conn, WriteTransaction& txn) -> Status {
        CAIRN_ASSIGN_OR_RAISE(
            auto* check,
            conn->Prepare("SELECT n.catalog_id, (SELECT COUNT(*) FROM entity_locations l "
                          "WHERE l.entity_id = e.id) FROM entities e JOIN namespaces n "
                          "ON n.id = e.namespace_id WHERE e.id = ?"));
        Query query(*conn, check);
        query.Bind(entity_id);
        CAIRN_ASSIGN_OR_RAISE(bool row, query.Step("check an entity's claim"));
        if (!row || query.Int(1) != 0) return Ok();
        CAIRN_RETURN_IF_ERROR(ClaimLocations(*conn, entity_id, query.Int(0), claim,
                                             /*check_overlap=*/false));
        return txn.Commit();
      });
}

}  // namespace cairn::sql_internal
