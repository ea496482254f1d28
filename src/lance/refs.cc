// Lance's tags and branches: names, file names, and what a branch deletion may delete
// (see refs.h).

#include "lance/refs.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "common/macros.h"
#include "common/url_codec.h"
#include "lance/dataset.h"

namespace cairn::lance {
namespace {

constexpr std::string_view kJsonSuffix = ".json";
constexpr std::string_view kLockSuffix = ".lock";
/// Longest file name a local file system holds.
constexpr size_t kMaxFileNameBytes = 255;

bool IsRefChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '.' || c == '-' || c == '_';
}

bool AllRefChars(std::string_view text) {
  return std::all_of(text.begin(), text.end(), IsRefChar);
}

std::vector<std::string_view> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    const size_t slash = path.find('/', start);
    out.push_back(path.substr(start, slash - start));
    if (slash == std::string_view::npos) return out;
    start = slash + 1;
  }
}

/// Whether `prefix` is `path` or one of its ancestors, segment-wise.
bool IsPathPrefix(std::string_view prefix, std::string_view path) {
  return path == prefix || (path.size() > prefix.size() && path.starts_with(prefix) &&
                            path[prefix.size()] == '/');
}

/// The longest common run of leading segments of `a` and `b` ("" when none).
std::string_view CommonSegments(std::string_view a, std::string_view b) {
  size_t common = 0;
  for (size_t i = 0;; ++i) {
    const bool a_ends = i == a.size() || a[i] == '/';
    const bool b_ends = i == b.size() || b[i] == '/';
    if (a_ends && b_ends) common = i;
    if (i == a.size() || i == b.size() || a[i] != b[i]) break;
  }
  return a.substr(0, common);
}

}  // namespace

Status ValidateTagName(std::string_view name) {
  CAIRN_PRECHECK(!name.empty(), "A tag name cannot be empty");
  CAIRN_PRECHECK(name.size() <= kMaxRefNameBytes, "A tag name is at most {} bytes",
                 kMaxRefNameBytes);
  CAIRN_PRECHECK(AllRefChars(name),
                 "Invalid tag name: use ASCII letters, digits, '.', '-' and '_'");
  CAIRN_PRECHECK(!name.starts_with('.') && !name.ends_with('.'),
                 "A tag name cannot begin or end with '.'");
  CAIRN_PRECHECK(name.find("..") == std::string_view::npos,
                 "A tag name cannot hold two consecutive dots");
  CAIRN_PRECHECK(!name.ends_with(kLockSuffix), "A tag name cannot end with '.lock'");
  return Ok();
}

Status ValidateRefBranchName(std::string_view name) {
  CAIRN_PRECHECK(!name.empty(), "A branch name cannot be empty");
  CAIRN_PRECHECK(name.size() <= kMaxRefNameBytes, "A branch name is at most {} bytes",
                 kMaxRefNameBytes);
  CAIRN_PRECHECK(name != kMainBranch, "A branch cannot be named 'main'");
  CAIRN_PRECHECK(name.find("..") == std::string_view::npos,
                 "A branch name cannot hold '..'");
  CAIRN_PRECHECK(!name.ends_with(kLockSuffix), "A branch name cannot end with '.lock'");
  for (const std::string_view segment : Segments(name)) {
    CAIRN_PRECHECK(!segment.empty() && segment != "." && AllRefChars(segment),
                   "Invalid branch name: use ASCII letters, digits, '.', '-' and '_', "
                   "with single '/' between non-empty parts other than '.'");
  }
  CAIRN_PRECHECK(BranchFileName(name).size() <= kMaxFileNameBytes,
                 "Branch name too long for its file name (each '/' takes three bytes)");
  return Ok();
}

Status ValidateNewBranchName(std::string_view name) {
  CAIRN_RETURN_IF_ERROR(ValidateRefBranchName(name));
  const std::vector<std::string_view> segments = Segments(name);
  for (size_t i = 1; i < segments.size(); ++i) {
    CAIRN_PRECHECK(
        std::find(kDatasetEntries.begin(), kDatasetEntries.end(), segments[i]) ==
            kDatasetEntries.end(),
        "Cairn does not create branch '{}': its directory would be the {} of "
        "branch '{}' (a part after the first cannot be one of a dataset's "
        "entries: {})",
        name, segments[i],
        name.substr(0, static_cast<size_t>(segments[i].data() - name.data()) - 1),
        fmt::join(kDatasetEntries, ", "));
  }
  return Ok();
}

Result<std::string> TagBranchOf(const std::optional<std::string>& branch) {
  if (!branch || branch->empty() || *branch == kMainBranch) return std::string();
  CAIRN_RETURN_IF_ERROR(ValidateRefBranchName(*branch));
  return *branch;
}

std::string TagFileName(std::string_view tag) {
  return std::string(tag) + std::string(kJsonSuffix);
}

std::string BranchFileName(std::string_view branch) {
  std::string out;
  out.reserve(branch.size() + kJsonSuffix.size());
  for (const char c : branch) {
    if (c == '/') {
      out += "%2F";
    } else {
      out.push_back(c);
    }
  }
  out += kJsonSuffix;
  return out;
}

std::optional<std::string> TagOfFileName(std::string_view file_name) {
  if (!file_name.ends_with(kJsonSuffix)) return std::nullopt;
  const std::string_view name =
      file_name.substr(0, file_name.size() - kJsonSuffix.size());
  if (!ValidateTagName(name)) return std::nullopt;
  return std::string(name);
}

std::optional<std::string> BranchOfFileName(std::string_view relative_path) {
  if (!relative_path.ends_with(kJsonSuffix)) return std::nullopt;
  auto name =
      PercentDecode(relative_path.substr(0, relative_path.size() - kJsonSuffix.size()));
  if (!name || !ValidateRefBranchName(*name)) return std::nullopt;
  return std::move(*name);
}

std::vector<std::string> BranchesCreatedFrom(
    std::string_view branch,
    const std::vector<std::pair<std::string, BranchContents>>& branches) {
  const BranchContents* self = nullptr;
  for (const auto& [name, contents] : branches) {
    if (name == branch) self = &contents;
  }
  std::vector<std::string> out;
  for (const auto& [name, contents] : branches) {
    if (name == branch) continue;
    const bool child_by_parent = contents.parent_branch == branch;
    const bool child_by_lineage =
        self != nullptr && !self->lineage.empty() &&
        contents.lineage.size() > self->lineage.size() &&
        std::equal(self->lineage.begin(), self->lineage.end(), contents.lineage.begin());
    if (child_by_parent || child_by_lineage) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::optional<std::string>> BranchDirectoryToDelete(
    std::string_view branch, const std::vector<std::string>& remaining) {
  // The deepest directory `branch` shares with a remaining branch: a remaining branch
  // above it, or the common leading segments with one beside it.
  std::string_view shared;
  for (const std::string& other : remaining) {
    if (other == branch) continue;
    // A remaining branch at or below `branch`'s directory keeps all of it.
    if (IsPathPrefix(branch, other)) return std::optional<std::string>();
    const std::string_view common = CommonSegments(branch, other);
    if (common.size() > shared.size()) shared = common;
  }
  const std::vector<std::string_view> segments = Segments(branch);
  const size_t kept = shared.empty() ? 0 : Segments(shared).size();
  std::string relative(shared);
  if (!relative.empty()) relative.push_back('/');
  relative.append(segments[kept]);
  // `tree/<a>/<entry>` is branch a's own file or directory when `entry` is one of a
  // dataset's entries (`_versions`, `data`, ...).
  for (const std::string& other : remaining) {
    if (other == branch || !IsPathPrefix(other, relative) || other == relative) continue;
    const std::string_view below = std::string_view(relative).substr(other.size() + 1);
    const std::string_view next = below.substr(0, below.find('/'));
    if (std::find(kDatasetEntries.begin(), kDatasetEntries.end(), next) !=
        kDatasetEntries.end()) {
      return Unsupported(
          "Cairn does not delete branch '{}': its directory {}/{} is also the {} of "
          "branch '{}'",
          branch, kBranchTreeDir, relative, next, other);
    }
  }
  return std::optional<std::string>(fmt::format("{}/{}", kBranchTreeDir, relative));
}

std::string FormatRfc3339Nanos(int64_t unix_nanos) {
  namespace chrono = std::chrono;
  const chrono::sys_time<chrono::nanoseconds> time{chrono::nanoseconds(unix_nanos)};
  const chrono::sys_days day = chrono::floor<chrono::days>(time);
  const chrono::year_month_day date{day};
  const chrono::hh_mm_ss<chrono::nanoseconds> clock{time - day};
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:09}Z", int(date.year()),
                     unsigned(date.month()), unsigned(date.day()), clock.hours().count(),
                     clock.minutes().count(), clock.seconds().count(),
                     clock.subseconds().count());
}

}  // namespace cairn::lance
