// The names of a Lance dataset's version files (see version_names.h).

#include "lance/version_names.h"

#include <limits>

#include <fmt/format.h>

#include "common/macros.h"

namespace cairn::lance {
namespace {

constexpr size_t kMaxBranchBytes = 255;
constexpr size_t kMaxStagingSuffixBytes = 64;

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsBranchPart(std::string_view part) {
  if (part.empty() || part == "." || part == "..") return false;
  for (char c : part) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) {
      return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
    };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::string_view NamingSchemeName(NamingScheme scheme) {
  return scheme == NamingScheme::kV1 ? "V1" : "V2";
}

Result<NamingScheme> ParseNamingScheme(const std::optional<std::string>& name) {
  if (!name) return NamingScheme::kV2;
  if (EqualsIgnoringCase(*name, "V1")) return NamingScheme::kV1;
  if (EqualsIgnoringCase(*name, "V2")) return NamingScheme::kV2;
  return BadRequest("Unknown manifest naming scheme '{}': expected V1 or V2",
                    name->substr(0, 32));
}

std::string ManifestFileName(uint64_t version, NamingScheme scheme) {
  if (scheme == NamingScheme::kV1) return fmt::format("{}.manifest", version);
  return fmt::format("{:020}.manifest", std::numeric_limits<uint64_t>::max() - version);
}

Status ValidateBranchName(std::string_view branch) {
  if (branch.empty()) return Ok();
  CAIRN_PRECHECK(branch.size() <= kMaxBranchBytes, "A branch name is at most {} bytes",
                 kMaxBranchBytes);
  size_t start = 0;
  for (;;) {
    const size_t slash = branch.find('/', start);
    const std::string_view part = branch.substr(start, slash - start);
    CAIRN_PRECHECK(IsBranchPart(part),
                   "Invalid branch name: use letters, digits, '-', '_' and '.', with '/' "
                   "between non-empty parts other than '.' and '..'");
    if (slash == std::string_view::npos) return Ok();
    start = slash + 1;
  }
}

std::string BranchRootOf(std::string_view branch) {
  if (branch.empty()) return {};
  return fmt::format("tree/{}", branch);
}

std::string VersionsDirOf(std::string_view branch) {
  if (branch.empty()) return "_versions";
  return BranchRootOf(branch) + "/_versions";
}

std::string TransactionsDirOf(std::string_view branch) {
  if (branch.empty()) return "_transactions";
  return BranchRootOf(branch) + "/_transactions";
}

bool IsStagingNameOf(std::string_view file_name, std::string_view final_name) {
  if (!file_name.starts_with(final_name)) return false;
  std::string_view rest = file_name.substr(final_name.size());
  if (!rest.starts_with('-')) return false;
  rest.remove_prefix(1);
  if (rest.empty() || rest.size() > kMaxStagingSuffixBytes) return false;
  for (char c : rest) {
    if (!IsAlnum(c) && c != '-') return false;
  }
  return true;
}

}  // namespace cairn::lance
