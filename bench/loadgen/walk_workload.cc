// `walk`: W5's pagination check — follow next-page-token through a whole listing, time
// every page, and report the per-page median over several walks, so that a page time
// growing with the offset shows up as a rising curve.

#include <algorithm>

#include <boost/json/parse.hpp>

#include "common/macros.h"
#include "loadgen/catalog_calls.h"
#include "loadgen/driver.h"
#include "loadgen/tally.h"
#include "loadgen/workloads.h"

namespace cairn::bench {
namespace {

struct Page {
  uint64_t micros = 0;
  size_t items = 0;
  std::optional<std::string> next_token;
};

/// Items and next-page-token of a listing page (`namespaces` or `identifiers`).
Result<Page> ParsePage(std::string_view body) {
  boost::system::error_code ec;
  const boost::json::value parsed = boost::json::parse(body, ec);
  if (ec || !parsed.is_object()) return BadRequest("listing page is not a JSON object");
  const boost::json::object& object = parsed.get_object();
  const boost::json::value* items = object.if_contains("namespaces");
  if (items == nullptr) items = object.if_contains("identifiers");
  if (items == nullptr || !items->is_array()) {
    return BadRequest("listing page has neither a namespaces nor an identifiers array");
  }
  Page page;
  page.items = items->get_array().size();
  const boost::json::value* token = object.if_contains("next-page-token");
  if (token != nullptr && token->is_string()) page.next_token = token->get_string();
  return page;
}

/// One whole walk; every page's latency and item count, in order.
asio::awaitable<Result<std::vector<Page>>> WalkOnce(HttpConnection& connection,
                                                    const ServerTarget& target,
                                                    const WalkOptions& options) {
  const char separator = options.path.find('?') == std::string::npos ? '?' : '&';
  const std::string first =
      fmt::format("{}{}pageSize={}", options.path, separator, options.page_size);
  std::vector<Page> pages;
  std::string path = first;
  for (;;) {
    const Request request = MakeRequest(target, http::verb::get, path);
    const auto start = Clock::now();
    auto sent = co_await connection.Send(request);
    const auto done = Clock::now();
    auto response = Expect(std::move(sent), {200}, fmt::format("GET {}", path));
    if (!response) co_return tl::unexpected(response.error());
    auto page = ParsePage(response->body());
    if (!page) co_return tl::unexpected(page.error());
    page->micros = MicrosBetween(start, done);
    pages.push_back(*page);
    if (!page->next_token) co_return pages;
    path = first + "&pageToken=" + EncodeComponent(*page->next_token);
  }
}

uint64_t Median(std::vector<uint64_t> values) {
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

Result<boost::json::object> RunWalk(const CommonOptions& common,
                                    const WalkOptions& options) {
  CAIRN_PRECHECK(options.page_size >= 1, "--page-size must be at least 1");
  CAIRN_PRECHECK(options.repeat >= 1, "--repeat must be at least 1");
  CAIRN_ASSIGN_OR_RAISE(const ServerTarget target,
                        ResolveTarget(common.url, common.token_env));
  auto walks =
      RunBlocking([&]() -> asio::awaitable<Result<std::vector<std::vector<Page>>>> {
        HttpConnection connection(co_await asio::this_coro::executor, target,
                                  std::chrono::milliseconds(common.timeout_ms));
        std::vector<std::vector<Page>> all;
        for (int i = 0; i < options.repeat; ++i) {
          auto walk = co_await WalkOnce(connection, target, options);
          if (!walk) co_return tl::unexpected(walk.error());
          all.push_back(std::move(*walk));
        }
        co_return all;
      }());
  if (!walks) return tl::unexpected(walks.error());

  // Walks of a listing nobody changes have the same pages; compare index by index over
  // the pages every walk saw.
  size_t pages = walks->front().size();
  for (const auto& walk : *walks) {
    if (walk.size() != pages) {
      fmt::print(stderr, "walk: page counts differ between walks ({} vs {})\n",
                 walk.size(), pages);
      pages = std::min(pages, walk.size());
    }
  }
  boost::json::array page_latency;
  Histogram all_pages;
  for (size_t p = 0; p < pages; ++p) {
    std::vector<uint64_t> samples;
    for (const auto& walk : *walks) samples.push_back(walk[p].micros);
    page_latency.push_back(Median(samples));
  }
  for (const auto& walk : *walks) {
    for (const Page& page : walk) all_pages.Record(page.micros);
  }
  size_t items = 0;
  for (const Page& page : walks->front()) items += page.items;
  return boost::json::object{
      {"subcommand", "walk"},
      {"path", options.path},
      {"pages", walks->front().size()},
      {"items", items},
      {"page_latency_us", page_latency},
      {"first_page_us",
       page_latency.empty() ? boost::json::value(0) : page_latency.front()},
      {"last_page_us",
       page_latency.empty() ? boost::json::value(0) : page_latency.back()},
      {"latency_us", all_pages.ToJson()},
  };
}

}  // namespace cairn::bench
