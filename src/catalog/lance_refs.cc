// Tags and branches of Lance tables (see lance_refs.h).

#include "catalog/lance_refs.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include <spdlog/spdlog.h>

#include "catalog/lance_versions.h"
#include "common/location.h"
#include "common/macros.h"
#include "common/url_codec.h"
#include "lance/dataset.h"
#include "lance/refs_json.h"
#include "lance/version_names.h"

namespace cairn {
namespace {

/// Longest page token accepted (a name from a previous page).
constexpr size_t kMaxPageTokenBytes = 1024;

int64_t SystemNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// `relative` (a directory of the dataset, or a file below one) under the table's root.
std::string Under(const LanceTableInfo& table, std::string_view relative) {
  return StripTrailingSlashes(table.location) + "/" + std::string(relative);
}

/// A ref file's name as one segment of a location in the table's form: a `file:` URI is
/// percent-encoded, so a `%` of the name (a branch's `%2F`) is written `%25` there.
std::string NameSegment(const LanceTableInfo& table, std::string_view file_name) {
  if (LocationScheme(table.location) != "file") return std::string(file_name);
  std::string out;
  for (const char c : file_name) {
    if (c == '%') {
      out += "%25";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string TagLocation(const LanceTableInfo& table, std::string_view tag) {
  return Under(table, lance::kTagsDir) + "/" +
         NameSegment(table, lance::TagFileName(tag));
}

/// A ref file of a table: the ref's name, and the file's path below its directory as
/// it lies in storage.
struct RefFile {
  std::string name;
  std::string relative;
};

/// The valid ref files below the table's `dir` (`name_of` tells a ref's name from its
/// relative path), sorted by name.
Result<std::vector<RefFile>> ListRefFiles(
    FileIO& io, const LanceTableInfo& table, std::string_view dir,
    std::optional<std::string> (*name_of)(std::string_view)) {
  const std::string base = Under(table, dir);
  CAIRN_ASSIGN_OR_RAISE(auto files, ListAll(io, base, kMaxLanceRefFiles));
  const bool uri = LocationScheme(table.location) == "file";
  std::vector<RefFile> out;
  for (const std::string& file : files) {
    if (IsTempFileName(file) || !file.starts_with(base + "/")) continue;
    std::string relative = file.substr(base.size() + 1);
    // A `file:` listing is percent-encoded once more than the names in storage.
    if (uri) {
      auto decoded = PercentDecode(relative);
      if (!decoded) continue;
      relative = std::move(*decoded);
    }
    if (auto name = name_of(relative))
      out.push_back({std::move(*name), std::move(relative)});
  }
  std::sort(out.begin(), out.end(),
            [](const RefFile& a, const RefFile& b) { return a.name < b.name; });
  return out;
}

/// The location of a listed ref file.
std::string LocationOf(const LanceTableInfo& table, std::string_view dir,
                       const RefFile& file) {
  return Under(table, dir) + "/" + NameSegment(table, file.relative);
}

/// The files of `files` (sorted by name) after `page.token`, at most a page of them, and
/// the next page's token when more follow.
Result<std::pair<std::vector<RefFile>, std::optional<std::string>>> PageOf(
    std::vector<RefFile> files, const PageRequest& page) {
  CAIRN_PRECHECK(page.token.size() <= kMaxPageTokenBytes, "Invalid page_token: too long");
  const size_t limit = std::min(page.page_size.value_or(kMaxPageSize), kMaxPageSize);
  CAIRN_PRECHECK(limit >= 1, "limit must be at least 1");
  auto first = files.begin();
  if (!page.token.empty()) {
    first = std::upper_bound(
        files.begin(), files.end(), page.token,
        [](const std::string& token, const RefFile& file) { return token < file.name; });
  }
  std::vector<RefFile> out;
  for (; first != files.end() && out.size() < limit; ++first) out.push_back(*first);
  std::optional<std::string> next;
  if (first != files.end()) next = out.back().name;
  return std::make_pair(std::move(out), std::move(next));
}

/// A ref file of the table that is not what Lance writes: storage holds something wrong.
Error NotARef(std::string_view what, std::string_view name, const LanceId& id,
              const Error& cause) {
  return Error{ErrorKind::kIOError,
               fmt::format("The file of {} '{}' of table {} is not a "
                           "Lance {}: {}",
                           what, name, FormatLanceId(id), what, cause.message)};
}

/// The text of the ref file at `location`, or nullopt when there is none.
Result<std::optional<std::string>> ReadRefFile(FileIO& io, const std::string& location) {
  auto text = io.ReadFileNoLinks(location);
  if (!text && text.error().kind == ErrorKind::kNotFound) {
    return std::optional<std::string>();
  }
  if (!text) return tl::unexpected(text.error());
  return std::optional<std::string>(std::move(*text));
}

/// The refs of `files` read with `parse`, for a listing: one deleted since it was listed
/// is left out, and so is one that is not what Lance writes or not a regular file
/// (logged: one damaged file should not hide the others).
template <class Contents>
Result<std::vector<std::pair<std::string, Contents>>> ReadListed(
    FileIO& io, const LanceTableInfo& table, std::string_view dir,
    std::vector<RefFile> files, Result<Contents> (*parse)(std::string_view),
    std::string_view what) {
  std::vector<std::pair<std::string, Contents>> out;
  for (RefFile& file : files) {
    auto text = ReadRefFile(io, LocationOf(table, dir, file));
    // Not a regular file, or larger than any ref: refused as a lookup refuses it.
    if (!text && text.error().kind == ErrorKind::kBadRequest) {
      spdlog::warn("Listing the {}s of {}: {}", what, FormatLanceId(table.id),
                   text.error().message);
      continue;
    }
    if (!text) return tl::unexpected(text.error());
    if (!*text) continue;
    auto contents = parse(**text);
    if (!contents) {
      spdlog::warn("Listing the {}s of {}: {}", what, FormatLanceId(table.id),
                   NotARef(what, file.name, table.id, contents.error()).message);
      continue;
    }
    out.emplace_back(std::move(file.name), std::move(*contents));
  }
  return out;
}

}  // namespace

LanceRefs::LanceRefs(LanceService& lance, FileIO& io, std::function<int64_t()> clock)
    : lance_(lance), io_(io), clock_(clock ? std::move(clock) : SystemNanos) {}

std::string LanceRefs::Now() const { return lance::FormatRfc3339Nanos(clock_()); }

Result<LanceTableInfo> LanceRefs::TableOf(const LanceId& id) {
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, lance_.DescribeTable(id));
  CAIRN_RETURN_IF_ERROR(CheckRefFormat(table));
  return table;
}

Status LanceRefs::CheckRefFormat(const LanceTableInfo& table) {
  CAIRN_ASSIGN_OR_RAISE(const FileListing catalog,
                        io_.List(Under(table, lance::kRefCatalogDir), 1));
  if (!catalog.files.empty()) {
    return Unsupported(
        "Table {} keeps its tags and branches in the reference catalog of newer Lance "
        "releases ({}/), which Cairn does not read",
        FormatLanceId(table.id), lance::kRefCatalogDir);
  }
  return Ok();
}

Result<uint64_t> LanceRefs::ManifestSize(const LanceTableInfo& table,
                                         const std::string& branch, int64_t version) {
  CAIRN_PRECHECK(version >= 0, "A table version cannot be negative ({})", version);
  const std::string dir = Under(table, lance::VersionsDirOf(branch));
  for (auto scheme : {lance::NamingScheme::kV2, lance::NamingScheme::kV1}) {
    const std::string location =
        dir + "/" + lance::ManifestFileName(static_cast<uint64_t>(version), scheme);
    auto bytes = io_.ReadFileNoLinks(location);
    if (!bytes && bytes.error().kind == ErrorKind::kNotFound) continue;
    if (!bytes) return tl::unexpected(bytes.error());
    if (auto valid = lance::ValidateManifest(*bytes); !valid) {
      return IOError("The manifest of version {} of table {} is damaged: {}", version,
                     FormatLanceId(table.id), valid.error().message);
    }
    return static_cast<uint64_t>(bytes->size());
  }
  return tl::unexpected(
      Error{ErrorKind::kNoSuchTableVersion,
            branch.empty() ? fmt::format("Version {} of table {} does not exist", version,
                                         FormatLanceId(table.id))
                           : fmt::format("Version {} of branch '{}' of table {} does "
                                         "not exist",
                                         version, branch, FormatLanceId(table.id))});
}

Result<LanceTagListing> LanceRefs::ListTags(const LanceId& id, const PageRequest& page) {
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, TableOf(id));
  CAIRN_ASSIGN_OR_RAISE(auto files,
                        ListRefFiles(io_, table, lance::kTagsDir, lance::TagOfFileName));
  CAIRN_ASSIGN_OR_RAISE(auto selected, PageOf(std::move(files), page));
  LanceTagListing listing;
  listing.next_page_token = std::move(selected.second);
  CAIRN_ASSIGN_OR_RAISE(listing.tags,
                        ReadListed(io_, table, lance::kTagsDir, std::move(selected.first),
                                   lance::ParseTagFile, "tag"));
  return listing;
}

Result<lance::TagContents> LanceRefs::GetTag(const LanceId& id, std::string_view tag) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateTagName(tag));
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, lance_.DescribeTable(id));
  return GetTag(table, tag);
}

Result<lance::TagContents> LanceRefs::GetTag(const LanceTableInfo& loaded,
                                             std::string_view tag) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateTagName(tag));
  CAIRN_RETURN_IF_ERROR(CheckRefFormat(loaded));
  CAIRN_ASSIGN_OR_RAISE(auto text, ReadRefFile(io_, TagLocation(loaded, tag)));
  if (!text) {
    return NoSuchTableTag("Tag '{}' of table {} does not exist", tag,
                          FormatLanceId(loaded.id));
  }
  auto contents = lance::ParseTagFile(*text);
  if (!contents) return tl::unexpected(NotARef("tag", tag, loaded.id, contents.error()));
  return contents;
}

Status LanceRefs::CreateTag(const LanceId& id, std::string_view tag,
                            const LanceTagTarget& target) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateTagName(tag));
  CAIRN_ASSIGN_OR_RAISE(std::string branch, lance::TagBranchOf(target.branch));
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, TableOf(id));
  lance::TagContents contents;
  contents.branch = branch;
  contents.version = static_cast<uint64_t>(target.version);
  CAIRN_ASSIGN_OR_RAISE(contents.manifest_size,
                        ManifestSize(table, branch, target.version));
  contents.created_at = Now();
  contents.updated_at = contents.created_at;
  auto written =
      io_.WriteFileAtomic(TagLocation(table, tag), lance::TagFileText(contents));
  if (!written && written.error().kind == ErrorKind::kAlreadyExists) {
    return TableTagAlreadyExists("Tag '{}' of table {} already exists", tag,
                                 FormatLanceId(id));
  }
  return written;
}

Status LanceRefs::UpdateTag(const LanceId& id, std::string_view tag,
                            const LanceTagTarget& target) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateTagName(tag));
  CAIRN_ASSIGN_OR_RAISE(std::string branch, lance::TagBranchOf(target.branch));
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, TableOf(id));
  const std::string location = TagLocation(table, tag);
  CAIRN_ASSIGN_OR_RAISE(auto existing, ReadRefFile(io_, location));
  if (!existing) {
    return NoSuchTableTag("Tag '{}' of table {} does not exist", tag, FormatLanceId(id));
  }
  CAIRN_ASSIGN_OR_RAISE(const uint64_t size, ManifestSize(table, branch, target.version));
  auto text = lance::RetargetTagFile(*existing, branch,
                                     static_cast<uint64_t>(target.version), size, Now());
  if (!text) return tl::unexpected(NotARef("tag", tag, id, text.error()));
  return io_.ReplaceFile(location, *text);
}

Status LanceRefs::DeleteTag(const LanceId& id, std::string_view tag) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateTagName(tag));
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, TableOf(id));
  const std::string location = TagLocation(table, tag);
  CAIRN_ASSIGN_OR_RAISE(const bool exists, io_.Exists(location));
  if (!exists) {
    return NoSuchTableTag("Tag '{}' of table {} does not exist", tag, FormatLanceId(id));
  }
  return io_.DeleteFile(location);
}

Result<LanceBranchListing> LanceRefs::ListBranches(const LanceId& id,
                                                   const PageRequest& page) {
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, TableOf(id));
  CAIRN_ASSIGN_OR_RAISE(
      auto files, ListRefFiles(io_, table, lance::kBranchesDir, lance::BranchOfFileName));
  CAIRN_ASSIGN_OR_RAISE(auto selected, PageOf(std::move(files), page));
  LanceBranchListing listing;
  listing.next_page_token = std::move(selected.second);
  CAIRN_ASSIGN_OR_RAISE(listing.branches, ReadListed(io_, table, lance::kBranchesDir,
                                                     std::move(selected.first),
                                                     lance::ParseBranchFile, "branch"));
  return listing;
}

Result<std::vector<LanceRefs::Branch>> LanceRefs::AllBranches(
    const LanceTableInfo& table) {
  CAIRN_ASSIGN_OR_RAISE(
      auto files, ListRefFiles(io_, table, lance::kBranchesDir, lance::BranchOfFileName));
  std::vector<Branch> out;
  for (RefFile& file : files) {
    std::string location = LocationOf(table, lance::kBranchesDir, file);
    CAIRN_ASSIGN_OR_RAISE(auto text, ReadRefFile(io_, location));
    if (!text) continue;
    // A branch Cairn cannot read may depend on the one being deleted: no guessing.
    auto contents = lance::ParseBranchFile(*text);
    if (!contents) {
      return tl::unexpected(NotARef("branch", file.name, table.id, contents.error()));
    }
    out.push_back({std::move(file.name), std::move(location), std::move(*contents)});
  }
  return out;
}

std::string LanceRefs::BranchLocation(const LanceTableInfo& table,
                                      std::string_view branch) {
  return Under(table, lance::kBranchesDir) + "/" +
         NameSegment(table, lance::BranchFileName(branch));
}

Result<std::vector<std::pair<uint64_t, std::string>>> LanceRefs::ParentLineage(
    const LanceTableInfo& table, std::string_view branch, const std::string& source) {
  // Two files read, whatever the number of branches.
  CAIRN_ASSIGN_OR_RAISE(auto taken, ReadRefFile(io_, BranchLocation(table, branch)));
  if (taken) {
    return TableBranchAlreadyExists("Branch '{}' of table {} already exists", branch,
                                    FormatLanceId(table.id));
  }
  if (source.empty()) return std::vector<std::pair<uint64_t, std::string>>();
  CAIRN_ASSIGN_OR_RAISE(auto text, ReadRefFile(io_, BranchLocation(table, source)));
  if (!text) {
    return NoSuchTableBranch("Branch '{}' of table {} does not exist", source,
                             FormatLanceId(table.id));
  }
  auto parent = lance::ParseBranchFile(*text);
  if (!parent) return tl::unexpected(NotARef("branch", source, table.id, parent.error()));
  if (parent->names_storage_layout) {
    return Unsupported(
        "Cairn does not create a branch from branch '{}' of table {}: its file names a "
        "storage layout of a newer Lance release",
        source, FormatLanceId(table.id));
  }
  return std::move(parent->lineage);
}

Result<std::vector<std::pair<std::string, lance::TagContents>>> LanceRefs::AllTags(
    const LanceTableInfo& table) {
  CAIRN_ASSIGN_OR_RAISE(auto files,
                        ListRefFiles(io_, table, lance::kTagsDir, lance::TagOfFileName));
  std::vector<std::pair<std::string, lance::TagContents>> out;
  for (RefFile& file : files) {
    CAIRN_ASSIGN_OR_RAISE(auto text,
                          ReadRefFile(io_, LocationOf(table, lance::kTagsDir, file)));
    if (!text) continue;
    auto contents = lance::ParseTagFile(*text);
    if (!contents) {
      return tl::unexpected(NotARef("tag", file.name, table.id, contents.error()));
    }
    out.emplace_back(std::move(file.name), std::move(*contents));
  }
  return out;
}

Status LanceRefs::DeleteBranch(const LanceId& id, std::string_view branch,
                               const WriteContext& write) {
  CAIRN_RETURN_IF_ERROR(lance::ValidateRefBranchName(branch));
  CAIRN_ASSIGN_OR_RAISE(LanceTableInfo table, TableOf(id));
  CAIRN_ASSIGN_OR_RAISE(auto branches, AllBranches(table));
  const auto self =
      std::find_if(branches.begin(), branches.end(),
                   [&](const Branch& entry) { return entry.name == branch; });
  if (self == branches.end()) {
    return NoSuchTableBranch("Branch '{}' of table {} does not exist", branch,
                             FormatLanceId(id));
  }
  if (self->contents.names_storage_layout) {
    return Unsupported(
        "Cairn does not delete branch '{}' of table {}: its file names a storage layout "
        "of a newer Lance release",
        branch, FormatLanceId(id));
  }
  std::vector<std::pair<std::string, lance::BranchContents>> lineages;
  std::vector<std::string> remaining;
  for (const Branch& entry : branches) {
    lineages.emplace_back(entry.name, entry.contents);
    if (entry.name != branch) remaining.push_back(entry.name);
  }
  const auto children = lance::BranchesCreatedFrom(branch, lineages);
  if (!children.empty()) {
    return InvalidTableState(
        "Branch '{}' of table {} cannot be deleted: branch '{}' was created from it and "
        "uses its files; delete that one first",
        branch, FormatLanceId(id), children.front());
  }
  CAIRN_ASSIGN_OR_RAISE(auto tags, AllTags(table));
  for (const auto& [name, tag] : tags) {
    if (tag.branch == branch) {
      return InvalidTableState(
          "Branch '{}' of table {} cannot be deleted: tag '{}' points at its version {}; "
          "delete or move the tag first",
          branch, FormatLanceId(id), name, tag.version);
    }
  }
  CAIRN_ASSIGN_OR_RAISE(auto directory,
                        lance::BranchDirectoryToDelete(branch, remaining));
  // The file first, as Lance does: once it is gone the branch is gone, whatever happens
  // to the deletion of its files.
  CAIRN_RETURN_IF_ERROR(io_.DeleteFile(self->location));
  if (directory) {
    CAIRN_RETURN_IF_ERROR(io_.DeleteTree(Under(table, *directory), table.location));
  }
  if (table.managed_versioning) {
    CAIRN_RETURN_IF_ERROR(lance_.versions().DeleteVersions(
        id, std::string(branch), {LanceVersionRange{0, std::nullopt}}, write));
  }
  return Ok();
}

}  // namespace cairn
