// IdentityStore contract tests, part one: principals, roles, assignments, the
// generation and the bounds, on every backend (identity_store_fixture.h). Grants,
// signing keys and the migration are in identity_grants_test.cc.

#include "store/identity_store.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "identity_store_fixture.h"
#include "matchers.h"

namespace cairn {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;

// --- principals ------------------------------------------------------------------------

TEST_P(IdentityStoreTest, ACreatedPrincipalLoadsByNameAndByClientId) {
  PrincipalRecord alice = Principal("alice", "client-a");
  alice.created_ms = 1234;
  alice.secret_rotated_ms = 5678;
  ASSERT_THAT(ids().CreatePrincipal(alice), IsOk());
  for (auto loaded :
       {ids().GetPrincipal("alice"), ids().GetPrincipalByClientId("client-a")}) {
    ASSERT_THAT(loaded, IsOk());
    EXPECT_EQ(loaded->name, "alice");
    EXPECT_EQ(loaded->client_id, "client-a");
    EXPECT_EQ(loaded->secret_hash, alice.secret_hash);
    EXPECT_EQ(loaded->created_ms, 1234);
    EXPECT_EQ(loaded->secret_rotated_ms, 5678);
  }
  EXPECT_THAT(ids().GetPrincipal("Alice"), IsError(ErrorKind::kNotFound));
}

TEST_P(IdentityStoreTest, ATakenNameOrClientIdIsAlreadyExistsAndNamesNoSecret) {
  CreatePrincipal("alice");
  PrincipalRecord same_name = Principal("alice", "client-other");
  same_name.secret_hash = "$argon2id$secret-hash-one";
  auto name_taken = ids().CreatePrincipal(same_name);
  EXPECT_THAT(name_taken, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(name_taken, HasErrorMessage("alice"));
  EXPECT_THAT(name_taken, Not(HasErrorMessage("secret-hash-one")));

  PrincipalRecord same_client = Principal("bob", "id-alice");
  same_client.secret_hash = "$argon2id$secret-hash-two";
  auto client_taken = ids().CreatePrincipal(same_client);
  EXPECT_THAT(client_taken, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(client_taken, Not(HasErrorMessage("id-alice")));
  EXPECT_THAT(client_taken, Not(HasErrorMessage("secret-hash-two")));
  EXPECT_THAT(ids().GetPrincipal("bob"), IsError(ErrorKind::kNotFound));
  EXPECT_EQ(ids().GetPrincipal("alice")->client_id, "id-alice");
}

TEST_P(IdentityStoreTest, AnUnknownPrincipalIsNotFound) {
  CreateRole("reader");
  EXPECT_THAT(ids().GetPrincipal("ghost"), IsError(ErrorKind::kNotFound));
  auto by_client = ids().GetPrincipalByClientId("client-ghost");
  EXPECT_THAT(by_client, IsError(ErrorKind::kNotFound));
  EXPECT_THAT(by_client, Not(HasErrorMessage("client-ghost")));
  EXPECT_THAT(ids().SetPrincipalSecret("ghost", "c", "h", 1),
              IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().DeletePrincipal("ghost"), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().AssignRole("ghost", "reader"), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().UnassignRole("ghost", "reader"), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().RolesOfPrincipal("ghost"), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().GrantsOfPrincipal("ghost"), IsError(ErrorKind::kNotFound));
}

TEST_P(IdentityStoreTest, SetPrincipalSecretRotatesTheClientIdAndTheHash) {
  CreatePrincipal("alice");
  ASSERT_THAT(ids().SetPrincipalSecret("alice", "client-new", "$argon2id$new", 9000),
              IsOk());
  EXPECT_THAT(ids().GetPrincipalByClientId("id-alice"), IsError(ErrorKind::kNotFound));
  auto rotated = ids().GetPrincipalByClientId("client-new");
  ASSERT_THAT(rotated, IsOk());
  EXPECT_EQ(rotated->name, "alice");
  EXPECT_EQ(rotated->secret_hash, "$argon2id$new");
  EXPECT_EQ(rotated->created_ms, 1000);
  EXPECT_EQ(rotated->secret_rotated_ms, 9000);
  // Keeping the client id and changing only the secret is a rotation too.
  ASSERT_THAT(ids().SetPrincipalSecret("alice", "client-new", "$argon2id$newer", 9500),
              IsOk());
  EXPECT_EQ(ids().GetPrincipal("alice")->secret_hash, "$argon2id$newer");
}

TEST_P(IdentityStoreTest, SetPrincipalSecretToAnotherPrincipalsClientIdIsAlreadyExists) {
  CreatePrincipal("alice");
  CreatePrincipal("bob");
  auto taken = ids().SetPrincipalSecret("alice", "id-bob", "$argon2id$leaked", 9000);
  EXPECT_THAT(taken, IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(taken, Not(HasErrorMessage("$argon2id$leaked")));
  EXPECT_EQ(ids().GetPrincipal("alice")->client_id, "id-alice");
  EXPECT_EQ(ids().GetPrincipalByClientId("id-bob")->name, "bob");
}

TEST_P(IdentityStoreTest, DeletePrincipalRemovesItsAssignmentsButNotTheRoles) {
  CreatePrincipal("alice");
  CreatePrincipal("bob");
  CreateRole("reader");
  ASSERT_THAT(ids().AssignRole("alice", "reader"), IsOk());
  ASSERT_THAT(ids().AssignRole("bob", "reader"), IsOk());
  ASSERT_THAT(ids().DeletePrincipal("alice"), IsOk());
  EXPECT_THAT(ids().GetPrincipal("alice"), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().GetPrincipalByClientId("id-alice"), IsError(ErrorKind::kNotFound));
  // A principal created again under the name holds nothing of the old one.
  CreatePrincipal("alice");
  EXPECT_THAT(ids().RolesOfPrincipal("alice"), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(ids().RolesOfPrincipal("bob"), IsOkAndHolds(ElementsAre("reader")));
  EXPECT_THAT(ids().ListRoles("", 10)->names, ElementsAre("reader"));
}

TEST_P(IdentityStoreTest, ListPrincipalsPagesInByteOrderWithHasMore) {
  const std::vector<std::string> names = {"Zed", "alice", "bob", "b\xC3\xA9la", "carol"};
  for (const auto& name : names) CreatePrincipal(name);
  std::vector<size_t> sizes;
  EXPECT_THAT(
      AllNames([&](auto after, size_t n) { return ids().ListPrincipals(after, n); }, 2,
               &sizes),
      ElementsAre("Zed", "alice", "bob", "b\xC3\xA9la", "carol"));
  EXPECT_THAT(sizes, ElementsAre(2, 2, 1));
  auto last = ids().ListPrincipals("bob", 2);
  ASSERT_THAT(last, IsOk());
  EXPECT_THAT(last->names, ElementsAre("b\xC3\xA9la", "carol"));
  EXPECT_FALSE(last->has_more);
  auto none = ids().ListPrincipals("carol", 2);
  ASSERT_THAT(none, IsOk());
  EXPECT_THAT(none->names, IsEmpty());
  EXPECT_FALSE(none->has_more);
}

TEST_P(IdentityStoreTest, AListAsksAtMostAThousandNames) {
  for (int i = 0; i < 3; ++i) CreatePrincipal("p" + std::to_string(i));
  auto page = ids().ListPrincipals("", 1'000'000);
  ASSERT_THAT(page, IsOk());
  EXPECT_EQ(page->names.size(), 3U);
  EXPECT_FALSE(page->has_more);
}

// --- roles and assignments -------------------------------------------------------------

TEST_P(IdentityStoreTest, RolesAreCreatedOnceListedAndDeleted) {
  CreateRole("writer");
  CreateRole("reader");
  EXPECT_THAT(ids().CreateRole("reader", 3000), IsError(ErrorKind::kAlreadyExists));
  EXPECT_THAT(
      AllNames([&](auto after, size_t n) { return ids().ListRoles(after, n); }, 1),
      ElementsAre("reader", "writer"));
  ASSERT_THAT(ids().DeleteRole("reader"), IsOk());
  EXPECT_THAT(ids().DeleteRole("reader"), IsError(ErrorKind::kNotFound));
  auto page = ids().ListRoles("", 1);
  ASSERT_THAT(page, IsOk());
  EXPECT_THAT(page->names, ElementsAre("writer"));
  EXPECT_FALSE(page->has_more);
}

TEST_P(IdentityStoreTest, AssignmentsNeedBothSidesAndAreListedAscending) {
  CreatePrincipal("alice");
  CreateRole("writer");
  CreateRole("admin");
  EXPECT_THAT(ids().AssignRole("alice", "ghost"), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().RolesOfPrincipal("alice"), IsOkAndHolds(IsEmpty()));
  ASSERT_THAT(ids().AssignRole("alice", "writer"), IsOk());
  ASSERT_THAT(ids().AssignRole("alice", "admin"), IsOk());
  ASSERT_THAT(ids().AssignRole("alice", "admin"), IsOk());  // held already: nothing
  EXPECT_THAT(ids().RolesOfPrincipal("alice"),
              IsOkAndHolds(ElementsAre("admin", "writer")));
  ASSERT_THAT(ids().UnassignRole("alice", "admin"), IsOk());
  EXPECT_THAT(ids().UnassignRole("alice", "admin"), IsError(ErrorKind::kNotFound));
  EXPECT_THAT(ids().RolesOfPrincipal("alice"), IsOkAndHolds(ElementsAre("writer")));
}

TEST_P(IdentityStoreTest, DeleteRoleRemovesItsGrantsAndAssignments) {
  CreatePrincipal("alice");
  CreateRole("reader");
  CreateRole("writer");
  const GrantRecord read{"reader", "TABLE_READ", "catalog", "main", {}, ""};
  const GrantRecord write{"writer", "TABLE_WRITE", "catalog", "main", {}, ""};
  ASSERT_THAT(ids().AddGrant(read), IsOk());
  ASSERT_THAT(ids().AddGrant(write), IsOk());
  ASSERT_THAT(ids().AssignRole("alice", "reader"), IsOk());
  ASSERT_THAT(ids().AssignRole("alice", "writer"), IsOk());
  ASSERT_THAT(ids().DeleteRole("reader"), IsOk());
  EXPECT_THAT(ids().RolesOfPrincipal("alice"), IsOkAndHolds(ElementsAre("writer")));
  EXPECT_THAT(ids().GrantsOfPrincipal("alice"), IsOkAndHolds(ElementsAre(write)));
  EXPECT_THAT(ids().GrantsOfRole("reader"), IsError(ErrorKind::kNotFound));
  // A role created again under the name holds nothing of the old one.
  CreateRole("reader");
  EXPECT_THAT(ids().GrantsOfRole("reader"), IsOkAndHolds(IsEmpty()));
  EXPECT_THAT(ids().RolesOfPrincipal("alice"), IsOkAndHolds(ElementsAre("writer")));
}

// --- the generation --------------------------------------------------------------------

TEST_P(IdentityStoreTest, TheGenerationGrowsWithEachChangeAndStaysOnFailures) {
  int64_t last = Generation();
  const auto changed = [&](const Status& status, const char* what) {
    EXPECT_THAT(status, IsOk()) << what;
    const int64_t now = Generation();
    EXPECT_GT(now, last) << what;
    last = now;
  };
  const auto unchanged = [&](const Status& status, const char* what) {
    (void)status;
    EXPECT_EQ(Generation(), last) << what;
  };
  const GrantRecord grant{"reader", "TABLE_READ", "table", "main", {"db"}, "t"};
  changed(ids().CreatePrincipal(Principal("alice", "c1")), "create principal");
  unchanged(ids().CreatePrincipal(Principal("alice", "c2")), "principal exists");
  unchanged(ids().CreatePrincipal(Principal("bob", "c1")), "client id taken");
  changed(ids().SetPrincipalSecret("alice", "c3", "h", 5), "rotate");
  unchanged(ids().SetPrincipalSecret("ghost", "c4", "h", 5), "rotate unknown");
  changed(ids().CreateRole("reader", 1), "create role");
  unchanged(ids().CreateRole("reader", 1), "role exists");
  changed(ids().AssignRole("alice", "reader"), "assign");
  unchanged(ids().AssignRole("alice", "reader"), "assign again");
  unchanged(ids().AssignRole("alice", "ghost"), "assign unknown role");
  changed(ids().AddGrant(grant), "grant");
  unchanged(ids().AddGrant(grant), "grant again");
  unchanged(ids().RevokeGrant({"reader", "TABLE_WRITE", "table", "main", {"db"}, "t"}),
            "revoke ungranted");
  changed(ids().AddSigningKey({"kid-1", R"({"kty":"EC"})", 1}), "signing key");
  unchanged(ids().AddSigningKey({"kid-1", R"({"kty":"EC"})", 1}), "kid exists");
  unchanged(ids().CreateRole(std::string(1025, 'r'), 1), "too long");
  changed(ids().RevokeGrant(grant), "revoke");
  changed(ids().UnassignRole("alice", "reader"), "unassign");
  unchanged(ids().UnassignRole("alice", "reader"), "unassign again");
  changed(ids().DeleteRole("reader"), "delete role");
  unchanged(ids().DeleteRole("reader"), "delete role again");
  changed(ids().DeletePrincipal("alice"), "delete principal");
  unchanged(ids().DeletePrincipal("alice"), "delete principal again");
  // Reads change nothing.
  (void)ids().ListPrincipals("", 10);
  (void)ids().SigningKeys();
  unchanged(Ok(), "reads");
}

TEST_P(IdentityStoreTest, ConcurrentCreatesOfOneNameHaveOneWinner) {
  if (kind() == IdentityBackendKind::kSqliteMemory) GTEST_SKIP() << "one connection";
  const int64_t before = Generation();
  std::atomic<int> created{0};
  std::atomic<int> taken{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto status =
          i % 2 == 0 ? ids().CreateRole("shared", i)
                     : ids().CreatePrincipal(Principal("p" + std::to_string(i), "same"));
      if (status) {
        ++created;
      } else if (status.error().kind == ErrorKind::kAlreadyExists) {
        ++taken;
      } else {
        ADD_FAILURE() << status.error().message;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(created, 2);  // the role, and one principal with the client id
  EXPECT_EQ(taken, 6);
  EXPECT_EQ(Generation(), before + 2);
}

// --- bounds ----------------------------------------------------------------------------

TEST_P(IdentityStoreTest, TextsLongerThan1024BytesAreBadRequest) {
  const std::string fits(1024, 'n');
  const std::string longer(1025, 'n');
  ASSERT_THAT(ids().CreatePrincipal(Principal(fits, fits)), IsOk());
  ASSERT_THAT(ids().CreateRole(fits, 1), IsOk());
  EXPECT_THAT(ids().GetPrincipal(fits), IsOk());
  const int64_t before = Generation();
  const std::string hash = "$argon2id$" + std::string(1015, 'h');
  EXPECT_THAT(ids().CreatePrincipal(Principal(longer, "c")),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().CreatePrincipal(Principal("p", longer)),
              IsError(ErrorKind::kBadRequest));
  PrincipalRecord long_hash = Principal("p", "c");
  long_hash.secret_hash = hash;
  auto refused = ids().CreatePrincipal(long_hash);
  EXPECT_THAT(refused, IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(refused, Not(HasErrorMessage(hash.substr(0, 20))));
  EXPECT_THAT(ids().GetPrincipal(longer), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().GetPrincipalByClientId(longer), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().ListPrincipals(longer, 10), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().SetPrincipalSecret(fits, fits, hash, 1),
              IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().DeletePrincipal(longer), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().CreateRole(longer, 1), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().DeleteRole(longer), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().ListRoles(longer, 10), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().AssignRole(fits, longer), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().UnassignRole(longer, fits), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().RolesOfPrincipal(longer), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().GrantsOfRole(longer), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().GrantsOfPrincipal(longer), IsError(ErrorKind::kBadRequest));
  EXPECT_EQ(Generation(), before);
}

TEST_P(IdentityStoreTest, EmptyTextsOfANewPrincipalOrRoleAreBadRequest) {
  EXPECT_THAT(ids().CreatePrincipal(Principal("", "c")), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().CreatePrincipal(Principal("p", "")), IsError(ErrorKind::kBadRequest));
  PrincipalRecord no_hash = Principal("p", "c");
  no_hash.secret_hash.clear();
  EXPECT_THAT(ids().CreatePrincipal(no_hash), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().CreateRole("", 1), IsError(ErrorKind::kBadRequest));
  CreatePrincipal("p");
  EXPECT_THAT(ids().SetPrincipalSecret("p", "", "h", 1), IsError(ErrorKind::kBadRequest));
  EXPECT_THAT(ids().SetPrincipalSecret("p", "c", "", 1), IsError(ErrorKind::kBadRequest));
}

INSTANTIATE_TEST_SUITE_P(Backends, IdentityStoreTest,
                         ::testing::ValuesIn(IdentityBackends()),
                         [](const ::testing::TestParamInfo<IdentityBackend>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace cairn
