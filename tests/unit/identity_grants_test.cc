// IdentityStore contract tests, part two: grants, signing keys, and a store opened on a
// database from before identity existed, on every backend (identity_store_fixture.h).

#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "identity_store_fixture.h"
#include "matchers.h"
#include "store/identity_store.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAreArray;

class IdentityGrantsTest : public IdentityStoreTest {};

/// Grants on every kind of securable, with names the store must keep byte for byte:
/// dots, slashes, percent signs, non-ASCII, and 0x1F (the store's level separator)
/// where it is not a namespace level.
std::vector<GrantRecord> AwkwardGrants(const std::string& role) {
  return {
      {role, "SERVICE_ADMIN", "service", "", {}, ""},
      {role, "CATALOG_MANAGE", "catalog", "ma.in/%41\x1f", {}, ""},
      {role, "NAMESPACE_LIST", "namespace", "main", {"a.b", "c/d", "e%2Ff"}, ""},
      {role, "NAMESPACE_LIST", "namespace", "main", {"a", "b"}, ""},
      {role, "NAMESPACE_LIST", "namespace", "main", {"a"}, ""},
      {role,
       "TABLE_READ",
       "table",
       "main",
       {"\xC3\xA9t\xC3\xA9", "\xE6\x97\xA5"},
       "t.1/x%"},
      {role, "TABLE_READ", "table", "main", {"db"}, "with\x1fseparator"},
      {role, "VIEW_READ", "view", "main", {"db"}, "v\xF0\x9F\x98\x80"},
  };
}

TEST_P(IdentityGrantsTest, GrantsKeepEveryKindAndNameByteForByte) {
  CreateRole("r");
  const auto grants = AwkwardGrants("r");
  for (const auto& grant : grants)
    ASSERT_THAT(ids().AddGrant(grant), IsOk()) << grant.privilege;
  auto stored = ids().GrantsOfRole("r");
  ASSERT_THAT(stored, IsOk());
  EXPECT_THAT(*stored, UnorderedElementsAreArray(grants));
  // {"a.b"} and {"a", "b"} are different namespaces: revoking one leaves the other.
  ASSERT_THAT(ids().RevokeGrant(grants[3]), IsOk());
  stored = ids().GrantsOfRole("r");
  ASSERT_THAT(stored, IsOk());
  EXPECT_THAT(*stored, SizeIs(grants.size() - 1));
  EXPECT_THAT(*stored, Not(::testing::Contains(grants[3])));
  EXPECT_THAT(*stored, ::testing::Contains(grants[4]));
}

TEST_P(IdentityGrantsTest, AGrantIsHeldOnceAndRevokedOnce) {
  CreateRole("r");
  const GrantRecord grant{"r", "TABLE_READ", "table", "main", {"db"}, "t"};
  ASSERT_THAT(ids().AddGrant(grant), IsOk());
  ASSERT_THAT(ids().AddGrant(grant), IsOk());
  EXPECT_THAT(ids().GrantsOfRole("r"), IsOkAndHolds(ElementsAre(grant)));
  ASSERT_THAT(ids().RevokeGrant(grant), IsOk());
  EXPECT_THAT(ids().RevokeGrant(grant), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().GrantsOfRole("r"), IsOkAndHolds(IsEmpty()));
}

TEST_P(IdentityGrantsTest, GrantsNeedAnExistingRole) {
  const GrantRecord grant{"ghost", "TABLE_READ", "catalog", "main", {}, ""};
  EXPECT_THAT(ids().AddGrant(grant), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().RevokeGrant(grant), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().GrantsOfRole("ghost"), IsError(ErrorKind::kNotFound));
}

TEST_P(IdentityGrantsTest, GrantsOfAPrincipalAreThoseOfItsRolesOncePerRole) {
  CreatePrincipal("alice");
  CreatePrincipal("bob");
  CreateRole("reader");
  CreateRole("writer");
  CreateRole("unheld");
  const GrantRecord shared_r{"reader", "TABLE_READ", "namespace", "main", {"db"}, ""};
  const GrantRecord shared_w{"writer", "TABLE_READ", "namespace", "main", {"db"}, ""};
  const GrantRecord write{"writer", "TABLE_WRITE", "table", "main", {"db"}, "t"};
  const GrantRecord other{"unheld", "SERVICE_ADMIN", "service", "", {}, ""};
  for (const auto& grant : {shared_r, shared_w, write, other}) {
    ASSERT_THAT(ids().AddGrant(grant), IsOk());
  }
  EXPECT_THAT(ids().GrantsOfPrincipal("alice"), IsOkAndHolds(IsEmpty()));
  ASSERT_THAT(ids().AssignRole("alice", "writer"), IsOk());
  ASSERT_THAT(ids().AssignRole("alice", "reader"), IsOk());
  // By role, then by privilege: the grant both roles hold comes once for each.
  EXPECT_THAT(ids().GrantsOfPrincipal("alice"),
              IsOkAndHolds(ElementsAre(shared_r, shared_w, write)));
  CreateRole("empty");
  ASSERT_THAT(ids().AssignRole("bob", "empty"), IsOk());
  EXPECT_THAT(ids().GrantsOfPrincipal("bob"), IsOkAndHolds(IsEmpty()));
}

TEST_P(IdentityGrantsTest, NamespaceLevelsTheKeyCannotHoldAreBadRequest) {
  CreateRole("r");
  for (const NamespacePath& ns : {NamespacePath{"a\x1f"
                                                "b"},
                                  NamespacePath{""}, NamespacePath{"a", ""}}) {
    EXPECT_THAT(ids().AddGrant({"r", "NAMESPACE_LIST", "namespace", "main", ns, ""}),
                IsError(ErrorKind::kBadRequest));
  }
  EXPECT_THAT(ids().GrantsOfRole("r"), IsOkAndHolds(IsEmpty()));
}

TEST_P(IdentityGrantsTest, GrantTextsAreBounded) {
  CreateRole("r");
  const std::string long_name(1025, 'x');
  const std::vector<GrantRecord> refused = {
      {"r", "", "table", "main", {"db"}, "t"},
      {"r", "TABLE_READ", "", "main", {"db"}, "t"},
      {"r", std::string(1025, 'P'), "table", "main", {"db"}, "t"},
      {"r", "TABLE_READ", "table", long_name, {"db"}, "t"},
      {"r", "TABLE_READ", "table", "main", {long_name}, "t"},
      {"r", "TABLE_READ", "table", "main", {"db"}, long_name},
      // Each within 1,024 bytes, more than 2,048 together.
      {"r",
       "TABLE_READ",
       "table",
       "main",
       {std::string(1000, 'a'), std::string(1000, 'b')},
       std::string(100, 'c')},
  };
  for (const auto& grant : refused) {
    EXPECT_THAT(ids().AddGrant(grant), IsError(ErrorKind::kBadRequest));
    EXPECT_THAT(ids().RevokeGrant(grant), IsError(ErrorKind::kBadRequest));
  }
  // 2,048 bytes together fit (in PostgreSQL's unique index too), of letters that do not
  // compress.
  std::string noise;
  uint32_t state = 12345;
  while (noise.size() < 1024) {
    state = state * 1103515245U + 12345U;
    noise.push_back(static_cast<char>('a' + (state >> 16) % 26));
  }
  const GrantRecord largest{"r",
                            "TABLE_READ",
                            "table",
                            "",
                            {noise.substr(0, 512), noise.substr(512)},
                            noise.substr(0, 2048 - 16 - 1025)};
  ASSERT_THAT(ids().AddGrant(largest), IsOk());
  EXPECT_THAT(ids().GrantsOfRole("r"), IsOkAndHolds(ElementsAre(largest)));
  GrantRecord one_more = largest;
  one_more.name.push_back('z');
  EXPECT_THAT(ids().AddGrant(one_more), IsError(ErrorKind::kBadRequest));
}

// --- signing keys ----------------------------------------------------------------------

TEST_P(IdentityGrantsTest, SigningKeysComeOldestFirstAndAKidOnce) {
  EXPECT_THAT(ids().SigningKeys(), IsOkAndHolds(IsEmpty()));
  ASSERT_THAT(ids().AddSigningKey({"kid-b", R"({"kty":"EC","d":"second"})", 200}),
              IsOk());
  ASSERT_THAT(ids().AddSigningKey({"kid-a", R"({"kty":"EC","d":"first"})", 100}), IsOk());
  auto taken = ids().AddSigningKey({"kid-a", R"({"kty":"EC","d":"private-d"})", 300});
  EXPECT_THAT(taken, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(taken, Not(HasErrorMessage("private-d")));
  auto keys = ids().SigningKeys();
  ASSERT_THAT(keys, IsOk());
  ASSERT_THAT(*keys, SizeIs(2));
  EXPECT_EQ((*keys)[0].kid, "kid-a");
  EXPECT_EQ((*keys)[0].private_jwk, R"({"kty":"EC","d":"first"})");
  EXPECT_EQ((*keys)[0].created_ms, 100);
  EXPECT_EQ((*keys)[1].kid, "kid-b");
}

TEST_P(IdentityGrantsTest, BeyondAHundredSigningKeysTheNewestAreRead) {
  for (int i = 0; i < 102; ++i) {
    ASSERT_THAT(ids().AddSigningKey({"kid-" + std::to_string(i), "{}", 1000 + i}),
                IsOk());
  }
  auto keys = ids().SigningKeys();
  ASSERT_THAT(keys, IsOk());
  ASSERT_THAT(*keys, SizeIs(100));
  EXPECT_EQ(keys->front().kid, "kid-2");
  EXPECT_EQ(keys->back().kid, "kid-101");
}

TEST_P(IdentityGrantsTest, SigningKeysAreBoundedAndNeverEchoed) {
  const std::string jwk = R"({"d":"private-part)" + std::string(16 * 1024, 'x') + "\"}";
  auto refused = ids().AddSigningKey({"kid", jwk, 1});
  EXPECT_THAT(refused, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(refused, Not(HasErrorMessage("private-part")));
  EXPECT_THAT(ids().AddSigningKey({"kid", "", 1}), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().AddSigningKey({"", "{}", 1}), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().AddSigningKey({std::string(1025, 'k'), "{}", 1}),
              IsError(ErrorKind::kBadRequest));
  ASSERT_THAT(ids().AddSigningKey({"kid", std::string(16 * 1024, 'j'), 1}), IsOk());
  EXPECT_THAT(ids().SigningKeys(), IsOkAndHolds(SizeIs(1)));
}

// --- upgrade ---------------------------------------------------------------------------

TEST_P(IdentityGrantsTest, AStoreOpenedOnADatabaseFromBeforeIdentityMigrates) {
  if (kind() == IdentityBackendKind::kSqliteMemory) GTEST_SKIP() << "not persistent";
  ASSERT_THAT(store_->CreateCatalog("main", "file:///warehouse/main", {}), IsOk());
  store_.reset();
  // The schema before identity: its tables, and what later migrations added (Lance
  // versions, the transaction pruning index, metrics reports, the first position of
  // split lists), gone and their versions unrecorded.
  ASSERT_TRUE(
      RunSql("DROP TABLE principal_roles; DROP TABLE grants; DROP TABLE principals; "
             "DROP TABLE roles; DROP TABLE signing_keys; DROP TABLE identity_generation; "
             "DROP TABLE lance_versions; DROP INDEX lance_transactions_by_update; "
             "DROP TABLE metrics_reports; "
             "ALTER TABLE split_entities DROP COLUMN first_position; "
             "DELETE FROM schema_version WHERE version >= (SELECT MAX(version) - 4 FROM "
             "schema_version)"));
  Reopen();
  EXPECT_THAT(store_->GetCatalog("main"), IsOk());
  EXPECT_EQ(Generation(), 0);
  CreatePrincipal("alice");
  CreateRole("reader");
  ASSERT_THAT(ids().AssignRole("alice", "reader"), IsOk());
  EXPECT_THAT(ids().RolesOfPrincipal("alice"), IsOkAndHolds(ElementsAre("reader")));
  EXPECT_EQ(Generation(), 3);
  // And what it wrote is there when opened again.
  Reopen();
  EXPECT_THAT(ids().RolesOfPrincipal("alice"), IsOkAndHolds(ElementsAre("reader")));
}

INSTANTIATE_TEST_SUITE_P(Backends, IdentityGrantsTest,
                         ::testing::ValuesIn(IdentityBackends()),
                         [](const ::testing::TestParamInfo<IdentityBackend>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace cairn
