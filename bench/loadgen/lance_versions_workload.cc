// `lance-setup` and `lance-commits` (W9): Lance tables whose versions Cairn manages.
// `lance-setup` makes the catalog (managed_versioning), the namespace and the tables, and
// can commit K versions to each; `lance-commits` times commits as a LanceDB client makes
// them — write the staging manifest into `_versions/`, then CreateTableVersion — with
// one writer per table, each committing that table's next version in turn.

#include <chrono>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fmt/format.h>

#include "common/macros.h"
#include "lance/manifest_rewrite.h"
#include "loadgen/catalog_calls.h"
#include "loadgen/driver.h"
#include "loadgen/lance_calls.h"
#include "loadgen/tally.h"
#include "loadgen/workloads.h"

namespace cairn::bench {
namespace {

constexpr std::chrono::milliseconds kErrorPause{10};
constexpr size_t kMaxTables = 1024;
constexpr uint64_t kMaxManifestBytes = uint64_t{64} << 20;

/// What a commit run counts: whole commits (staging write + CreateTableVersion, as the
/// client sees them), and each of the two parts on its own.
struct CommitTally {
  Tally commits;
  Histogram write_latency;
  Histogram post_latency;

  void Merge(const CommitTally& other) {
    commits.Merge(other.commits);
    write_latency.Merge(other.write_latency);
    post_latency.Merge(other.post_latency);
  }
};

/// A staging-name suffix shaped like the UUID Lance uses.
std::string RandomSuffix(std::mt19937_64& random) {
  const std::string hex = fmt::format("{:016x}{:016x}", random(), random());
  return fmt::format("{}-{}-{}-{}-{}", hex.substr(0, 8), hex.substr(8, 4),
                     hex.substr(12, 4), hex.substr(16, 4), hex.substr(20));
}

/// The newest recorded version of `table` (0 when none), asked as LanceDB does at every
/// open: ListTableVersions, newest first, one entry.
asio::awaitable<Result<int64_t>> LatestVersion(HttpConnection& connection,
                                               const ServerTarget& target,
                                               const LanceTable& table) {
  const Request request = MakeRequest(
      target, http::verb::post,
      LancePath("table", table.path_id, "version/list", "limit=1&descending=true"),
      LanceIdBody(table.id));
  // (GCC 12 miscompiles a co_await and a braced list in one full-expression.)
  auto reply = co_await connection.Send(request);
  auto response = Expect(std::move(reply), {200}, "list versions");
  if (!response) co_return tl::unexpected(std::move(response).error());
  boost::system::error_code ec;
  const boost::json::value body = boost::json::parse(response->body(), ec);
  const auto* versions =
      ec || !body.is_object() ? nullptr : body.get_object().if_contains("versions");
  if (versions == nullptr || !versions->is_array()) {
    co_return IOError("list versions: {}", DescribeResponse(*response));
  }
  if (versions->get_array().empty()) co_return int64_t{0};
  const auto& first = versions->get_array().front();
  const auto* version =
      first.is_object() ? first.get_object().if_contains("version") : nullptr;
  if (version == nullptr || !version->is_int64()) {
    co_return IOError("list versions: {}", DescribeResponse(*response));
  }
  co_return version->get_int64();
}

/// The namespace and the tables (declared when missing), each with its latest version.
asio::awaitable<Result<std::vector<std::pair<LanceTable, int64_t>>>> PrepareTables(
    const ServerTarget& target, const CommonOptions& common,
    const LanceTablesOptions& lance) {
  HttpConnection connection(co_await asio::this_coro::executor, target,
                            std::chrono::milliseconds(common.timeout_ms));
  // (The propagation macros `return`; a coroutine must `co_return`.)
  auto status =
      co_await EnsureManagedNamespace(connection, target, lance.catalog, lance.ns);
  if (!status) co_return tl::unexpected(std::move(status).error());
  std::vector<std::pair<LanceTable, int64_t>> out;
  for (const std::string& name : lance.tables) {
    auto table =
        co_await DeclareManagedTable(connection, target, lance.catalog, lance.ns, name);
    if (!table) co_return tl::unexpected(std::move(table).error());
    auto latest = co_await LatestVersion(connection, target, *table);
    if (!latest) co_return tl::unexpected(std::move(latest).error());
    out.emplace_back(std::move(*table), *latest);
  }
  co_return out;
}

/// What each version's staging manifest holds: the same random bytes for every version,
/// or a real manifest rewritten as the version (what DescribeTable's detailed metadata
/// then reads and caches).
class ManifestSource {
 public:
  static Result<ManifestSource> Make(const LanceTablesOptions& lance,
                                     std::mt19937_64& random) {
    ManifestSource source;
    source.is_template_ = !lance.manifest_template.empty();
    if (!source.is_template_) {
      CAIRN_ASSIGN_OR_RAISE(source.bytes_, MakeManifest(lance.manifest_bytes, random));
      return source;
    }
    std::ifstream in(lance.manifest_template, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    CAIRN_PRECHECK(in.good() || in.eof(), "--manifest-template {}: cannot be read",
                   lance.manifest_template);
    source.bytes_ = std::move(bytes).str();
    CAIRN_PRECHECK(source.bytes_.size() <= kMaxManifestBytes,
                   "--manifest-template {}: larger than {} bytes",
                   lance.manifest_template, kMaxManifestBytes);
    // Checked once here: a file that is no manifest fails before any commit.
    CAIRN_RETURN_IF_ERROR(source.For(1));
    return source;
  }

  /// The manifest of `version`.
  Result<std::string> For(int64_t version) const {
    if (!is_template_) return bytes_;
    const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::system_clock::now().time_since_epoch());
    return lance::RewriteManifest(
        bytes_, {.version = static_cast<uint64_t>(version), .timestamp_ms = now.count()});
  }

  size_t size() const { return bytes_.size(); }

 private:
  bool is_template_ = false;
  std::string bytes_;
};

/// One connection committing versions of one table.
class VersionWriter {
 public:
  VersionWriter(asio::any_io_executor executor, const ServerTarget& target,
                const CommonOptions& common, const LanceTable& table,
                const ManifestSource& manifest, uint64_t seed, CommitTally& tally)
      : connection_(std::move(executor), target,
                    std::chrono::milliseconds(common.timeout_ms)),
        target_(target),
        table_(table),
        manifest_(manifest),
        random_(seed),
        tally_(tally) {}

  /// Writes the staging manifest of `version` and commits it; counted when `recorded`.
  asio::awaitable<void> Commit(int64_t version, bool recorded) {
    const auto start = Clock::now();
    auto bytes = manifest_.For(version);
    auto staged =
        bytes ? WriteStagingManifest(table_, version, RandomSuffix(random_), *bytes)
              : Result<std::string>(tl::unexpected(bytes.error()));
    if (!staged) {
      Error(recorded, 0, staged.error().message);
      co_await Pause(kErrorPause);
      co_return;
    }
    const auto written = Clock::now();
    auto response = co_await connection_.Send(
        CreateVersionRequest(target_, table_, version, *staged));
    const auto done = Clock::now();
    if (!response) {
      Error(recorded, 0, response.error().message);
      co_await Pause(kErrorPause);
      co_return;
    }
    if (response->result_int() != 200) {
      Error(recorded, response->result_int(), DescribeResponse(*response));
      co_return;
    }
    if (!recorded) co_return;
    tally_.commits.RecordOk(MicrosBetween(start, done));
    tally_.commits.NoteCompletion(done);
    tally_.write_latency.Record(MicrosBetween(start, written));
    tally_.post_latency.Record(MicrosBetween(written, done));
  }

 private:
  void Error(bool recorded, unsigned status, std::string_view detail) {
    if (!recorded) return;
    tally_.commits.RecordError(status, detail);
    tally_.commits.NoteCompletion(Clock::now());
  }

  HttpConnection connection_;
  const ServerTarget& target_;
  const LanceTable& table_;
  const ManifestSource& manifest_;
  std::mt19937_64 random_;
  CommitTally& tally_;
};

Status CheckTables(const LanceTablesOptions& lance) {
  CAIRN_PRECHECK(!lance.tables.empty() && lance.tables.size() <= kMaxTables,
                 "--tables must name 1 to {} tables", kMaxTables);
  CAIRN_PRECHECK(lance.manifest_bytes >= 20 && lance.manifest_bytes <= kMaxManifestBytes,
                 "--manifest-bytes must be in 20..{}", kMaxManifestBytes);
  return Ok();
}

boost::json::array TablesJson(const std::vector<std::pair<LanceTable, int64_t>>& tables) {
  boost::json::array out;
  for (const auto& [table, latest] : tables) {
    out.push_back(boost::json::object{
        {"id", fmt::format("{}", fmt::join(table.id, "$"))},
        {"dir", table.dir},
        {"latest_version", latest},
    });
  }
  return out;
}

}  // namespace

Result<boost::json::object> RunLanceSetup(const CommonOptions& common,
                                          const LanceSetupOptions& options) {
  CAIRN_RETURN_IF_ERROR(CheckTables(options.lance));
  CAIRN_PRECHECK(options.versions >= 0 && options.versions <= 10'000'000,
                 "--versions must be in 0..10000000");
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target,
                        ResolveTarget(common.url, common.token_env));
  CAIRN_ASSIGN_OR_RAISE(auto tables,
                        RunBlocking(PrepareTables(target, common, options.lance)));
  std::mt19937_64 random(std::random_device{}());
  CAIRN_ASSIGN_OR_RAISE(const ManifestSource manifest,
                        ManifestSource::Make(options.lance, random));
  // Versions of a table need not be committed in order: `--connections` loops share
  // each table's versions (loop k commits the k-th, then every connections-th after it).
  const uint64_t seed_base = random();  // loops run on several threads: no shared engine
  const auto start = Clock::now();
  CommitTally total;
  for (auto& [table, latest] : tables) {
    const int64_t first = latest + 1;
    const int loops = common.connections;
    CAIRN_ASSIGN_OR_RAISE(
        auto per_thread,
        RunWorkers<CommitTally>(
            common.threads, loops,
            [&, &table = table](asio::any_io_executor executor, int loop,
                                CommitTally& tally) -> asio::awaitable<void> {
              VersionWriter writer(executor, target, common, table, manifest,
                                   seed_base + static_cast<uint64_t>(loop), tally);
              for (int64_t v = first + loop; v < first + options.versions; v += loops) {
                co_await writer.Commit(v, true);
              }
            }));
    for (const CommitTally& tally : per_thread) total.Merge(tally);
    if (total.commits.errors() > 0) {
      return IOError("{} of the versions failed, e.g. {}", total.commits.errors(),
                     boost::json::serialize(total.commits.SamplesJson()));
    }
    latest += options.versions;
  }
  const double seconds = SecondsBetween(start, Clock::now());
  return boost::json::object{
      {"subcommand", "lance-setup"},
      {"tables", TablesJson(tables)},
      {"versions_per_table", options.versions},
      {"manifest_bytes", manifest.size()},
      {"manifest_template", options.lance.manifest_template},
      {"connections", common.connections},
      {"seconds", Rounded(seconds, 3)},
      {"throughput_vps", Rounded(Rate(total.commits.ok(), seconds), 1)},
  };
}

Result<boost::json::object> RunLanceCommits(const CommonOptions& common,
                                            const LanceCommitsOptions& options) {
  CAIRN_RETURN_IF_ERROR(CheckTables(options.lance));
  CAIRN_PRECHECK(options.writers >= 1 &&
                     static_cast<size_t>(options.writers) <= options.lance.tables.size(),
                 "--writers must be in 1..{} (one table per writer)",
                 options.lance.tables.size());
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target,
                        ResolveTarget(common.url, common.token_env));
  CAIRN_ASSIGN_OR_RAISE(const auto tables,
                        RunBlocking(PrepareTables(target, common, options.lance)));
  std::mt19937_64 random(std::random_device{}());
  CAIRN_ASSIGN_OR_RAISE(const ManifestSource manifest,
                        ManifestSource::Make(options.lance, random));
  std::vector<uint64_t> seeds;
  seeds.reserve(static_cast<size_t>(options.writers));
  for (int w = 0; w < options.writers; ++w) seeds.push_back(random());

  const Window window = Window::FromNow(common.warmup_s, common.duration_s);
  CAIRN_ASSIGN_OR_RAISE(
      auto per_thread,
      RunWorkers<CommitTally>(
          common.threads, options.writers,
          [&](asio::any_io_executor executor, int index,
              CommitTally& tally) -> asio::awaitable<void> {
            const auto& [table, latest] = tables[static_cast<size_t>(index)];
            VersionWriter writer(executor, target, common, table, manifest,
                                 seeds[static_cast<size_t>(index)], tally);
            for (int64_t version = latest + 1; Clock::now() < window.end; ++version) {
              co_await writer.Commit(version, Clock::now() >= window.start);
            }
          }));
  CommitTally total;
  for (const CommitTally& tally : per_thread) total.Merge(tally);
  const uint64_t commits = total.commits.ok();
  const double seconds =
      commits + total.commits.errors() > 0
          ? SecondsBetween(window.start, total.commits.last_completion())
          : 0.0;
  return boost::json::object{
      {"subcommand", "lance-commits"},
      {"writers", options.writers},
      {"tables", TablesJson(tables)},
      {"manifest_bytes", options.lance.manifest_bytes},
      {"duration_s", Rounded(seconds, 3)},
      {"commits", commits},
      {"errors", total.commits.errors()},
      {"error_samples", total.commits.SamplesJson()},
      {"throughput_cps", Rounded(Rate(commits, seconds), 1)},
      {"latency_us", total.commits.latency().ToJson()},
      {"write_latency_us", total.write_latency.ToJson()},
      {"post_latency_us", total.post_latency.ToJson()},
  };
}

}  // namespace cairn::bench
