#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "app/server_config.h"
#include "matchers.h"
#include "store/postgres_store.h"
#include "temp_dir.h"

namespace cairn {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

/// One setting: a good value and what it sets, bad values that must be refused.
struct SettingCase {
  std::string key;
  /// Renders the fields the setting controls, to compare before and after.
  std::function<std::string(const ServerConfig&)> get;
  std::string good;
  std::string expected_after_good;
  std::vector<std::string> bad;
};

std::string Ms(std::chrono::milliseconds ms) { return std::to_string(ms.count()); }

const std::vector<SettingCase>& SettingCases() {
  static const std::vector<SettingCase> kCases = {
      {"listen",
       [](const ServerConfig& c) {
         return c.http.host + " " + std::to_string(c.http.port);
       },
       "0.0.0.0:8181",
       "0.0.0.0 8181",
       {"nonsense", ":80", "host:99999", "host:", "", "host:-1", "host:8o"}},
      {"data-dir",
       [](const ServerConfig& c) { return c.data_dir; },
       "/srv/cairn",
       "/srv/cairn",
       {""}},
      {"store",
       [](const ServerConfig& c) { return c.store; },
       "sqlite:/srv/cairn/meta.db",
       "sqlite:/srv/cairn/meta.db",
       {"sqlite:", "mysql://x", "/srv/cairn.db", "postgresql:/h/db", "postgres:h"}},
      {"store-password-env",
       [](const ServerConfig& c) { return c.store_password_env; },
       "CAIRN_PG_PASSWORD",
       "CAIRN_PG_PASSWORD",
       {""}},
      {"store-password-file",
       [](const ServerConfig& c) { return c.store_password_file; },
       "/run/secrets/pg",
       "/run/secrets/pg",
       {""}},
      {"store-pool-size",
       [](const ServerConfig& c) { return std::to_string(c.store_pool_size); },
       "32",
       "32",
       {"-1", "1025", "many", ""}},
      {"store-lock-timeout-ms",
       [](const ServerConfig& c) { return std::to_string(c.postgres.lock_timeout_ms); },
       "2500",
       "2500",
       {"0", "600001", "x"}},
      {"default-catalog",
       [](const ServerConfig& c) { return c.default_catalog; },
       "main",
       "main",
       {"", "config", "namespaces", "a/b", ".."}},
      {"log-level",
       [](const ServerConfig& c) { return c.log_level; },
       "debug",
       "debug",
       {"verbose", "INFO", ""}},
      {"log-format",
       [](const ServerConfig& c) { return c.log_format; },
       "json",
       "json",
       {"JSON", "yaml", ""}},
      {"max-body-bytes",
       [](const ServerConfig& c) { return std::to_string(c.http.max_body_bytes); },
       "1024",
       "1024",
       {"0", "x", "-1", "4294967296", "1k", " 1", "1.5", ""}},
      {"header-timeout-ms",
       [](const ServerConfig& c) { return Ms(c.http.header_timeout); },
       "1500",
       "1500",
       {"0", "3600001", "abc", "-5"}},
      {"read-timeout-ms",
       [](const ServerConfig& c) { return Ms(c.http.read_timeout); },
       "1",
       "1",
       {"0", "3600001", "1s"}},
      {"write-timeout-ms",
       [](const ServerConfig& c) { return Ms(c.http.write_timeout); },
       "3600000",
       "3600000",
       {"0", "3600001", "+5"}},
      {"io-threads",
       [](const ServerConfig& c) { return std::to_string(c.http.io_threads); },
       "64",
       "64",
       {"0", "65", "two"}},
      {"worker-threads",
       [](const ServerConfig& c) { return std::to_string(c.worker_threads_setting); },
       "8",
       "8",
       {"0", "257", "many"}},
      {"worker-queue",
       [](const ServerConfig& c) { return std::to_string(c.http.worker_queue); },
       "1000000",
       "1000000",
       {"0", "1000001", "-1"}},
      {"shutdown-grace-ms",
       [](const ServerConfig& c) { return Ms(c.http.shutdown_grace); },
       "250",
       "250",
       {"0", "3600001", "soon"}},
      {"sqlite-synchronous",
       [](const ServerConfig& c) { return c.sqlite.synchronous; },
       "normal",
       "normal",
       {"off", "FULL", "extra", ""}},
      {"sqlite-busy-timeout-ms",
       [](const ServerConfig& c) { return std::to_string(c.sqlite.busy_timeout_ms); },
       "0",
       "0",
       {"600001", "-1", "x"}},
      {"idempotency-key-lifetime",
       [](const ServerConfig& c) {
         return std::to_string(c.idempotency_key_lifetime.count());
       },
       "PT1H2M3S",
       "3723",
       {"30M", "PT", "P1H", "PT-5M", "PT0S", "pt30m", ""}},
      {"lance-async-drop-files",
       [](const ServerConfig& c) { return std::to_string(c.lance_async_drop_files); },
       "0",
       "0",
       {"-1", "4294967296", "many", ""}},
      {"lance-transaction-retention-s",
       [](const ServerConfig& c) {
         return std::to_string(c.lance_transaction_retention.count());
       },
       "0",
       "0",
       {"-1", "315360001", "week", ""}},
      {"metrics-report-retention-s",
       [](const ServerConfig& c) {
         return std::to_string(c.metrics_report_retention.count());
       },
       "3600",
       "3600",
       {"-1", "315360001", "day", ""}},
      {"scan-planning-mode",
       [](const ServerConfig& c) { return c.scan_planning.mode; },
       "client",
       "client",
       {"SERVER", "both", ""}},
      {"scan-plan-page-tasks",
       [](const ServerConfig& c) {
         return std::to_string(c.scan_planning.plans.tasks_per_page);
       },
       "50",
       "50",
       {"0", "1000001", "many", ""}},
      {"scan-plan-async-manifest-bytes",
       [](const ServerConfig& c) {
         return std::to_string(c.scan_planning.async_manifest_bytes);
       },
       "0",
       "0",
       {"-1", "4294967296", "big", ""}},
      {"scan-plan-ttl-s",
       [](const ServerConfig& c) { return std::to_string(c.scan_planning.plans.ttl_ms); },
       "60",
       "60000",
       {"0", "604801", "hour", ""}},
      {"manifest-cache-bytes",
       [](const ServerConfig& c) {
         return std::to_string(c.scan_planning.manifest_cache_bytes);
       },
       "2147483648",
       "2147483648",
       {"1048575", "1099511627777", "big", ""}},
      {"scan-plan-max-held-tasks",
       [](const ServerConfig& c) {
         return std::to_string(c.scan_planning.plans.max_held_tasks);
       },
       "2000",
       "2000",
       {"0", "1000000001", "lots", ""}},
      {"orphan-file-min-age-s",
       [](const ServerConfig& c) {
         return std::to_string(c.maintenance.orphan_min_age_ms);
       },
       "3600",
       "3600000",
       {"-1", "315360001", "day", ""}},
      {"orphan-removal-max-files",
       [](const ServerConfig& c) {
         return std::to_string(c.maintenance.orphan_max_listed_files);
       },
       "5000",
       "5000",
       {"0", "100000001", "all", ""}},
      {"maintenance-check-interval-s",
       [](const ServerConfig& c) {
         return std::to_string(c.maintenance_check_interval.count());
       },
       "300",
       "300",
       {"0", "86401", "often", ""}},
      {"orphan-file-grace-s",
       [](const ServerConfig& c) { return std::to_string(c.orphan_file_grace.count()); },
       "0",
       "0",
       {"-1", "604801", "soon", ""}},
      {"orphan-sweep-interval-s",
       [](const ServerConfig& c) {
         return std::to_string(c.orphan_sweep_interval.count());
       },
       "5",
       "5",
       {"0", "86401", "often", ""}},
      {"allowed-locations",
       [](const ServerConfig& c) { return c.allowed_locations_setting; },
       "/srv/a, file:///srv/b",
       "/srv/a, file:///srv/b",
       {""}},
      {"max-metadata-file-bytes",
       [](const ServerConfig& c) { return std::to_string(c.max_metadata_file_bytes); },
       "1048576",
       "1048576",
       {"0", "1023", "4294967296", "big"}},
      {"auth",
       [](const ServerConfig& c) { return c.auth.mode; },
       "on",
       "on",
       {"", "off", "ON", "maybe"}},
      {"insecure-no-authentication",
       [](const ServerConfig& c) {
         return std::to_string(c.auth.insecure_no_authentication);
       },
       "true",
       "1",
       {"", "yes", "1"}},
      {"token-signing-key-file",
       [](const ServerConfig& c) { return c.auth.token_signing_key_file; },
       "/etc/cairn/key.pem",
       "/etc/cairn/key.pem",
       {""}},
      {"token-lifetime-s",
       [](const ServerConfig& c) {
         return std::to_string(c.auth.token_lifetime.count());
       },
       "600",
       "600",
       {"", "59", "86401", "-5", "hour"}},
      {"token-issuer",
       [](const ServerConfig& c) { return c.auth.token_issuer; },
       "lake",
       "lake",
       {""}},
      {"root-credentials-file",
       [](const ServerConfig& c) { return c.auth.root_credentials_file; },
       "/run/secrets/root",
       "/run/secrets/root",
       {""}},
      {"root-credentials-env",
       [](const ServerConfig& c) { return c.auth.root_credentials_env; },
       "ROOT_CREDS",
       "ROOT_CREDS",
       {""}},
      {"oidc-issuer",
       [](const ServerConfig& c) { return c.auth.oidc_issuer; },
       "https://idp.example",
       "https://idp.example",
       {""}},
      {"oidc-audience",
       [](const ServerConfig& c) { return c.auth.oidc_audience; },
       "cairn",
       "cairn",
       {""}},
      {"oidc-jwks-url",
       [](const ServerConfig& c) { return c.auth.oidc_jwks_url; },
       "https://idp.example/jwks",
       "https://idp.example/jwks",
       {""}},
      {"oidc-principal-claim",
       [](const ServerConfig& c) { return c.auth.oidc_principal_claim; },
       "email",
       "email",
       {""}},
      {"oidc-algorithms",
       [](const ServerConfig& c) {
         std::string out;
         for (const auto& alg : c.auth.oidc_algorithms) out += alg + ";";
         return out;
       },
       "ES256",
       "ES256;",
       {"", "HS256", "none", "RS256,"}},
      {"oidc-clock-skew-s",
       [](const ServerConfig& c) {
         return std::to_string(c.auth.oidc_clock_skew.count());
       },
       "5",
       "5",
       {"", "-1", "601"}},
      {"audit-log-file",
       [](const ServerConfig& c) { return c.auth.audit_log_file; },
       "/var/log/cairn/audit.log",
       "/var/log/cairn/audit.log",
       {""}},
      {"oidc-refresh-gap-s",
       [](const ServerConfig& c) {
         return std::to_string(c.auth.oidc_refresh_gap.count());
       },
       "2",
       "2",
       {"", "-1", "901"}},
      {"grants-recheck-ms",
       [](const ServerConfig& c) {
         return std::to_string(c.auth.grants_recheck.count());
       },
       "250",
       "250",
       {"", "-1", "60001"}},
      {"tls-cert-file",
       [](const ServerConfig& c) { return c.http.tls.cert_file; },
       "/etc/cairn/chain.pem",
       "/etc/cairn/chain.pem",
       {""}},
      {"tls-key-file",
       [](const ServerConfig& c) { return c.http.tls.key_file; },
       "/etc/cairn/key.pem",
       "/etc/cairn/key.pem",
       {""}},
      {"tls-min-version",
       [](const ServerConfig& c) {
         return std::string(c.http.tls.min_version == TlsVersion::kTls13 ? "1.3"
                                                                         : "1.2") +
                (c.tls_min_version_set ? " set" : "");
       },
       "1.3",
       "1.3 set",
       {"1.1", "1.0", "TLSv1.3", "1.3.0", ""}},
  };
  return kCases;
}

TEST(ConfigSettingsTest, EverySettingIsCoveredByTheTestTable) {
  std::set<std::string> documented;
  for (const auto& info : Settings()) {
    EXPECT_FALSE(info.help.empty()) << info.key;
    EXPECT_TRUE(documented.insert(std::string(info.key)).second)
        << "duplicate " << info.key;
  }
  std::set<std::string> tested;
  for (const auto& c : SettingCases()) tested.insert(c.key);
  EXPECT_EQ(documented, tested);
}

// `cairn serve --help` shows INT for whole-number settings, and their help says the
// default (the issue: "every numeric option's help shows its type and default").
TEST(ConfigSettingsTest, NumericSettingsShowTheirTypeAndDefault) {
  size_t numeric = 0;
  for (const auto& info : Settings()) {
    SCOPED_TRACE(std::string(info.key));
    ServerConfig scratch;
    const bool takes_text = static_cast<bool>(ApplySetting(scratch, info.key, "12x"));
    if (info.value_type == "INT") {
      ++numeric;
      EXPECT_FALSE(takes_text);
      EXPECT_THAT(std::string(info.help), HasSubstr("default")) << info.help;
    } else {
      EXPECT_EQ(info.value_type, "TEXT");
    }
  }
  // A sample that must be numeric, so that the probe cannot silently find none.
  for (const char* key :
       {"max-body-bytes", "worker-threads", "metrics-report-retention-s",
        "token-lifetime-s", "grants-recheck-ms"}) {
    const auto found =
        std::find_if(Settings().begin(), Settings().end(),
                     [&](const SettingInfo& info) { return info.key == key; });
    ASSERT_NE(found, Settings().end()) << key;
    EXPECT_EQ(found->value_type, "INT") << key;
  }
  EXPECT_GE(numeric, 20U);
}

TEST(ApplySettingTest, GoodValueSetsTheSetting) {
  for (const auto& c : SettingCases()) {
    SCOPED_TRACE(c.key + " = " + c.good);
    ServerConfig config;
    ASSERT_THAT(ApplySetting(config, c.key, c.good), IsOk());
    EXPECT_EQ(c.get(config), c.expected_after_good);
  }
}

TEST(ApplySettingTest, BadValueIsInvalidConfigNamingTheSettingAndLeavesConfigUnchanged) {
  for (const auto& c : SettingCases()) {
    const std::string defaults = c.get(ServerConfig{});
    ASSERT_NE(defaults, c.expected_after_good)
        << c.key << ": pick a non-default good value";
    for (const auto& bad : c.bad) {
      SCOPED_TRACE(c.key + " = '" + bad + "'");
      ServerConfig config;
      const auto status = ApplySetting(config, c.key, bad);
      EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
      EXPECT_THAT(status, HasErrorMessageThat(StartsWith(c.key + ": ")));
      EXPECT_EQ(c.get(config), defaults);
    }
  }
}

TEST(ApplySettingTest, UnknownKeyIsInvalidConfigNamingTheKey) {
  ServerConfig config;
  const auto status = ApplySetting(config, "max-bodybytes", "1");
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessage("max-bodybytes: unknown setting"));
}

TEST(ApplyEnvironmentTest, EverySettingHasItsVariableAndABadValueNamesIt) {
  EXPECT_EQ(SettingEnvName("max-body-bytes"), "CAIRN_MAX_BODY_BYTES");
  EXPECT_EQ(SettingEnvName("listen"), "CAIRN_LISTEN");
  const std::map<std::string, std::string> env = {
      {"CAIRN_MAX_BODY_BYTES", "2048"}, {"CAIRN_LOG_LEVEL", "debug"}, {"OTHER", "x"}};
  const auto lookup = [&](const char* name) -> const char* {
    auto found = env.find(name);
    return found == env.end() ? nullptr : found->second.c_str();
  };
  ServerConfig config;
  ASSERT_THAT(ApplyEnvironment(config, lookup), IsOk());
  EXPECT_EQ(config.http.max_body_bytes, 2048u);
  EXPECT_EQ(config.log_level, "debug");

  ServerConfig untouched;
  const auto bad = ApplyEnvironment(untouched, [](const char* name) -> const char* {
    return std::string_view(name) == "CAIRN_MAX_BODY_BYTES" ? "lots" : nullptr;
  });
  ASSERT_THAT(bad, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(bad.error().message, ::testing::HasSubstr("CAIRN_MAX_BODY_BYTES"));
  EXPECT_THAT(bad.error().message, ::testing::HasSubstr("max-body-bytes"));
  // Every setting is reachable: each one's variable is looked up.
  std::set<std::string> asked;
  ServerConfig any;
  ASSERT_THAT(ApplyEnvironment(any,
                               [&](const char* name) -> const char* {
                                 asked.insert(name);
                                 return nullptr;
                               }),
              IsOk());
  EXPECT_EQ(asked.size(), Settings().size());
}

TEST(ApplySettingTest, ListenAcceptsHostPortForms) {
  struct Case {
    std::string value;
    std::string host;
    uint16_t port;
  };
  for (const auto& c : std::vector<Case>{{"127.0.0.1:0", "127.0.0.1", 0},
                                         {"[::1]:9001", "::1", 9001},
                                         {"localhost:80", "localhost", 80},
                                         {"0.0.0.0:65535", "0.0.0.0", 65535},
                                         {"[::]:1", "::", 1}}) {
    SCOPED_TRACE(c.value);
    ServerConfig config;
    ASSERT_THAT(ApplySetting(config, "listen", c.value), IsOk());
    EXPECT_EQ(config.http.host, c.host);
    EXPECT_EQ(config.http.port, c.port);
  }
}

TEST(ApplySettingTest, ListenRejectsMalformedAddresses) {
  for (const std::string value : {"nonsense", ":80", "host:99999", "host:65536",
                                  "localhost:", "[]:80", "[::1]", "host:80/x"}) {
    SCOPED_TRACE(value);
    ServerConfig config;
    const auto status = ApplySetting(config, "listen", value);
    EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
    EXPECT_THAT(status, HasErrorMessageThat(StartsWith("listen: expected HOST:PORT")));
    EXPECT_THAT(status, HasErrorMessage(value));
  }
}

TEST(ApplySettingTest, StoreTakesSqliteAndPostgresUrisAndRefusesOthers) {
  ServerConfig config;
  EXPECT_THAT(ApplySetting(config, "store", "postgresql://cairn@db:5432/cairn"), IsOk());
  EXPECT_THAT(ApplySetting(config, "store", "postgres://db/cairn"), IsOk());
  EXPECT_THAT(ApplySetting(config, "store", "sqlite:/x/cairn.db"), IsOk());
  EXPECT_THAT(ApplySetting(config, "store", "mysql://db/cairn"),
              HasErrorMessage("expected sqlite:PATH or postgresql://"));
}

TEST(ApplySettingTest, RefusedStoreUriDoesNotEchoItsPassword) {
  ServerConfig config;
  auto refused = ApplySetting(config, "store", "postgresq://cairn:secret@db/cairn");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message.find("secret"), std::string::npos)
      << refused.error().message;
}

TEST(RedactedPostgresUriTest, HidesPasswordsInTheAuthorityAndParameters) {
  EXPECT_EQ(RedactedPostgresUri("postgresql://cairn:s3cret@db:5432/cat"),
            "postgresql://cairn:***@db:5432/cat");
  EXPECT_EQ(
      RedactedPostgresUri("postgresql://cairn@db/cat?password=s3cret&sslmode=require"),
      "postgresql://cairn@db/cat?password=***&sslmode=require");
  EXPECT_EQ(RedactedPostgresUri("postgresql://cairn@db/cat"),
            "postgresql://cairn@db/cat");
}

TEST(ApplySettingTest, LaterValueOverridesEarlierOne) {
  ServerConfig config;
  ASSERT_THAT(ApplySetting(config, "log-level", "warn"), IsOk());
  ASSERT_THAT(ApplySetting(config, "log-level", "error"), IsOk());
  EXPECT_EQ(config.log_level, "error");
}

// ---------------------------------------------------------------------------------------
// Config files

class ConfigFileTest : public ::testing::Test {
 protected:
  std::string WriteFile(const std::string& name, const std::string& text) {
    std::string path = dir_.File(name);
    std::ofstream out(path, std::ios::binary);
    out << text;
    return path;
  }

  ScopedTempDir dir_{"cairn-config"};
  ServerConfig config_;
};

TEST_F(ConfigFileTest, AppliesStringAndIntegerSettings) {
  const auto path = WriteFile("good.toml", R"(# a comment
listen = "127.0.0.1:0"
max-body-bytes = 1024
log-level = "warn"
worker-threads = 2
sqlite-busy-timeout-ms = 0
data-dir = "/var/lib/cairn"
)");
  ASSERT_THAT(ApplyConfigFile(config_, path), IsOk());
  EXPECT_EQ(config_.http.host, "127.0.0.1");
  EXPECT_EQ(config_.http.port, 0);
  EXPECT_EQ(config_.http.max_body_bytes, 1024u);
  EXPECT_EQ(config_.log_level, "warn");
  EXPECT_EQ(config_.worker_threads_setting, 2u);
  EXPECT_EQ(config_.sqlite.busy_timeout_ms, 0);
  EXPECT_EQ(config_.data_dir, "/var/lib/cairn");
}

TEST_F(ConfigFileTest, EmptyFileChangesNothing) {
  const auto path = WriteFile("empty.toml", "");
  ASSERT_THAT(ApplyConfigFile(config_, path), IsOk());
  EXPECT_EQ(config_.http.port, ServerConfig{}.http.port);
  EXPECT_EQ(config_.data_dir, ServerConfig{}.data_dir);
}

TEST_F(ConfigFileTest, UnknownKeyIsNamed) {
  const auto path =
      WriteFile("unknown.toml", "listen = \"127.0.0.1:0\"\nbogus-key = 1\n");
  const auto status = ApplyConfigFile(config_, path);
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessageThat(StartsWith("bogus-key: unknown setting")));
}

TEST_F(ConfigFileTest, InvalidValueNamesTheSetting) {
  struct Case {
    std::string text;
    std::string key;
  };
  for (const auto& c : std::vector<Case>{
           {"max-body-bytes = \"x\"\n", "max-body-bytes"},
           {"max-body-bytes = -5\n", "max-body-bytes"},
           {"max-body-bytes = 1.5\n", "max-body-bytes"},
           {"worker-threads = true\n", "worker-threads"},
           {"log-level = true\n", "log-level"},
           {"listen = [\"127.0.0.1:0\"]\n", "listen"},
           {"listen = { host = \"x\" }\n", "listen"},
           {"[listen]\nhost = \"x\"\n", "listen"},
           {"io-threads = 1979-05-27\n", "io-threads"},
       }) {
    SCOPED_TRACE(c.text);
    const auto path = WriteFile("bad.toml", c.text);
    const auto status = ApplyConfigFile(config_, path);
    EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
    EXPECT_THAT(status, HasErrorMessageThat(StartsWith(c.key + ": ")));
  }
}

TEST_F(ConfigFileTest, NonScalarValueMessageNamesTheFile) {
  const auto path = WriteFile("array.toml", "listen = [1, 2]\n");
  EXPECT_THAT(ApplyConfigFile(config_, path), HasErrorMessage(path));
}

TEST_F(ConfigFileTest, SyntaxErrorNamesTheFileAndLine) {
  const auto path = WriteFile("syntax.toml", "listen = \"127.0.0.1:0\"\nlog-level = \n");
  const auto status = ApplyConfigFile(config_, path);
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessage(path + ":2:"));
}

TEST_F(ConfigFileTest, SyntaxErrorOnLaterLineReportsThatLine) {
  const auto path = WriteFile(
      "syntax4.toml", "# one\n# two\nlog-level = \"info\"\nlisten = 127.0.0.1:0\n");
  EXPECT_THAT(ApplyConfigFile(config_, path), HasErrorMessage(path + ":4:"));
}

TEST_F(ConfigFileTest, MissingFileIsInvalidConfigNamingIt) {
  const std::string path = dir_.File("does-not-exist.toml");
  const auto status = ApplyConfigFile(config_, path);
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessage("does-not-exist.toml"));
}

// ---------------------------------------------------------------------------------------
// FinalizeConfig

class FinalizeConfigTest : public ::testing::Test {
 protected:
  ScopedTempDir dir_{"cairn-finalize"};
  ServerConfig config_;
};

/// Changes the working directory for the scope of the object.
class ScopedCurrentPath {
 public:
  explicit ScopedCurrentPath(const fs::path& path) : saved_(fs::current_path()) {
    fs::current_path(path);
  }
  ~ScopedCurrentPath() {
    std::error_code ec;
    fs::current_path(saved_, ec);
  }
  ScopedCurrentPath(const ScopedCurrentPath&) = delete;
  ScopedCurrentPath& operator=(const ScopedCurrentPath&) = delete;

 private:
  fs::path saved_;
};

TEST_F(FinalizeConfigTest, CreatesWarehouseAndDerivesStorePathAndWarehouseRoot) {
  const fs::path data = dir_.path() / "data";
  config_.data_dir = data.string();
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_EQ(config_.data_dir, data.lexically_normal().string());
  EXPECT_TRUE(fs::is_directory(data / "warehouse"));
  EXPECT_EQ(config_.sqlite.path, (data / "cairn.db").lexically_normal().string());
  EXPECT_EQ(config_.warehouse_root,
            "file://" + (data / "warehouse").lexically_normal().generic_string());
  EXPECT_THAT(config_.warehouse_root, StartsWith("file:///"));
}

TEST_F(FinalizeConfigTest, AllowedLocationsDefaultToTheWarehouseRoot) {
  config_.data_dir = dir_.File("data");
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_THAT(config_.allowed_locations, ElementsAre(config_.warehouse_root));
}

TEST_F(FinalizeConfigTest, AllowedLocationsAreCanonicalAndMustCoverTheWarehouse) {
  config_.data_dir = dir_.File("data");
  config_.allowed_locations_setting = dir_.File("data") + "//, /srv/extra/./x/..";
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_THAT(config_.allowed_locations,
              ElementsAre("file://" + dir_.File("data"), "file:///srv/extra"));

  config_.allowed_locations_setting = "/srv/elsewhere";
  EXPECT_THAT(FinalizeConfig(config_),
              HasErrorMessage("allowed-locations: the warehouse"));
  config_.allowed_locations_setting = "relative\n";
  EXPECT_THAT(FinalizeConfig(config_), IsError(ErrorKind::kInvalidConfig));
}

TEST(ConfigFileListTest, AllowedLocationsMayBeATomlList) {
  ScopedTempDir dir{"cairn-config-list"};
  const std::string path = dir.File("cairn.toml");
  std::ofstream(path) << "allowed-locations = [\"/srv/a\", \"/srv/b\"]\n";
  ServerConfig config;
  ASSERT_THAT(ApplyConfigFile(config, path), IsOk());
  EXPECT_EQ(config.allowed_locations_setting, "/srv/a,/srv/b");
}

TEST_F(FinalizeConfigTest, PostgresStoreTakesItsPasswordFromAnEnvironmentVariable) {
  config_.data_dir = (dir_.path() / "data").string();
  ASSERT_THAT(ApplySetting(config_, "store", "postgresql://cairn@db/cat"), IsOk());
  ASSERT_THAT(ApplySetting(config_, "store-password-env", "CAIRN_TEST_CONFIG_PASSWORD"),
              IsOk());
  ::setenv("CAIRN_TEST_CONFIG_PASSWORD", "from-env", 1);
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  ::unsetenv("CAIRN_TEST_CONFIG_PASSWORD");
  EXPECT_EQ(config_.postgres.uri, "postgresql://cairn@db/cat");
  EXPECT_EQ(config_.postgres.password, "from-env");
}

TEST_F(FinalizeConfigTest, MissingPasswordVariableIsNamed) {
  config_.data_dir = (dir_.path() / "data").string();
  ASSERT_THAT(ApplySetting(config_, "store", "postgresql://cairn@db/cat"), IsOk());
  ASSERT_THAT(ApplySetting(config_, "store-password-env", "CAIRN_TEST_UNSET_VARIABLE"),
              IsOk());
  EXPECT_THAT(
      FinalizeConfig(config_),
      HasErrorMessage("environment variable CAIRN_TEST_UNSET_VARIABLE is not set"));
}

TEST_F(FinalizeConfigTest, PostgresStoreTakesItsPasswordFromTheFirstLineOfAFile) {
  config_.data_dir = (dir_.path() / "data").string();
  const std::string file = dir_.File("password");
  std::ofstream(file) << "from-file\nignored\n";
  ASSERT_THAT(ApplySetting(config_, "store", "postgresql://cairn@db/cat"), IsOk());
  ASSERT_THAT(ApplySetting(config_, "store-password-file", file), IsOk());
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_EQ(config_.postgres.password, "from-file");
}

TEST_F(FinalizeConfigTest, APasswordFileIsReadWithABoundAndMustNotBeEmpty) {
  config_.data_dir = (dir_.path() / "data").string();
  const std::string large = dir_.File("large");
  std::ofstream(large) << std::string(5000, 'x');
  ASSERT_THAT(ApplySetting(config_, "store", "postgresql://cairn@db/cat"), IsOk());
  ASSERT_THAT(ApplySetting(config_, "store-password-file", large), IsOk());
  EXPECT_THAT(FinalizeConfig(config_), HasErrorMessage("is larger than 4096 bytes"));
  const std::string empty = dir_.File("empty");
  std::ofstream(empty) << "\nsecond line\n";
  ASSERT_THAT(ApplySetting(config_, "store-password-file", empty), IsOk());
  EXPECT_THAT(FinalizeConfig(config_), HasErrorMessage("is empty"));
}

TEST_F(FinalizeConfigTest, PasswordSettingsNeedAPostgresStore) {
  config_.data_dir = (dir_.path() / "data").string();
  ASSERT_THAT(ApplySetting(config_, "store-password-env", "X"), IsOk());
  EXPECT_THAT(FinalizeConfig(config_), HasErrorMessage("only for a postgresql:// store"));
}

TEST_F(FinalizeConfigTest, WorkerThreadsAreFourUnlessGiven) {
  config_.data_dir = (dir_.path() / "data").string();
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_EQ(config_.http.worker_threads, kDefaultWorkerThreads);
  EXPECT_EQ(kDefaultWorkerThreads, 4u);
  ASSERT_THAT(ApplySetting(config_, "worker-threads", "3"), IsOk());
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_EQ(config_.http.worker_threads, 3u);
}

TEST_F(FinalizeConfigTest, PoolSizeDefaultsToTwoPerWorkerThreadAndOnePerIoThread) {
  config_.data_dir = (dir_.path() / "data").string();
  ASSERT_THAT(ApplySetting(config_, "worker-threads", "3"), IsOk());
  ASSERT_THAT(ApplySetting(config_, "io-threads", "2"), IsOk());
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_EQ(config_.sqlite.pool_size, 8u);
  EXPECT_TRUE(config_.http.inline_fast_paths);
  ASSERT_THAT(ApplySetting(config_, "store-pool-size", "5"), IsOk());
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_EQ(config_.postgres.pool_size, 5u);
  // Five connections could all be held by three workers: the I/O threads must not wait.
  EXPECT_FALSE(config_.http.inline_fast_paths);
}

TEST_F(FinalizeConfigTest, FastPathsStayOffThePostgresStore) {
  config_.data_dir = (dir_.path() / "data").string();
  ASSERT_THAT(ApplySetting(config_, "store", "postgresql://cairn@127.0.0.1:5432/db"),
              IsOk());
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_FALSE(config_.http.inline_fast_paths);
}

TEST_F(FinalizeConfigTest, IoThreadsDefaultToOnePerCoreUpToFour) {
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_EQ(ServerConfig{}.http.io_threads, std::min<size_t>(cores, 4));
}

TEST_F(FinalizeConfigTest, MakesRelativeDataDirAbsolute) {
  ScopedCurrentPath cwd(dir_.path());
  config_.data_dir = "./rel/cairn-data";
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  const fs::path expected = fs::current_path() / "rel" / "cairn-data";
  EXPECT_TRUE(fs::path(config_.data_dir).is_absolute());
  EXPECT_EQ(config_.data_dir, expected.string());
  EXPECT_TRUE(fs::is_directory(expected / "warehouse"));
  EXPECT_EQ(config_.sqlite.path, (expected / "cairn.db").string());
  EXPECT_EQ(config_.warehouse_root,
            "file://" + (expected / "warehouse").generic_string());
}

TEST_F(FinalizeConfigTest, NormalisesDotDotAndTrailingSlash) {
  config_.data_dir = (dir_.path() / "a" / ".." / "b").string() + "/";
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  const fs::path expected = (dir_.path() / "b").lexically_normal();
  EXPECT_EQ(config_.data_dir, expected.string());
  EXPECT_EQ(config_.sqlite.path, (expected / "cairn.db").string());
  EXPECT_EQ(config_.warehouse_root,
            "file://" + (expected / "warehouse").generic_string());
  EXPECT_TRUE(fs::is_directory(expected / "warehouse"));
}

TEST_F(FinalizeConfigTest, ExplicitStoreOverridesDefaultPathAndIsMadeAbsolute) {
  ScopedCurrentPath cwd(dir_.path());
  config_.data_dir = "data";
  ASSERT_THAT(ApplySetting(config_, "store", "sqlite:meta/cairn.sqlite"), IsOk());
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_EQ(config_.sqlite.path, (fs::current_path() / "meta" / "cairn.sqlite").string());
}

TEST_F(FinalizeConfigTest, InMemoryStoreStaysInMemory) {
  config_.data_dir = dir_.File("data");
  ASSERT_THAT(ApplySetting(config_, "store", "sqlite::memory:"), IsOk());
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_EQ(config_.sqlite.path, ":memory:");
}

TEST_F(FinalizeConfigTest, IsIdempotent) {
  config_.data_dir = dir_.File("data");
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  const ServerConfig first = config_;
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_EQ(config_.data_dir, first.data_dir);
  EXPECT_EQ(config_.sqlite.path, first.sqlite.path);
  EXPECT_EQ(config_.warehouse_root, first.warehouse_root);
}

TEST_F(FinalizeConfigTest, TlsFilesComeAsAPair) {
  config_.data_dir = dir_.File("data");
  ASSERT_THAT(ApplySetting(config_, "tls-cert-file", "/etc/cairn/chain.pem"), IsOk());
  EXPECT_THAT(FinalizeConfig(config_),
              HasErrorMessageThat(StartsWith(
                  "tls-cert-file: set tls-cert-file and tls-key-file together")));
  config_.http.tls = TlsOptions{};
  ASSERT_THAT(ApplySetting(config_, "tls-key-file", "/etc/cairn/key.pem"), IsOk());
  EXPECT_THAT(FinalizeConfig(config_),
              HasErrorMessageThat(StartsWith("tls-key-file: set tls-cert-file")));
}

TEST_F(FinalizeConfigTest, TlsMinVersionNeedsTheTlsFiles) {
  config_.data_dir = dir_.File("data");
  ASSERT_THAT(ApplySetting(config_, "tls-min-version", "1.3"), IsOk());
  EXPECT_THAT(
      FinalizeConfig(config_),
      HasErrorMessageThat(StartsWith("tls-min-version: only with tls-cert-file")));
}

TEST_F(FinalizeConfigTest, TlsFilesAreMadeAbsoluteAndLeftUnread) {
  config_.data_dir = dir_.File("data");
  const ScopedCurrentPath cd(dir_.path());
  ASSERT_THAT(ApplySetting(config_, "tls-cert-file", "tls/../tls/chain.pem"), IsOk());
  ASSERT_THAT(ApplySetting(config_, "tls-key-file", "tls/key.pem"), IsOk());
  ASSERT_THAT(ApplySetting(config_, "tls-min-version", "1.3"), IsOk());
  // The files are read by HttpServer::Listen (and again on every reload), not here.
  ASSERT_THAT(FinalizeConfig(config_), IsOk());
  EXPECT_EQ(config_.http.tls.cert_file, (dir_.path() / "tls/chain.pem").string());
  EXPECT_EQ(config_.http.tls.key_file, (dir_.path() / "tls/key.pem").string());
  EXPECT_EQ(config_.http.tls.min_version, TlsVersion::kTls13);
  EXPECT_TRUE(config_.http.tls.enabled());
}

TEST_F(FinalizeConfigTest, DataDirThatIsAFileIsInvalidConfigNamingDataDir) {
  const std::string file = dir_.File("plain-file");
  std::ofstream(file) << "x";
  config_.data_dir = file;
  const auto status = FinalizeConfig(config_);
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessageThat(StartsWith("data-dir: ")));
  EXPECT_THAT(status, HasErrorMessage(file));
}

// ---------------------------------------------------------------------------
// Security settings

TEST(AuthConfigTest, WithoutAuthenticationOnlyOnLoopbackUnlessTheOperatorInsists) {
  for (const std::string host : {"127.0.0.1", "127.1.2.3", "::1", "localhost"}) {
    EXPECT_THAT(FinalizeAuth(AuthConfig{}, host), IsOk()) << host;
  }
  for (const std::string host : {"0.0.0.0", "::", "10.0.0.5", "cairn.example"}) {
    auto refused = FinalizeAuth(AuthConfig{}, host);
    ASSERT_THAT(refused, IsError(ErrorKind::kInvalidConfig)) << host;
    EXPECT_THAT(refused.error().message, HasSubstr("insecure-no-authentication"));
  }
  ServerConfig insecure;
  ASSERT_THAT(ApplySetting(insecure, "insecure-no-authentication", "true"), IsOk());
  EXPECT_THAT(FinalizeAuth(insecure.auth, "0.0.0.0"), IsOk());
  ServerConfig secured;
  ASSERT_THAT(ApplySetting(secured, "auth", "on"), IsOk());
  EXPECT_THAT(FinalizeAuth(secured.auth, "0.0.0.0"), IsOk());
}

TEST(AuthConfigTest, SettingsAreParsedAndChecked) {
  ServerConfig config;
  EXPECT_THAT(ApplySetting(config, "auth", "maybe"), IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(ApplySetting(config, "insecure-no-authentication", "yes"),
              IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(ApplySetting(config, "token-lifetime-s", "10"),
              IsError(ErrorKind::kInvalidConfig));
  ASSERT_THAT(ApplySetting(config, "token-lifetime-s", "600"), IsOk());
  EXPECT_EQ(config.auth.token_lifetime, std::chrono::seconds(600));
  EXPECT_THAT(ApplySetting(config, "oidc-algorithms", "HS256"),
              IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(ApplySetting(config, "oidc-algorithms", "none"),
              IsError(ErrorKind::kInvalidConfig));
  ASSERT_THAT(ApplySetting(config, "oidc-algorithms", "RS256,ES384"), IsOk());
  EXPECT_EQ(config.auth.oidc_algorithms, (std::vector<std::string>{"RS256", "ES384"}));

  ASSERT_THAT(ApplySetting(config, "auth", "on"), IsOk());
  ASSERT_THAT(ApplySetting(config, "oidc-issuer", "https://idp.example"), IsOk());
  EXPECT_THAT(FinalizeAuth(config.auth, "127.0.0.1"), IsError(ErrorKind::kInvalidConfig));
  ASSERT_THAT(ApplySetting(config, "oidc-audience", "cairn"), IsOk());
  ASSERT_THAT(ApplySetting(config, "oidc-jwks-url", "https://idp.example/jwks"), IsOk());
  EXPECT_THAT(FinalizeAuth(config.auth, "127.0.0.1"), IsOk());
  ASSERT_THAT(ApplySetting(config, "auth", "none"), IsOk());
  EXPECT_THAT(FinalizeAuth(config.auth, "127.0.0.1"), IsError(ErrorKind::kInvalidConfig));
}

}  // namespace
}  // namespace cairn
