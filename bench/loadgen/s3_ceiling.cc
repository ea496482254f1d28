// The S3 subcommands of W7, over Cairn's own S3 client (src/io/s3_client.h, libcurl and
// SigV4), so that the ceiling pays exactly what the server pays for a request:
// - `s3-create-bucket`: the bucket the S3 catalog's warehouse lives in;
// - `s3-mean-size`: the mean size of the metadata files the commits wrote, read back
//   from the bucket;
// - `s3-ceiling`: the least a commit to an S3 table must do, timed in a loop — one PUT
//   with `If-None-Match: *` of a metadata file's size to a fresh key (what S3FileIO's
//   WriteFileAtomic sends, src/io/s3_file_io.cc), then the one-row store transaction of
//   ceiling_store.h;
// - `s3-commits`: `commits` on S3 tables and that ceiling taking turns (turns.h), the
//   ceiling's loop i PUTting what writer i's last commit wrote, so that both meet the
//   same RGW at the same time and the same sizes.

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "common/macros.h"
#include "io/s3_client.h"
#include "loadgen/ceiling_store.h"
#include "loadgen/tally.h"
#include "loadgen/workloads.h"

namespace cairn::bench {
namespace {

/// ListObjectsV2 and DeleteObjects take at most 1,000 keys.
constexpr int kPageKeys = 1000;
/// Keys listed at most by `s3-mean-size` (about 100 MB of names).
constexpr size_t kMaxListedKeys = 1'000'000;
/// Largest object `s3-mean-size` reads, as Cairn's default max-metadata-file-bytes.
constexpr size_t kMaxObjectBytes = size_t{128} << 20;
/// Largest object `s3-ceiling` writes (one copy in memory, shared by all loops).
constexpr uint64_t kMaxCeilingBytes = uint64_t{64} << 20;
constexpr uint64_t kMaxCeilingOps = 10'000'000;
constexpr size_t kMaxKeyPrefixBytes = 512;

/// The value of the environment variable `variable`, which `option` named. The message
/// names the variable, never its value.
Result<std::string> KeyFromEnvironment(const std::string& variable,
                                       std::string_view option) {
  CAIRN_PRECHECK(!variable.empty(), "{} must name an environment variable", option);
  // Read once, before any thread starts.
  const char* value = std::getenv(variable.c_str());  // NOLINT(concurrency-mt-unsafe)
  if (value == nullptr || *value == '\0') {
    return InvalidConfig("The environment variable {} ({}) is not set", variable, option);
  }
  return std::string(value);
}

/// A client set up as a `[storage]` of Cairn's configuration is by default
/// (src/app/storage_config.cc), keeping at least `connections` idle handles so that
/// every loop reuses its own connection as a server thread does.
Result<std::unique_ptr<S3Client>> MakeClient(const S3Options& s3, int connections) {
  CAIRN_PRECHECK(!s3.bucket.empty(), "--bucket is required");
  S3ClientOptions options;
  options.endpoint = s3.endpoint;
  options.region = s3.region;
  options.path_style = !s3.virtual_hosted;
  CAIRN_ASSIGN_OR_RAISE(options.credentials.access_key_id,
                        KeyFromEnvironment(s3.access_key_env, "--access-key-env"));
  CAIRN_ASSIGN_OR_RAISE(options.credentials.secret_access_key,
                        KeyFromEnvironment(s3.secret_key_env, "--secret-key-env"));
  options.request_timeout = std::chrono::milliseconds(10000);
  options.max_retries = 2;
  options.max_idle_handles =
      std::max(options.max_idle_handles, static_cast<size_t>(std::max(connections, 1)));
  return S3Client::Make(std::move(options));
}

/// The keys under `prefix` that end with `suffix`, in the server's (bytewise) order.
/// Errors: the client's; `kBadRequest` past kMaxListedKeys listed keys.
Result<std::vector<std::string>> ListKeys(S3Client& client, const std::string& bucket,
                                          const std::string& prefix,
                                          const std::string& suffix) {
  std::vector<std::string> keys;
  size_t listed = 0;
  std::string token;
  do {
    CAIRN_ASSIGN_OR_RAISE(S3ListPage page,
                          client.ListObjectsV2(bucket, prefix, token, kPageKeys));
    listed += page.keys.size();
    CAIRN_PRECHECK(listed <= kMaxListedKeys, "More than {} keys under s3://{}/{}",
                   kMaxListedKeys, bucket, prefix);
    for (std::string& key : page.keys) {
      if (key.ends_with(suffix)) keys.push_back(std::move(key));
    }
    token = std::move(page.next_continuation_token);
  } while (!token.empty());
  return keys;
}

/// Deletes `keys` in DeleteObjects batches; returns how many the server refused.
Result<size_t> DeleteKeys(S3Client& client, const std::string& bucket,
                          const std::vector<std::string>& keys) {
  size_t refused = 0;
  for (size_t start = 0; start < keys.size(); start += kPageKeys) {
    const auto end = keys.begin() + static_cast<std::ptrdiff_t>(
                                        std::min(keys.size(), start + kPageKeys));
    const std::vector<std::string> batch(
        keys.begin() + static_cast<std::ptrdiff_t>(start), end);
    CAIRN_ASSIGN_OR_RAISE(auto errors, client.DeleteObjects(bucket, batch));
    refused += errors.size();
  }
  return refused;
}

/// Removes what the ceiling wrote (the test server keeps objects in RAM); a failure is
/// logged, not fatal: the measurement stands.
void CleanUp(S3Client& client, const std::string& bucket,
             const std::vector<std::vector<std::string>>& written) {
  std::vector<std::string> keys;
  for (const auto& loop_keys : written)
    keys.insert(keys.end(), loop_keys.begin(), loop_keys.end());
  auto refused = DeleteKeys(client, bucket, keys);
  if (!refused) {
    fmt::print(stderr, "s3-ceiling: deleting the objects written failed: {}\n",
               refused.error().message);
  } else if (*refused > 0) {
    fmt::print(stderr, "s3-ceiling: the server refused to delete {} objects\n", *refused);
  }
}

/// What one ceiling loop of `s3-commits` measured.
struct TurnLoop {
  Histogram latency;              ///< PUT + transaction, started in the measured window
  Histogram put_latency;          ///< the PUT alone
  uint64_t bytes = 0;             ///< PUT in the measured window, in all
  std::vector<std::string> keys;  ///< every object written (warm-up included)
  Status status = Ok();
};

/// Ceiling loop `loop` of `s3-commits`: in side 1's turns until the window ends, one
/// conditional PUT of as many bytes as writer `loop`'s commits wrote on average in its
/// last turn (none before its first commit), then one `Update` of the loop's row.
void RunTurnLoop(S3Client& client, const std::string& bucket, CeilingStore& store,
                 const std::string& stem, int loop, TurnTaking& turns, Window window,
                 const std::atomic<uint64_t>& metadata_bytes, TurnLoop& out) {
  std::string contents;
  // The writer's newest size as this loop last saw it, and the size PUT: the mean of the
  // sizes of the commits in the writer's last turn (the metadata grows about linearly, so
  // the middle of where it started and ended), not the last of them, which the ceiling
  // would pay more bytes for than the commits did.
  uint64_t seen = 0;
  uint64_t bytes = 0;
  for (uint64_t op = 0;; ++op) {
    if (!turns.TryBegin(1)) {
      if (Clock::now() >= window.end) return;
      std::this_thread::sleep_for(kTurnPoll);
      continue;
    }
    const uint64_t newest = metadata_bytes.load(std::memory_order_relaxed);
    if (newest != seen) {
      bytes = seen == 0 ? newest : seen + (newest - std::min(newest, seen)) / 2;
      seen = newest;
    }
    if (bytes == 0 || bytes > kMaxCeilingBytes) {
      turns.End(1);
      std::this_thread::sleep_for(kTurnPoll);
      continue;
    }
    if (contents.size() < bytes) contents.assign(bytes, 'm');
    std::string key = fmt::format("{}{}-{:08d}.metadata.json", stem, loop, op);
    const auto start = Clock::now();
    out.status = client.PutObjectIfAbsent(bucket, key,
                                          std::string_view(contents).substr(0, bytes));
    const auto put = Clock::now();
    if (out.status) {
      out.keys.push_back(std::move(key));
      out.status = store.Update(loop);
    }
    const auto done = Clock::now();
    turns.End(1);
    if (!out.status) return;
    if (start < window.start) continue;
    out.latency.Record(MicrosBetween(start, done));
    out.put_latency.Record(MicrosBetween(start, put));
    out.bytes += bytes;
  }
}

}  // namespace

Result<boost::json::object> RunS3CreateBucket(const S3CreateBucketOptions& options) {
  CAIRN_ASSIGN_OR_RAISE(auto client, MakeClient(options.s3, 1));
  // A bucket the user already owns is fine (us-east-1 answers 200 for it anyway).
  auto created = client->CreateBucket(options.s3.bucket);
  if (!created && created.error().kind != ErrorKind::kAlreadyExists) {
    return tl::unexpected(std::move(created).error());
  }
  return boost::json::object{
      {"subcommand", "s3-create-bucket"},
      {"bucket", options.s3.bucket},
  };
}

Result<boost::json::object> RunS3MeanSize(const S3MeanSizeOptions& options) {
  CAIRN_PRECHECK(options.sample >= 1 && options.sample <= 100'000,
                 "--sample must be in 1..100000");
  CAIRN_ASSIGN_OR_RAISE(auto client, MakeClient(options.s3, 1));
  const std::string& bucket = options.s3.bucket;
  CAIRN_ASSIGN_OR_RAISE(const auto keys,
                        ListKeys(*client, bucket, options.prefix, options.suffix));
  if (keys.empty()) {
    return NotFound("No object ending in '{}' under s3://{}/{}", options.suffix, bucket,
                    options.prefix);
  }
  // Evenly spread over the listing: bytewise order is table by table, version by
  // version within one (zero-padded numbers), so the sample follows the growth of every
  // table's metadata.
  const size_t reads = std::min(keys.size(), static_cast<size_t>(options.sample));
  uint64_t total = 0;
  uint64_t smallest = UINT64_MAX;
  uint64_t largest = 0;
  for (size_t i = 0; i < reads; ++i) {
    const std::string& key = keys[i * keys.size() / reads];
    CAIRN_ASSIGN_OR_RAISE(const std::string body,
                          client->GetObject(bucket, key, kMaxObjectBytes));
    total += body.size();
    smallest = std::min<uint64_t>(smallest, body.size());
    largest = std::max<uint64_t>(largest, body.size());
  }
  return boost::json::object{
      {"subcommand", "s3-mean-size"},
      {"bucket", bucket},
      {"prefix", options.prefix},
      {"objects", keys.size()},
      {"read", reads},
      {"mean_bytes", total / reads},
      {"min_bytes", smallest},
      {"max_bytes", largest},
  };
}

Result<boost::json::object> RunS3Ceiling(const S3CeilingOptions& options) {
  CAIRN_PRECHECK(options.bytes >= 1 && options.bytes <= kMaxCeilingBytes,
                 "--bytes must be in 1..{}", kMaxCeilingBytes);
  CAIRN_PRECHECK(options.count >= 1 && options.count <= kMaxCeilingOps,
                 "--count must be in 1..{}", kMaxCeilingOps);
  CAIRN_PRECHECK(!options.store.empty(), "--store is required");
  CAIRN_PRECHECK(options.key_prefix.size() <= kMaxKeyPrefixBytes,
                 "--key-prefix must be at most {} bytes", kMaxKeyPrefixBytes);
  CAIRN_PRECHECK(options.connections >= 1 && options.connections <= 1024,
                 "--connections must be in 1..1024");
  CAIRN_ASSIGN_OR_RAISE(auto client, MakeClient(options.s3, options.connections));
  const std::string& bucket = options.s3.bucket;

  // Metadata JSON is text; its bytes do not matter to S3.
  const std::string contents(options.bytes, 'm');
  // Fresh keys on every run (a rerun against the same bucket must not meet its own
  // objects: the conditional PUT would refuse them).
  const std::string stem = fmt::format("{}ceiling-{}-{:08x}-", options.key_prefix,
                                       ::getpid(), std::random_device{}());
  // Per loop, each touched by its loop's thread only.
  const auto loops = static_cast<size_t>(options.connections);
  std::vector<std::vector<std::string>> written(loops);
  std::vector<Histogram> put_latency(loops);
  auto run = RunCeilingLoops(
      options.store, options.connections, options.count,
      [&](int loop, uint64_t op) -> Status {
        const auto index = static_cast<size_t>(loop);
        std::string key = fmt::format("{}{}-{:08d}.metadata.json", stem, loop, op);
        const auto start = Clock::now();
        CAIRN_RETURN_IF_ERROR(client->PutObjectIfAbsent(bucket, key, contents));
        put_latency[index].Record(MicrosBetween(start, Clock::now()));
        written[index].push_back(std::move(key));
        return Ok();
      });
  CleanUp(*client, bucket, written);
  CAIRN_RETURN_IF_ERROR(run);

  Histogram puts;
  for (const Histogram& histogram : put_latency) puts.Merge(histogram);
  return boost::json::object{
      {"subcommand", "s3-ceiling"},
      {"bytes", options.bytes},
      {"store", CeilingStoreKind(options.store)},
      {"endpoint", options.s3.endpoint},
      {"bucket", bucket},
      {"connections", options.connections},
      {"ops", run->latency.count()},
      {"seconds", Rounded(run->seconds, 3)},
      {"throughput_ops", Rounded(Rate(run->latency.count(), run->seconds), 1)},
      {"latency_us", run->latency.ToJson()},
      {"put_latency_us", puts.ToJson()},
  };
}

Result<boost::json::object> RunS3Commits(const CommonOptions& common,
                                         const S3CommitsOptions& options) {
  const int loops = options.commits.writers;
  CAIRN_PRECHECK(loops >= 1 && loops <= 1024, "--writers must be in 1..1024");
  CAIRN_PRECHECK(options.phase_ms >= 10 && options.phase_ms <= 60'000,
                 "--phase-ms must be in 10..60000");
  CAIRN_PRECHECK(!options.store.empty(), "--store is required");
  CAIRN_PRECHECK(options.key_prefix.size() <= kMaxKeyPrefixBytes,
                 "--key-prefix must be at most {} bytes", kMaxKeyPrefixBytes);
  CAIRN_ASSIGN_OR_RAISE(auto client, MakeClient(options.s3, loops));
  const std::string& bucket = options.s3.bucket;
  std::vector<std::unique_ptr<CeilingStore>> stores;
  for (int loop = 0; loop < loops; ++loop) {
    CAIRN_ASSIGN_OR_RAISE(auto store, OpenCeilingStore(options.store, loops));
    stores.push_back(std::move(store));
  }
  const std::string stem = fmt::format("{}ceiling-{}-{:08x}-", options.key_prefix,
                                       ::getpid(), std::random_device{}());

  std::vector<std::atomic<uint64_t>> metadata_bytes(static_cast<size_t>(loops));
  std::vector<TurnLoop> measured(static_cast<size_t>(loops));
  std::optional<TurnTaking> turns;
  Window window{};
  // Declared after all they use: joined first, even when an exception unwinds.
  std::vector<std::jthread> threads;
  CommitTurns hooks;
  hooks.metadata_bytes = &metadata_bytes;
  hooks.started = [&](const Window& run) {
    window = run;
    turns.emplace(run, std::chrono::milliseconds(options.phase_ms));
    for (int loop = 0; loop < loops; ++loop) {
      const auto index = static_cast<size_t>(loop);
      threads.emplace_back([&, loop, index] {
        RunTurnLoop(*client, bucket, *stores[index], stem, loop, *turns, window,
                    metadata_bytes[index], measured[index]);
      });
    }
    return &*turns;
  };
  auto commits = RunCommits(common, options.commits, &hooks);
  threads.clear();  // joins them
  std::vector<std::vector<std::string>> written;
  written.reserve(measured.size());
  for (TurnLoop& loop : measured) written.push_back(std::move(loop.keys));
  CleanUp(*client, bucket, written);
  CAIRN_RETURN_IF_ERROR(commits);
  for (const TurnLoop& loop : measured) CAIRN_RETURN_IF_ERROR(loop.status);

  Histogram latency;
  Histogram puts;
  uint64_t bytes = 0;
  for (const TurnLoop& loop : measured) {
    latency.Merge(loop.latency);
    puts.Merge(loop.put_latency);
    bytes += loop.bytes;
  }
  const double seconds = turns ? turns->ActiveSeconds(1) : 0.0;
  boost::json::object result = std::move(*commits);
  result["subcommand"] = "s3-commits";
  result["phase_ms"] = options.phase_ms;
  if (turns) result["drain_seconds"] = Rounded(turns->DrainSeconds(0), 3);
  result["ceiling"] = boost::json::object{
      {"subcommand", "s3-ceiling"},
      {"bytes", latency.count() > 0 ? bytes / latency.count() : 0},
      {"store", CeilingStoreKind(options.store)},
      {"endpoint", options.s3.endpoint},
      {"bucket", bucket},
      {"connections", loops},
      {"ops", latency.count()},
      {"seconds", Rounded(seconds, 3)},
      {"drain_seconds", Rounded(turns ? turns->DrainSeconds(1) : 0.0, 3)},
      {"throughput_ops", Rounded(Rate(latency.count(), seconds), 1)},
      {"latency_us", latency.ToJson()},
      {"put_latency_us", puts.ToJson()},
  };
  return result;
}

}  // namespace cairn::bench
