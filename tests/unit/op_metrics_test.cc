// The process-wide operational metrics (common/op_metrics.h): counters, histograms and
// gauges and their exposition; then what the store, the commit protocol and the caches
// count, read back from the exposition as a scrape sees it. Counts are compared before
// and after the calls that should move them: other tests of this binary count too.

#include "common/op_metrics.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/commit.h"
#include "catalog/lance_manifest_cache.h"
#include "catalog/metadata_cache.h"
#include "hooked_store.h"
#include "store/sql_store_internal.h"
#include "support/memory_file_io.h"
#include "support/metric_samples.h"

namespace cairn {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

using test::Exposition;
using test::Sample;

enum class Color { kRed, kGreen };
enum class Size { kSmall, kMedium, kLarge };

TEST(OpMetricsTest, CounterSeriesAreEveryCombinationOfTheLabelValues) {
  metrics::CounterFamily family(
      "test_things_total", "Things counted.",
      {{"color", {"red", "green"}}, {"size", {"small", "medium", "large"}}});
  EXPECT_EQ(family.series(), 6u);
  family.At(Color::kGreen, Size::kMedium).Increment();
  family.At(Color::kGreen, Size::kMedium).Increment(2);
  family.At(Color::kRed, Size::kLarge).Increment();
  EXPECT_EQ(family.At(Color::kGreen, Size::kMedium).value(), 3u);
  EXPECT_EQ(family.At(Color::kGreen, Size::kLarge).value(), 0u);

  std::string out;
  family.Render(out);
  EXPECT_EQ(out,
            "# HELP test_things_total Things counted.\n"
            "# TYPE test_things_total counter\n"
            "test_things_total{color=\"red\",size=\"small\"} 0\n"
            "test_things_total{color=\"red\",size=\"medium\"} 0\n"
            "test_things_total{color=\"red\",size=\"large\"} 1\n"
            "test_things_total{color=\"green\",size=\"small\"} 0\n"
            "test_things_total{color=\"green\",size=\"medium\"} 3\n"
            "test_things_total{color=\"green\",size=\"large\"} 0\n");
}

TEST(OpMetricsTest, FamilyWithoutLabelsHasOneSeries) {
  metrics::CounterFamily family("test_plain_total", "Help with a \\ and a\nnewline.");
  family.At().Increment(5);
  std::string out;
  family.Render(out);
  EXPECT_EQ(out,
            "# HELP test_plain_total Help with a \\\\ and a\\nnewline.\n"
            "# TYPE test_plain_total counter\n"
            "test_plain_total 5\n");
}

TEST(OpMetricsTest, LabelValuesAreEscaped) {
  metrics::CounterFamily family("test_escaped_total", "Escapes.",
                                {{"value", {"a\"b", "c\\d", "e\nf"}}});
  std::string out;
  family.Render(out);
  EXPECT_NE(out.find("test_escaped_total{value=\"a\\\"b\"} 0\n"), std::string::npos);
  EXPECT_NE(out.find("test_escaped_total{value=\"c\\\\d\"} 0\n"), std::string::npos);
  EXPECT_NE(out.find("test_escaped_total{value=\"e\\nf\"} 0\n"), std::string::npos);
}

TEST(OpMetricsTest, HistogramBucketsHoldWhatTookAtMostTheirBound) {
  metrics::HistogramFamily family("test_wait_seconds", "Waits.", {0.001, 0.01, 0.1},
                                  {{"color", {"red", "green"}}});
  metrics::Histogram& red = family.At(Color::kRed);
  red.Observe(microseconds(500));  // first bucket
  red.Observe(milliseconds(1));    // on the bound: still the first (le is "at most")
  red.Observe(milliseconds(5));    // second
  red.Observe(milliseconds(500));  // past every bound: +Inf only
  EXPECT_EQ(red.count(), 4u);
  EXPECT_EQ(red.cumulative(0), 2u);
  EXPECT_EQ(red.cumulative(1), 3u);
  EXPECT_EQ(red.cumulative(2), 3u);
  EXPECT_EQ(red.sum(), microseconds(506500));

  std::string out;
  family.Render(out);
  // The green series has no observation: not exposed.
  EXPECT_EQ(out,
            "# HELP test_wait_seconds Waits.\n"
            "# TYPE test_wait_seconds histogram\n"
            "test_wait_seconds_bucket{color=\"red\",le=\"0.001\"} 2\n"
            "test_wait_seconds_bucket{color=\"red\",le=\"0.01\"} 3\n"
            "test_wait_seconds_bucket{color=\"red\",le=\"0.1\"} 3\n"
            "test_wait_seconds_bucket{color=\"red\",le=\"+Inf\"} 4\n"
            "test_wait_seconds_sum{color=\"red\"} 0.5065\n"
            "test_wait_seconds_count{color=\"red\"} 4\n");
}

TEST(OpMetricsTest, ScopedTimerObservesOnce) {
  metrics::HistogramFamily family("test_timed_seconds", "Timed.", {1});
  { metrics::ScopedTimer timer(family.At()); }
  EXPECT_EQ(family.At().count(), 1u);
  EXPECT_EQ(family.At().cumulative(0), 1u);  // far below a second
}

TEST(OpMetricsTest, GaugeSourcesOfOneSeriesAddUpAndLeaveWhenDestroyed) {
  metrics::GaugeFamily family("test_held_bytes", "Held.", {{"color", {"red", "green"}}});
  auto first = family.AddSource([] { return 10.0; }, Color::kRed);
  std::string out;
  {
    auto second = family.AddSource([] { return 5.5; }, Color::kRed);
    auto moved = family.AddSource([] { return 1.0; }, Color::kGreen);
    metrics::GaugeFamily::Source target = std::move(moved);  // still registered, once
    family.Render(out);
    EXPECT_NE(out.find("test_held_bytes{color=\"red\"} 15.5\n"), std::string::npos)
        << out;
    EXPECT_NE(out.find("test_held_bytes{color=\"green\"} 1\n"), std::string::npos) << out;
  }
  out.clear();
  family.Render(out);
  EXPECT_EQ(out,
            "# HELP test_held_bytes Held.\n"
            "# TYPE test_held_bytes gauge\n"
            "test_held_bytes{color=\"red\"} 10\n"
            "test_held_bytes{color=\"green\"} 0\n");
}

TEST(OpMetricsTest, ExpositionHoldsTheLivingFamiliesOrderedByName) {
  std::string out;
  {
    metrics::CounterFamily later("test_zz_order_total", "Later.");
    metrics::CounterFamily earlier("test_aa_order_total", "Earlier.");
    out = Exposition();
    const size_t a = out.find("# HELP test_aa_order_total");
    const size_t z = out.find("# HELP test_zz_order_total");
    ASSERT_NE(a, std::string::npos);
    ASSERT_NE(z, std::string::npos);
    EXPECT_LT(a, z);
  }
  out = Exposition();
  EXPECT_EQ(out.find("test_aa_order_total"), std::string::npos);
  EXPECT_EQ(out.find("test_zz_order_total"), std::string::npos);
}

TEST(OpMetricsTest, TheLayersFamiliesAreRegisteredFromTheStart) {
  const std::string out = Exposition();
  for (const char* name :
       {"# TYPE cairn_store_statement_duration_seconds histogram",
        "# TYPE cairn_store_transaction_retries_total counter",
        "# TYPE cairn_commits_total counter", "# TYPE cairn_commit_retries_total counter",
        "# TYPE cairn_metadata_cache_hits_total counter",
        "# TYPE cairn_metadata_cache_misses_total counter",
        "# TYPE cairn_metadata_cache_bytes gauge",
        "# TYPE cairn_metadata_cache_entries gauge"}) {
    EXPECT_NE(out.find(name), std::string::npos) << name;
  }
  // Every combination of a counter's labels is there, zero or not.
  EXPECT_NE(out.find("cairn_commits_total{kind=\"lance-rewrite\",outcome=\"unknown\"} "),
            std::string::npos);
}

// --- The store -------------------------------------------------------------------------

std::string StatementCount(const char* kind) {
  return fmt::format(
      "cairn_store_statement_duration_seconds_count{{backend=\"sqlite\",kind=\"{}\"}}",
      kind);
}

TEST(OpMetricsTest, StoreTimesStatementsByKind) {
  auto store = OpenSqliteStore({.path = ":memory:"});
  ASSERT_TRUE(store) << store.error().message;
  std::string before = Exposition();
  ASSERT_TRUE((*store)->CreateCatalog("c", "file:///w", {}));
  std::string after = Exposition();
  EXPECT_EQ(
      Sample(after, StatementCount("begin")) - Sample(before, StatementCount("begin")),
      1);
  EXPECT_EQ(
      Sample(after, StatementCount("commit")) - Sample(before, StatementCount("commit")),
      1);
  EXPECT_GE(
      Sample(after, StatementCount("write")) - Sample(before, StatementCount("write")),
      1);
  EXPECT_EQ(Sample(after, StatementCount("read")),
            Sample(before, StatementCount("read")));

  before = after;
  ASSERT_TRUE((*store)->GetCatalog("c"));
  after = Exposition();
  EXPECT_GE(
      Sample(after, StatementCount("read")) - Sample(before, StatementCount("read")), 1);
  EXPECT_EQ(Sample(after, StatementCount("write")),
            Sample(before, StatementCount("write")));
  EXPECT_EQ(Sample(after, StatementCount("commit")),
            Sample(before, StatementCount("commit")));
}

TEST(OpMetricsTest, StoreCountsTransactionRetries) {
  const double before = Sample("cairn_store_transaction_retries_total");
  sql_internal::BackOff(1);  // what SqlStore::Write calls before running a write again
  EXPECT_EQ(Sample("cairn_store_transaction_retries_total") - before, 1);
}

// --- The commit protocol ---------------------------------------------------------------

class CommitMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = OpenSqliteStore({.path = ":memory:"});
    ASSERT_TRUE(store) << store.error().message;
    base_ = std::move(*store);
    hooked_ = std::make_unique<HookedStore>(*base_);
    orphans_ = std::make_unique<OrphanFiles>(*hooked_, io_, [] { return int64_t{1000}; });
    auto catalog = base_->CreateCatalog("c", "file:///w", {});
    ASSERT_TRUE(catalog);
    catalog_id_ = catalog->id;
    ASSERT_TRUE(base_->CreateNamespace(catalog_id_, {"ns"}, {}));
    auto entity = base_->CreateEntity(catalog_id_, {"ns"}, "v", EntityKind::kIcebergView,
                                      "file:///w/ns/v/metadata/0.json", "{}");
    ASSERT_TRUE(entity);
    entity_id_ = entity->id;
  }

  /// One change to the view, to file `n` of the test.
  std::vector<StagedChange> Change() {
    const std::string location = fmt::format("file:///w/ns/v/metadata/{}.json", ++files_);
    StagedChange change;
    change.address = EntityAddress{catalog_id_, {"ns"}, "v"};
    change.write = [this, location]() -> Result<EntitySwap> {
      CAIRN_RETURN_IF_ERROR(io_.WriteFileAtomic(location, "{}"));
      auto now = base_->LoadEntityPointer(catalog_id_, {"ns"}, "v");
      if (!now || !*now) return Internal("view is gone");
      return EntitySwap{entity_id_, (*now)->metadata_location, location, "{}"};
    };
    change.on_committed = [] {};
    std::vector<StagedChange> changes;
    changes.push_back(std::move(change));
    return changes;
  }

  Status Run(const CommitAttempt& attempt) {
    return RunCommit(*hooked_, *orphans_, 3,
                     CommitSubject{"ns.v", CommitKind::kIcebergView}, attempt);
  }

  static double Commits(const char* outcome) {
    return Sample(fmt::format(
        "cairn_commits_total{{kind=\"iceberg-view\",outcome=\"{}\"}}", outcome));
  }
  static double Retries() {
    return Sample("cairn_commit_retries_total{kind=\"iceberg-view\"}");
  }

  std::unique_ptr<MetaStore> base_;
  std::unique_ptr<HookedStore> hooked_;
  MemoryFileIO io_;
  std::unique_ptr<OrphanFiles> orphans_;
  int64_t catalog_id_ = 0;
  int64_t entity_id_ = 0;
  int files_ = 0;
};

TEST_F(CommitMetricsTest, ALostRaceIsARetryAndTheCommitCountsOnce) {
  hooked_->swap_hook = [&](const std::vector<EntitySwap>& swaps,
                           MetaStore& base) -> Result<bool> {
    if (hooked_->swap_calls == 1) return false;  // another writer won the first race
    return base.SwapEntities(swaps);
  };
  const double committed = Commits("committed");
  const double retries = Retries();
  ASSERT_TRUE(Run([&]() -> Result<std::vector<StagedChange>> { return Change(); }));
  EXPECT_EQ(Commits("committed") - committed, 1);
  EXPECT_EQ(Retries() - retries, 1);
}

TEST_F(CommitMetricsTest, RacesLostToTheEndAreAConflictAfterTheRetriesAllowed) {
  hooked_->swap_hook = [](const std::vector<EntitySwap>&, MetaStore&) -> Result<bool> {
    return false;
  };
  const double conflicts = Commits("conflict");
  const double retries = Retries();
  auto status = Run([&]() -> Result<std::vector<StagedChange>> { return Change(); });
  ASSERT_FALSE(status);
  EXPECT_EQ(Commits("conflict") - conflicts, 1);
  EXPECT_EQ(Retries() - retries, 2);  // 3 attempts: the last is not run again
}

TEST_F(CommitMetricsTest, EachOutcomeIsCountedAsItsOwn) {
  const double conflicts = Commits("conflict");
  const double unchanged = Commits("unchanged");
  const double unknown = Commits("unknown");
  const double failed = Commits("failed");
  const double retries = Retries();

  // A requirement that no longer holds: 409.
  EXPECT_FALSE(Run([]() -> Result<std::vector<StagedChange>> {
    return CommitFailed("Requirement failed: view uuid does not match");
  }));
  EXPECT_TRUE(Run(
      []() -> Result<std::vector<StagedChange>> { return std::vector<StagedChange>{}; }));
  EXPECT_FALSE(Run([]() -> Result<std::vector<StagedChange>> {
    return BadRequest("Invalid view version");
  }));
  hooked_->swap_hook = [](const std::vector<EntitySwap>&, MetaStore&) -> Result<bool> {
    return CommitStateUnknown("connection lost");
  };
  EXPECT_FALSE(Run([&]() -> Result<std::vector<StagedChange>> { return Change(); }));

  EXPECT_EQ(Commits("conflict") - conflicts, 1);
  EXPECT_EQ(Commits("unchanged") - unchanged, 1);
  EXPECT_EQ(Commits("failed") - failed, 1);
  EXPECT_EQ(Commits("unknown") - unknown, 1);
  EXPECT_EQ(Retries(), retries);
}

TEST(CommitOutcomeTest, ErrorsMapToOutcomes) {
  EXPECT_EQ(CommitOutcomeOf(Error{ErrorKind::kCommitFailed, ""}),
            CommitOutcome::kConflict);
  EXPECT_EQ(CommitOutcomeOf(Error{ErrorKind::kCommitStateUnknown, ""}),
            CommitOutcome::kUnknown);
  EXPECT_EQ(CommitOutcomeOf(Error{ErrorKind::kNoSuchTable, ""}), CommitOutcome::kFailed);
}

// --- The caches ------------------------------------------------------------------------

std::string CacheSeries(const char* family, const char* cache) {
  return fmt::format("cairn_metadata_cache_{}{{cache=\"{}\"}}", family, cache);
}

TEST(OpMetricsTest, MetadataCacheCountsLookupsAndHoldingsByForm) {
  using Form = MetadataCache::Form;
  const char* json = "iceberg-metadata-json";
  const char* model = "iceberg-metadata-model";
  std::string before = Exposition();
  MetadataCache cache(1 << 20);
  EXPECT_EQ(cache.FindJson("file:///m/1.json", Form::kJson), nullptr);
  cache.InsertJson("file:///m/1.json", Form::kJson,
                   std::make_shared<const std::string>(100, 'x'));
  EXPECT_NE(cache.FindJson("file:///m/1.json", Form::kJson), nullptr);
  EXPECT_NE(cache.FindJson("file:///m/1.json", Form::kJson), nullptr);
  EXPECT_EQ(cache.FindModel("file:///m/1.json"), nullptr);
  std::string after = Exposition();

  const auto delta = [&](const char* family, const char* form) {
    return Sample(after, CacheSeries(family, form)) -
           Sample(before, CacheSeries(family, form));
  };
  EXPECT_EQ(delta("hits_total", json), 2);
  EXPECT_EQ(delta("misses_total", json), 1);
  EXPECT_EQ(delta("hits_total", model), 0);
  EXPECT_EQ(delta("misses_total", model), 1);
  EXPECT_EQ(delta("entries", json), 1);
  EXPECT_EQ(delta("bytes", json), static_cast<double>(cache.usage(Form::kJson).bytes));
  EXPECT_EQ(cache.usage(Form::kJson).bytes, cache.size_bytes());
  EXPECT_EQ(delta("entries", model), 0);
}

TEST(OpMetricsTest, MetadataCacheHoldingsFollowEviction) {
  using Form = MetadataCache::Form;
  MetadataCache cache(1000);
  cache.InsertJson("file:///m/1.json", Form::kJson,
                   std::make_shared<const std::string>(200, 'x'));
  cache.InsertJson("file:///m/1.json", Form::kRefsJson,
                   std::make_shared<const std::string>(200, 'y'));
  cache.InsertJson("file:///m/2.json", Form::kJson,
                   std::make_shared<const std::string>(200, 'z'));
  EXPECT_EQ(cache.usage(Form::kJson).entries, 2u);
  EXPECT_EQ(cache.usage(Form::kRefsJson).entries, 1u);
  // Past the bound: the least recently used (1.json's JSON) goes.
  cache.InsertJson("file:///m/3.json", Form::kJson,
                   std::make_shared<const std::string>(200, 'w'));
  cache.InsertJson("file:///m/4.json", Form::kJson,
                   std::make_shared<const std::string>(200, 'v'));
  EXPECT_EQ(cache.usage(Form::kJson).bytes + cache.usage(Form::kRefsJson).bytes,
            cache.size_bytes());
  EXPECT_EQ(cache.FindJson("file:///m/1.json", Form::kJson), nullptr);
  EXPECT_EQ(cache.usage(Form::kJson).entries, 3u);
}

TEST(OpMetricsTest, LanceManifestCacheCountsLookups) {
  const char* lance = "lance-manifest";
  std::string before = Exposition();
  LanceManifestCache cache;
  const std::string key = LanceManifestCache::KeyOf(7, "file:///l/_versions/1.manifest");
  EXPECT_EQ(cache.Find(key), nullptr);
  cache.Insert(key, std::make_shared<const lance::LanceManifest>());
  EXPECT_NE(cache.Find(key), nullptr);
  std::string after = Exposition();
  EXPECT_EQ(Sample(after, CacheSeries("hits_total", lance)) -
                Sample(before, CacheSeries("hits_total", lance)),
            1);
  EXPECT_EQ(Sample(after, CacheSeries("misses_total", lance)) -
                Sample(before, CacheSeries("misses_total", lance)),
            1);
  EXPECT_EQ(Sample(after, CacheSeries("entries", lance)) -
                Sample(before, CacheSeries("entries", lance)),
            1);
}

}  // namespace
}  // namespace cairn
