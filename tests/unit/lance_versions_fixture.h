#pragma once

/// \file
/// \brief A `LanceService` over a SQLite file and the local file system, with a catalog
/// `mv` whose tables have managed versioning, and helpers that act as a Lance client
/// does: write a staging manifest under `<table>/_versions/<final name>-<uuid>` and ask
/// `LanceVersions` to commit it (REPORT §1.2: paths on the wire are object-store paths,
/// the absolute local path without its leading `/`).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "catalog/lance_service.h"
#include "catalog/lance_versions.h"
#include "common/location.h"
#include "io/file_io.h"
#include "lance/version_names.h"
#include "local_forwarding_file_io.h"
#include "matchers.h"
#include "store/meta_store.h"
#include "temp_dir.h"

namespace cairn::lance_versions_test {

namespace fs = std::filesystem;

/// A manifest `ValidateManifest` accepts: a length-prefixed message and the 16-byte
/// footer. `message` makes the bytes of different writers differ.
inline std::string ManifestBytes(const std::string& message) {
  std::string bytes;
  const auto put = [&bytes](uint64_t value, int width) {
    for (int i = 0; i < width; ++i)
      bytes.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  };
  put(message.size(), 4);
  bytes += message;
  put(0, 8);  // the message starts at offset 0
  put(0, 2);
  put(2, 2);
  return bytes + "LANC";
}

inline void WriteLocalFile(const fs::path& path, const std::string& contents) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << contents;
}

inline std::string ReadLocalFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// The object-store path of a local file: its absolute path without the leading `/`.
inline std::string ObjectPathOf(const fs::path& path) { return path.string().substr(1); }

/// The local `FileIO`, calling `after_write` (when set) after each successful
/// `WriteFileAtomic`: a test's way to act between two steps of a commit.
class HookedFileIO : public LocalForwardingFileIO {
 public:
  std::function<void(std::string_view location)> after_write;

  Status WriteFileAtomic(std::string_view location, std::string_view contents) override {
    auto written = LocalForwardingFileIO::WriteFileAtomic(location, contents);
    if (written && after_write) after_write(location);
    return written;
  }
};

class LanceVersionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store =
        OpenSqliteStore({.path = dir_.File("cairn.db"), .synchronous = "normal"});
    ASSERT_THAT(store, IsOk());
    store_ = std::move(*store);
    catalogs_ = std::make_unique<CatalogService>(
        *store_, CatalogSettings{.default_catalog = "default",
                                 .warehouse_root = FileUriOf(dir_.path().string()),
                                 .allowed_locations = {}});
    ASSERT_THAT(catalogs_->EnsureDefaultCatalog(), IsOk());
    lance_ = std::make_unique<LanceService>(
        *store_, *catalogs_, *io_,
        LanceSettings{.async_drop_files = 1000, .run_background_work = false});
    ASSERT_THAT(lance_->Start(), IsOk());
    ASSERT_THAT(lance_->CreateNamespace({"mv"}, LanceCreateMode::kCreate,
                                        {{"managed_versioning", "true"}}),
                IsOk());
    ASSERT_THAT(lance_->CreateNamespace({"mv", "ns"}, LanceCreateMode::kCreate, {}),
                IsOk());
    ASSERT_THAT(lance_->CreateNamespace({"default", "ns"}, LanceCreateMode::kCreate, {}),
                IsOk());
    root_ = Declare(table_id_);
  }

  void TearDown() override { lance_.reset(); }

  LanceVersions& versions() { return lance_->versions(); }

  /// Declares `id` at its default location; returns the dataset's local root.
  fs::path Declare(const LanceId& id, const Properties& properties = {}) {
    auto table = lance_->DeclareTable(id, std::nullopt, properties);
    EXPECT_THAT(table, IsOk()) << FormatLanceId(id);
    if (!table) return {};
    auto path = LocalPathOf(table->location);
    EXPECT_THAT(path, IsOk());
    return path ? fs::path(*path) : fs::path();
  }

  /// The local path of `file_name` in the manifests directory of `branch` of `root`.
  static fs::path VersionsFile(const fs::path& root, const std::string& file_name,
                               const std::string& branch = "") {
    return root / lance::VersionsDirOf(branch) / file_name;
  }

  static std::string FinalName(int64_t version,
                               lance::NamingScheme scheme = lance::NamingScheme::kV2) {
    return lance::ManifestFileName(static_cast<uint64_t>(version), scheme);
  }

  /// Writes a staging manifest of `version` holding `bytes` and returns the request that
  /// commits it, as LanceDB 0.39 sends it.
  LanceVersionRequest Staged(const LanceId& id, const fs::path& root, int64_t version,
                             const std::string& bytes, const std::string& uuid,
                             const std::string& branch = "") {
    const fs::path staging = VersionsFile(root, FinalName(version) + "-" + uuid, branch);
    WriteLocalFile(staging, bytes);
    LanceVersionRequest request;
    request.id = id;
    request.branch = branch;
    request.version = version;
    request.manifest_path = ObjectPathOf(staging);
    request.manifest_size = static_cast<int64_t>(bytes.size());
    request.e_tag = "\"etag-" + uuid + "\"";
    request.naming_scheme = "V2";
    return request;
  }

  /// Commits version `version` of the main table; returns its bytes.
  std::string Commit(int64_t version) {
    std::string bytes = ManifestBytes("v" + std::to_string(version));
    EXPECT_THAT(versions().CreateVersion(Staged(table_id_, root_, version, bytes,
                                                "u" + std::to_string(version))),
                IsOk());
    return bytes;
  }

  /// How many versions the store has recorded for the table's branch.
  size_t Recorded(const LanceId& id, const std::string& branch = "") {
    auto listed = versions().ListVersions(id, branch, {}, false);
    EXPECT_THAT(listed, IsOk());
    return listed ? listed->versions.size() : 0;
  }

  const LanceId table_id_{"mv", "ns", "t"};
  ScopedTempDir dir_{"lance-versions"};
  std::unique_ptr<MetaStore> store_;
  std::unique_ptr<CatalogService> catalogs_;
  std::unique_ptr<HookedFileIO> io_ = std::make_unique<HookedFileIO>();
  std::unique_ptr<LanceService> lance_;
  fs::path root_;  ///< the local root of `table_id_`'s dataset
};

}  // namespace cairn::lance_versions_test
