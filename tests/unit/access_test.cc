// The access layer over a real (in-memory SQLite) store: principals and their secrets,
// permissions and their cache, Cairn's tokens, the authenticator and the root bootstrap.

#include <atomic>
#include <memory>

#include <gtest/gtest.h>

#include "access/authenticator.h"
#include "access/bootstrap.h"
#include "access/identity_service.h"
#include "access/token_service.h"
#include "auth/jwt.h"
#include "matchers.h"
#include "store/identity_store.h"
#include "store/meta_store.h"

namespace cairn {
namespace {

const Securable kSales = Securable::Namespace("lake", {"sales"});
const Securable kOrders = Securable::Table("lake", {"sales", "eu"}, "orders");

class AccessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_TRUE(store) << store.error().message;
    store_ = std::move(*store);
    identity_ = std::make_unique<IdentityService>(store_->identity(), clock_,
                                                  std::chrono::milliseconds(1000));
    auto tokens =
        TokenService::Open(store_->identity(), TokenSettings{}, std::nullopt, clock_);
    ASSERT_TRUE(tokens) << tokens.error().message;
    tokens_ = std::move(*tokens);
    authenticator_ = std::make_unique<Authenticator>(*tokens_, *identity_,
                                                     ExternalTokenCheck(), clock_);
  }

  /// A principal holding one role with `grants`.
  IssuedCredentials PrincipalWith(const std::string& name,
                                  const std::vector<PrivilegeGrant>& grants) {
    auto created = identity_->CreatePrincipal(name);
    EXPECT_TRUE(created) << created.error().message;
    EXPECT_TRUE(identity_->CreateRole(name + "-role"));
    EXPECT_TRUE(identity_->AssignRole(name, name + "-role"));
    for (const auto& grant : grants) EXPECT_TRUE(identity_->Grant(name + "-role", grant));
    return *created;
  }

  Result<std::shared_ptr<const Caller>> WithBearer(const std::string& token) {
    const std::string header = "Bearer " + token;
    return authenticator_->Authenticate({header, std::nullopt});
  }

  std::shared_ptr<std::atomic<int64_t>> now_ =
      std::make_shared<std::atomic<int64_t>>(1'800'000'000'000);
  std::function<int64_t()> clock_ = [now = now_] { return now->load(); };
  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<IdentityService> identity_;
  std::unique_ptr<TokenService> tokens_;
  std::unique_ptr<Authenticator> authenticator_;
};

TEST_F(AccessTest, SecretsAreShownOnceAndStoredHashed) {
  auto alice = PrincipalWith("alice", {});
  EXPECT_EQ(alice.client_secret.size(), 43u);
  auto stored = store_->identity().GetPrincipal("alice");
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->secret_hash.rfind("$argon2id$", 0), 0u);
  EXPECT_EQ(stored->secret_hash.find(alice.client_secret), std::string::npos);

  auto verified = identity_->VerifyClientSecret(alice.client_id, alice.client_secret);
  ASSERT_TRUE(verified);
  EXPECT_EQ(*verified, "alice");
  auto wrong = identity_->VerifyClientSecret(alice.client_id, "wrong-secret");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().kind, ErrorKind::kUnauthenticated);
  auto unknown = identity_->VerifyClientSecret("unknown-id", alice.client_secret);
  ASSERT_FALSE(unknown);
  // One message for every mismatch: an unknown id is not told apart.
  EXPECT_EQ(unknown.error().message, wrong.error().message);
}

TEST_F(AccessTest, RotationRetiresTheOldSecret) {
  auto alice = PrincipalWith("alice", {});
  auto rotated = identity_->RotateSecret("alice");
  ASSERT_TRUE(rotated);
  EXPECT_NE(rotated->client_secret, alice.client_secret);
  EXPECT_FALSE(identity_->VerifyClientSecret(alice.client_id, alice.client_secret));
  EXPECT_TRUE(identity_->VerifyClientSecret(rotated->client_id, rotated->client_secret));
  EXPECT_EQ(identity_->RotateSecret("nobody").error().kind, ErrorKind::kNotFound);
}

TEST_F(AccessTest, NamesAndGrantsAreChecked) {
  EXPECT_EQ(identity_->CreatePrincipal("").error().kind, ErrorKind::kBadRequest);
  EXPECT_EQ(identity_->CreatePrincipal("a b").error().kind, ErrorKind::kBadRequest);
  EXPECT_EQ(identity_->CreatePrincipal(std::string(129, 'a')).error().kind,
            ErrorKind::kBadRequest);
  ASSERT_TRUE(identity_->CreateRole("r"));
  EXPECT_EQ(identity_->Grant("r", {Privilege::kServiceAdmin, kSales}).error().kind,
            ErrorKind::kBadRequest);
  EXPECT_EQ(identity_->Grant("r", {Privilege::kTableCreate, kOrders}).error().kind,
            ErrorKind::kBadRequest);
  EXPECT_EQ(identity_
                ->Grant("r", {Privilege::kTableRead,
                              Securable{SecurableKind::kTable, "lake", {}, "t"}})
                .error()
                .kind,
            ErrorKind::kBadRequest);
  EXPECT_EQ(identity_->Grant("missing", {Privilege::kTableRead, kSales}).error().kind,
            ErrorKind::kNotFound);
}

TEST_F(AccessTest, PermissionsFollowGrantsAtOnce) {
  PrincipalWith("alice", {{Privilege::kTableRead, kSales}});
  auto permissions = identity_->PermissionsOf("alice");
  ASSERT_TRUE(permissions);
  EXPECT_TRUE((*permissions)->Allows(Privilege::kTableRead, kOrders));
  EXPECT_FALSE((*permissions)->Allows(Privilege::kTableWrite, kOrders));

  ASSERT_TRUE(identity_->Revoke("alice-role", {Privilege::kTableRead, kSales}));
  permissions = identity_->PermissionsOf("alice");
  ASSERT_TRUE(permissions);
  EXPECT_FALSE((*permissions)->Allows(Privilege::kTableRead, kOrders));

  ASSERT_TRUE(identity_->Grant("alice-role", {Privilege::kTableWrite, kOrders}));
  permissions = identity_->PermissionsOf("alice");
  EXPECT_TRUE((*permissions)->Allows(Privilege::kTableRead, kOrders));

  ASSERT_TRUE(identity_->DeletePrincipal("alice"));
  EXPECT_EQ(identity_->PermissionsOf("alice").error().kind, ErrorKind::kUnauthenticated);
}

TEST_F(AccessTest, AnotherInstancesChangeIsSeenAfterTheRecheckInterval) {
  PrincipalWith("alice", {{Privilege::kTableRead, kSales}});
  ASSERT_TRUE(identity_->PermissionsOf("alice"));
  // Another instance on the same store revokes.
  IdentityService other(store_->identity(), clock_);
  ASSERT_TRUE(other.Revoke("alice-role", {Privilege::kTableRead, kSales}));
  auto cached = identity_->PermissionsOf("alice");
  ASSERT_TRUE(cached);
  EXPECT_TRUE((*cached)->Allows(Privilege::kTableRead, kOrders));  // within the interval
  *now_ += 1001;
  auto fresh = identity_->PermissionsOf("alice");
  ASSERT_TRUE(fresh);
  EXPECT_FALSE((*fresh)->Allows(Privilege::kTableRead, kOrders));
}

TEST_F(AccessTest, TokensCarryThePrincipalAndExpire) {
  PrincipalWith("alice", {{Privilege::kTableRead, kSales}});
  auto token = tokens_->Issue("alice", "catalog");
  ASSERT_TRUE(token);
  EXPECT_EQ(token->expires_in, std::chrono::seconds(3600));
  auto claims = tokens_->Verify(token->access_token);
  ASSERT_TRUE(claims) << claims.error().message;
  EXPECT_EQ(claims->subject, "alice");
  EXPECT_EQ(claims->scope, "catalog");

  auto caller = WithBearer(token->access_token);
  ASSERT_TRUE(caller) << caller.error().message;
  EXPECT_EQ((*caller)->principal, "alice");
  EXPECT_TRUE((*caller)->Allows(Privilege::kTableRead, kOrders));
  // Cached: the network thread may use it without a check.
  const std::string header = "Bearer " + token->access_token;
  auto cached = authenticator_->AuthenticateCached({header, std::nullopt});
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ((*cached)->principal, "alice");

  *now_ += 3600'000 + 31'000;  // past the lifetime and the skew
  EXPECT_FALSE(authenticator_->AuthenticateCached({header, std::nullopt}).has_value());
  auto expired = WithBearer(token->access_token);
  ASSERT_FALSE(expired);
  EXPECT_EQ(expired.error().kind, ErrorKind::kUnauthenticated);
}

TEST_F(AccessTest, ACachedCallerIsReusedUntilItsGrantsChange) {
  PrincipalWith("alice", {{Privilege::kTableRead, kSales}});
  auto token = tokens_->Issue("alice", "");
  ASSERT_TRUE(token);
  ASSERT_TRUE(WithBearer(token->access_token));
  const std::string header = "Bearer " + token->access_token;
  auto first = authenticator_->AuthenticateCached({header, std::nullopt});
  auto second = authenticator_->AuthenticateCached({header, std::nullopt});
  ASSERT_TRUE(first.has_value() && second.has_value());
  EXPECT_EQ(first->get(), second->get());
  ASSERT_TRUE(identity_->Grant("alice-role", {Privilege::kTableWrite, kOrders}));
  ASSERT_TRUE(WithBearer(token->access_token));  // reads the new grants
  auto third = authenticator_->AuthenticateCached({header, std::nullopt});
  ASSERT_TRUE(third.has_value());
  EXPECT_NE(third->get(), first->get());
  EXPECT_TRUE((*third)->Allows(Privilege::kTableWrite, kOrders));
  EXPECT_FALSE((*first)->Allows(Privilege::kTableWrite, kOrders));
}

TEST_F(AccessTest, ADeletedPrincipalsTokenStopsWorking) {
  PrincipalWith("alice", {});
  auto token = tokens_->Issue("alice", "");
  ASSERT_TRUE(token);
  ASSERT_TRUE(WithBearer(token->access_token));
  ASSERT_TRUE(identity_->DeletePrincipal("alice"));
  auto refused = WithBearer(token->access_token);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::kUnauthenticated);
}

TEST_F(AccessTest, InstancesShareTheStoredSigningKey) {
  auto again =
      TokenService::Open(store_->identity(), TokenSettings{}, std::nullopt, clock_);
  ASSERT_TRUE(again);
  auto token = (*again)->Issue("alice", "");
  ASSERT_TRUE(token);
  EXPECT_TRUE(tokens_->Verify(token->access_token));
  auto keys = store_->identity().SigningKeys();
  ASSERT_TRUE(keys);
  EXPECT_EQ(keys->size(), 1u);
  // A token of another key (another issuer using the same names) is refused.
  auto foreign_key = GenerateSigningKey();
  ASSERT_TRUE(foreign_key);
  boost::json::object claims{{"iss", "cairn"},
                             {"aud", "cairn"},
                             {"sub", "alice"},
                             {"exp", clock_() / 1000 + 60}};
  auto foreign = SignToken(*foreign_key, claims);
  ASSERT_TRUE(foreign);
  EXPECT_EQ(tokens_->Verify(*foreign).error().kind, ErrorKind::kUnauthenticated);
}

TEST_F(AccessTest, CredentialsHeadersAreChecked) {
  auto none = authenticator_->Authenticate({std::nullopt, std::nullopt});
  EXPECT_EQ(none.error().kind, ErrorKind::kUnauthenticated);
  auto basic = authenticator_->Authenticate({"Basic abc", std::nullopt});
  EXPECT_EQ(basic.error().kind, ErrorKind::kUnauthenticated);
  auto empty = authenticator_->Authenticate({"Bearer ", std::nullopt});
  EXPECT_EQ(empty.error().kind, ErrorKind::kUnauthenticated);
  EXPECT_EQ(BearerToken("bearer  abc "), std::optional<std::string_view>("abc"));
  EXPECT_EQ(BearerToken("Bearerabc"), std::nullopt);
}

TEST_F(AccessTest, ApiKeysAreTokensOrClientSecrets) {
  auto alice = PrincipalWith("alice", {});
  const std::string key = alice.client_id + ":" + alice.client_secret;
  auto caller = authenticator_->Authenticate({std::nullopt, key});
  ASSERT_TRUE(caller) << caller.error().message;
  EXPECT_EQ((*caller)->principal, "alice");
  EXPECT_TRUE(authenticator_->AuthenticateCached({std::nullopt, key}).has_value());
  // A rotation ends a cached client-secret key at once.
  ASSERT_TRUE(identity_->RotateSecret("alice"));
  EXPECT_FALSE(authenticator_->AuthenticateCached({std::nullopt, key}).has_value());
  auto refused = authenticator_->Authenticate({std::nullopt, key});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().kind, ErrorKind::kUnauthenticated);

  auto token = tokens_->Issue("alice", "");
  ASSERT_TRUE(token);
  EXPECT_TRUE(authenticator_->Authenticate({std::nullopt, token->access_token}));
}

TEST_F(AccessTest, TheRootPrincipalIsMadeOnceAndAdministers) {
  auto first = EnsureRootPrincipal(*identity_, std::nullopt);
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->principal, "root");
  auto second = EnsureRootPrincipal(*identity_, std::nullopt);
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->has_value());  // shown once
  auto permissions = identity_->PermissionsOf("root");
  ASSERT_TRUE(permissions);
  EXPECT_TRUE((*permissions)->Allows(Privilege::kServiceAdmin, Securable::Service()));
  EXPECT_TRUE(
      identity_->VerifyClientSecret((*first)->client_id, (*first)->client_secret));
}

TEST_F(AccessTest, ConfiguredRootCredentials) {
  auto made = EnsureRootPrincipal(*identity_, std::string("ops:0123456789abcdefXYZ"));
  ASSERT_TRUE(made) << made.error().message;
  EXPECT_FALSE(made->has_value());
  auto verified = identity_->VerifyClientSecret("ops", "0123456789abcdefXYZ");
  ASSERT_TRUE(verified);
  EXPECT_EQ(*verified, "root");

  auto fresh = OpenSqliteStore({.path = ":memory:"});
  ASSERT_TRUE(fresh);
  IdentityService other((*fresh)->identity(), clock_);
  EXPECT_EQ(EnsureRootPrincipal(other, std::string("no-colon")).error().kind,
            ErrorKind::kInvalidConfig);
  EXPECT_EQ(EnsureRootPrincipal(other, std::string("ops:short")).error().kind,
            ErrorKind::kInvalidConfig);
}

}  // namespace
}  // namespace cairn
