// The [storage.*] and [catalog.*] tables of the configuration file, and their checks.

#include "app/storage_config.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <utility>

#include "app/secret_file.h"
#include "app/storage_config_toml.h"
#include "catalog/location_policy.h"
#include "catalog/names.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/s3_location.h"

namespace cairn {
namespace {

/// A key file holds one key: anything longer is not one.
/// STS accepts 900 s to 12 h (the role's maximum may be lower).
constexpr int64_t kMinStsSeconds = 900;
constexpr int64_t kMaxStsSeconds = 43200;
constexpr int64_t kMaxTimeoutMs = 600'000;

/// Where a value came from, for messages: `storage.lake.region`.
std::string Where(std::string_view table, std::string_view name, std::string_view key) {
  return fmt::format("{}.{}.{}", table, name, key);
}

Result<std::string> StringOf(const toml::node& node, const std::string& where) {
  const auto* value = node.as_string();
  if (value == nullptr) return InvalidConfig("{}: expected a string", where);
  return value->get();
}

Result<bool> BoolOf(const toml::node& node, const std::string& where) {
  const auto* value = node.as_boolean();
  if (value == nullptr) return InvalidConfig("{}: expected true or false", where);
  return value->get();
}

Result<int64_t> IntegerOf(const toml::node& node, const std::string& where, int64_t min,
                          int64_t max) {
  const auto* value = node.as_integer();
  if (value == nullptr || value->get() < min || value->get() > max) {
    return InvalidConfig("{}: expected an integer from {} to {}", where, min, max);
  }
  return value->get();
}

Result<std::vector<std::string>> StringsOf(const toml::node& node,
                                           const std::string& where) {
  if (const auto* single = node.as_string()) return std::vector{single->get()};
  const auto* list = node.as_array();
  if (list == nullptr) return InvalidConfig("{}: expected a list of strings", where);
  std::vector<std::string> out;
  for (const auto& item : *list) {
    const auto* text = item.as_string();
    if (text == nullptr) return InvalidConfig("{}: expected a list of strings", where);
    out.push_back(text->get());
  }
  return out;
}

Result<CredentialVending> VendingOf(std::string_view text, const std::string& where) {
  if (text == "none") return CredentialVending::kNone;
  if (text == "sts") return CredentialVending::kSts;
  if (text == "static") return CredentialVending::kStatic;
  return InvalidConfig("{}: expected none, sts or static, got '{}'", where,
                       ShortLocation(text));
}

using StorageKey =
    std::function<Status(StorageConfig&, const toml::node&, const std::string& where)>;

/// Stores a string into a field of the storage.
StorageKey Text(std::string StorageConfig::*field) {
  return [field](StorageConfig& s, const toml::node& node,
                 const std::string& where) -> Status {
    CAIRN_ASSIGN_OR_RAISE(s.*field, StringOf(node, where));
    return Ok();
  };
}

StorageKey Millis(std::chrono::milliseconds S3ClientOptions::*field) {
  return [field](StorageConfig& s, const toml::node& node,
                 const std::string& where) -> Status {
    CAIRN_ASSIGN_OR_RAISE(int64_t ms, IntegerOf(node, where, 1, kMaxTimeoutMs));
    s.client.*field = std::chrono::milliseconds(ms);
    return Ok();
  };
}

const std::map<std::string, StorageKey, std::less<>>& StorageKeys() {
  static const std::map<std::string, StorageKey, std::less<>> kKeys = {
      {"endpoint",
       [](StorageConfig& s, const toml::node& node, const std::string& where) -> Status {
         CAIRN_ASSIGN_OR_RAISE(s.client.endpoint, StringOf(node, where));
         return Ok();
       }},
      {"region",
       [](StorageConfig& s, const toml::node& node, const std::string& where) -> Status {
         CAIRN_ASSIGN_OR_RAISE(s.client.region, StringOf(node, where));
         return Ok();
       }},
      {"path-style-access",
       [](StorageConfig& s, const toml::node& node, const std::string& where) -> Status {
         CAIRN_ASSIGN_OR_RAISE(s.client.path_style, BoolOf(node, where));
         return Ok();
       }},
      {"access-key-id-env", Text(&StorageConfig::access_key_id_env)},
      {"access-key-id-file", Text(&StorageConfig::access_key_id_file)},
      {"secret-access-key-env", Text(&StorageConfig::secret_access_key_env)},
      {"secret-access-key-file", Text(&StorageConfig::secret_access_key_file)},
      {"locations",
       [](StorageConfig& s, const toml::node& node, const std::string& where) -> Status {
         CAIRN_ASSIGN_OR_RAISE(s.locations, StringsOf(node, where));
         return Ok();
       }},
      {"credential-vending",
       [](StorageConfig& s, const toml::node& node, const std::string& where) -> Status {
         CAIRN_ASSIGN_OR_RAISE(auto text, StringOf(node, where));
         CAIRN_ASSIGN_OR_RAISE(s.vending, VendingOf(text, where));
         return Ok();
       }},
      {"sts-role-arn", Text(&StorageConfig::sts_role_arn)},
      {"remote-signing",
       [](StorageConfig& s, const toml::node& node, const std::string& where) -> Status {
         CAIRN_ASSIGN_OR_RAISE(s.remote_signing, BoolOf(node, where));
         return Ok();
       }},
      {"sts-endpoint", Text(&StorageConfig::sts_endpoint)},
      {"sts-duration-seconds",
       [](StorageConfig& s, const toml::node& node, const std::string& where) -> Status {
         CAIRN_ASSIGN_OR_RAISE(int64_t seconds,
                               IntegerOf(node, where, kMinStsSeconds, kMaxStsSeconds));
         s.sts_duration = std::chrono::seconds(seconds);
         return Ok();
       }},
      {"connect-timeout-ms", Millis(&S3ClientOptions::connect_timeout)},
      {"request-timeout-ms", Millis(&S3ClientOptions::request_timeout)},
      {"max-retries",
       [](StorageConfig& s, const toml::node& node, const std::string& where) -> Status {
         CAIRN_ASSIGN_OR_RAISE(int64_t retries, IntegerOf(node, where, 0, 10));
         s.client.max_retries = static_cast<int>(retries);
         return Ok();
       }},
  };
  return kKeys;
}

/// A name as the tables of the file use it: what a catalog name may be.
Status CheckTableName(std::string_view table, std::string_view name) {
  if (auto valid = ValidateCatalogName(name); !valid) {
    return InvalidConfig("{}.{}: {}", table, ShortLocation(name), valid.error().message);
  }
  return Ok();
}

Status ParseStorage(std::string_view name, const toml::table& table, StorageConfig& s) {
  s.name = std::string(name);
  // A commit waits for its metadata write: at most (retries + 1) x timeout, well inside
  // the 30 s engines wait for an answer by default.
  s.client.request_timeout = std::chrono::milliseconds(10000);
  s.client.max_retries = 2;
  for (const auto& [key, node] : table) {
    const std::string where = Where("storage", name, key.str());
    const auto& keys = StorageKeys();
    const auto found = keys.find(key.str());
    if (found == keys.end()) return InvalidConfig("{}: unknown setting", where);
    CAIRN_RETURN_IF_ERROR(found->second(s, node, where));
  }
  return Ok();
}

Status ParseCatalog(std::string_view name, const toml::table& table, DeclaredCatalog& c) {
  c.name = std::string(name);
  for (const auto& [key, node] : table) {
    const std::string where = Where("catalog", name, key.str());
    if (key.str() == "warehouse") {
      CAIRN_ASSIGN_OR_RAISE(c.warehouse, StringOf(node, where));
    } else if (key.str() == kAllowedLocationsProperty) {
      CAIRN_ASSIGN_OR_RAISE(auto list, StringsOf(node, where));
      c.properties[std::string(kAllowedLocationsProperty)] =
          fmt::format("{}", fmt::join(list, ","));
    } else if (key.str() == "properties" && node.is_table()) {
      for (const auto& [property, value] : *node.as_table()) {
        CAIRN_ASSIGN_OR_RAISE(c.properties[std::string(property.str())],
                              StringOf(value, where + "." + std::string(property.str())));
      }
    } else {
      return InvalidConfig("{}: unknown setting", where);
    }
  }
  if (c.warehouse.empty()) {
    return InvalidConfig("{}: a declared catalog needs its warehouse",
                         Where("catalog", name, "warehouse"));
  }
  return Ok();
}

/// A secret from the environment variable `env` or the first line of `file`.
Result<std::string> ReadSecret(const StorageConfig& s, std::string_view what,
                               const std::string& env, const std::string& file) {
  const std::string where = Where("storage", s.name, what);
  if (env.empty() == file.empty()) {
    return InvalidConfig("{}-env or {}-file: set exactly one", where, what);
  }
  std::string value;
  if (!env.empty()) {
    const char* from_env = std::getenv(env.c_str());
    if (from_env == nullptr || *from_env == '\0') {
      return InvalidConfig("{}-env: environment variable {} is not set", where, env);
    }
    value = from_env;
  } else {
    auto read = ReadSecretFile(file);
    if (!read) return InvalidConfig("{}-file: {}", where, read.error().message);
    value = std::move(*read);
  }
  return value;
}

Status FinalizeStorage(StorageConfig& s) {
  if (s.locations.empty()) {
    return InvalidConfig("{}: a storage needs at least one location",
                         Where("storage", s.name, "locations"));
  }
  for (auto& location : s.locations) {
    auto canonical = IsS3Location(location)
                         ? CanonicalLocation(location)
                         : Result<std::string>(BadRequest("{} is not an s3:// location",
                                                          ShortLocation(location)));
    if (!canonical) {
      return InvalidConfig("{}: {}", Where("storage", s.name, "locations"),
                           canonical.error().message);
    }
    location = std::move(*canonical);
  }
  CAIRN_ASSIGN_OR_RAISE(
      s.client.credentials.access_key_id,
      ReadSecret(s, "access-key-id", s.access_key_id_env, s.access_key_id_file));
  CAIRN_ASSIGN_OR_RAISE(s.client.credentials.secret_access_key,
                        ReadSecret(s, "secret-access-key", s.secret_access_key_env,
                                   s.secret_access_key_file));
  if (s.vending == CredentialVending::kSts && s.sts_role_arn.empty()) {
    return InvalidConfig("{}: credential-vending = \"sts\" needs the role to assume",
                         Where("storage", s.name, "sts-role-arn"));
  }
  return Ok();
}

Status CheckNoSharedLocation(const std::vector<StorageConfig>& storages) {
  for (size_t i = 0; i < storages.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      for (const auto& a : storages[i].locations) {
        for (const auto& b : storages[j].locations) {
          if (LocationsOverlap(a, b)) {
            return InvalidConfig("storage.{} and storage.{}: both serve {}",
                                 storages[j].name, storages[i].name, ShortLocation(a));
          }
        }
      }
    }
  }
  return Ok();
}

}  // namespace

Status ParseStorageTables(const toml::table& storages, std::vector<StorageConfig>& out) {
  for (const auto& [name, node] : storages) {
    CAIRN_RETURN_IF_ERROR(CheckTableName("storage", name.str()));
    if (!node.is_table()) {
      return InvalidConfig("storage.{}: expected a table ([storage.{}])", name.str(),
                           name.str());
    }
    StorageConfig storage;
    CAIRN_RETURN_IF_ERROR(ParseStorage(name.str(), *node.as_table(), storage));
    out.push_back(std::move(storage));
  }
  return Ok();
}

Status ParseCatalogTables(const toml::table& catalogs,
                          std::vector<DeclaredCatalog>& out) {
  for (const auto& [name, node] : catalogs) {
    CAIRN_RETURN_IF_ERROR(CheckTableName("catalog", name.str()));
    if (!node.is_table()) {
      return InvalidConfig("catalog.{}: expected a table ([catalog.{}])", name.str(),
                           name.str());
    }
    DeclaredCatalog catalog;
    CAIRN_RETURN_IF_ERROR(ParseCatalog(name.str(), *node.as_table(), catalog));
    out.push_back(std::move(catalog));
  }
  return Ok();
}

Status FinalizeStorages(std::vector<StorageConfig>& storages,
                        std::vector<DeclaredCatalog>& catalogs,
                        std::vector<std::string>& allowed_locations) {
  for (auto& storage : storages) CAIRN_RETURN_IF_ERROR(FinalizeStorage(storage));
  CAIRN_RETURN_IF_ERROR(CheckNoSharedLocation(storages));
  for (const auto& storage : storages) {
    for (const auto& location : storage.locations) {
      if (std::find(allowed_locations.begin(), allowed_locations.end(), location) ==
          allowed_locations.end()) {
        allowed_locations.push_back(location);
      }
    }
  }
  for (const auto& allowed : allowed_locations) {
    const bool served =
        !IsS3Location(allowed) ||
        std::any_of(storages.begin(), storages.end(), [&](const StorageConfig& storage) {
          return std::any_of(
              storage.locations.begin(), storage.locations.end(),
              [&](const std::string& root) { return LocationContains(root, allowed); });
        });
    if (!served) {
      return InvalidConfig("allowed-locations: no [storage.*] serves {}",
                           ShortLocation(allowed));
    }
  }
  for (auto& catalog : catalogs) {
    auto canonical = CanonicalLocation(catalog.warehouse);
    if (!canonical) {
      return InvalidConfig("{}: {}", Where("catalog", catalog.name, "warehouse"),
                           canonical.error().message);
    }
    catalog.warehouse = std::move(*canonical);
  }
  return Ok();
}

}  // namespace cairn
