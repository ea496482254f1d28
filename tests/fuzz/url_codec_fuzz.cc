// libFuzzer harness: URL and path-segment decoding. The input is used twice:
//   - as one raw segment for the codec in common/url_codec (`FormDecodeSegment`,
//     `DecodeNamespaceSegment`, `HexDecode`), with the exact round trips checked
//     (encode then decode gives the input back);
//   - as a request target, taken apart as the server does it (`parse_origin_form`, the
//     router's match on the real route patterns of both protocols) and its captures
//     decoded as the Iceberg and Lance handlers decode them.

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <boost/url/parse.hpp>

#include "api/iceberg/request_util.h"
#include "api/iceberg/routes.h"
#include "api/lance/request_util.h"
#include "api/lance/routes.h"
#include "common/url_codec.h"
#include "fuzz_check.h"
#include "http/router.h"

namespace {

using namespace cairn;

/// The route table's patterns, with handlers that are never called.
const Router& Routes() {
  static const Router router = [] {
    Router r;
    auto add = [&r](const std::string& endpoint, Protocol protocol) {
      const size_t space = endpoint.find(' ');
      r.Add(Route{
          endpoint.substr(0, space), endpoint.substr(space + 1), protocol, false,
          [](const Request&) -> Result<Response> { return Response::NoContent(); }});
    };
    for (const std::string base : {"/iceberg", ""}) {
      add("GET " + base + "/v1/config", Protocol::kIceberg);
      for (const auto& endpoint : iceberg_rest::AdvertisedEndpoints()) {
        const size_t space = endpoint.find(' ');
        std::string with =
            endpoint.substr(0, space + 1) + base + endpoint.substr(space + 1);
        add(with, Protocol::kIceberg);
        // As served without the `{prefix}` segment too.
        std::string without = with;
        const size_t prefix = without.find("/{prefix}");
        if (prefix != std::string::npos) without.erase(prefix, 9);
        add(without, Protocol::kIceberg);
      }
    }
    for (const auto& endpoint : lance_rest::LanceEndpoints())
      add(endpoint, Protocol::kLance);
    return r;
  }();
  return router;
}

void CheckCodec(std::string_view raw) {
  (void)FormDecodeSegment(raw);

  // Encoding is exact: every byte comes back, `+` and spaces included.
  auto decoded = FormDecodeSegment(PercentEncodeSegment(raw));
  FUZZ_CHECK(decoded.has_value());
  FUZZ_CHECK(*decoded == raw);

  if (auto levels = DecodeNamespaceSegment(raw)) {
    FUZZ_CHECK(!levels->empty());
    // Levels re-encoded and joined with %1F decode to the same levels (a level holding a
    // 0x1F byte cannot be encoded that way, so such inputs are left out).
    const bool has_unit_separator = std::any_of(
        levels->begin(), levels->end(),
        [](const std::string& level) { return level.find('\x1f') != std::string::npos; });
    if (!has_unit_separator) {
      std::string joined;
      for (size_t i = 0; i < levels->size(); ++i) {
        if (i > 0) joined += "%1F";
        joined += PercentEncodeSegment((*levels)[i]);
      }
      auto again = DecodeNamespaceSegment(joined);
      FUZZ_CHECK(again.has_value());
      FUZZ_CHECK(*again == *levels);
    }
  }

  auto unhexed = HexDecode(HexEncode(raw), "token");
  FUZZ_CHECK(unhexed.has_value());
  FUZZ_CHECK(*unhexed == raw);
  if (auto bytes = HexDecode(raw, "token")) {
    std::string lower(raw);
    for (char& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    FUZZ_CHECK(HexEncode(*bytes) == lower);
  }
}

void DecodeCaptures(const Request& request, Protocol protocol) {
  if (protocol == Protocol::kLance) {
    if (auto delimiter = lance_rest::DelimiterOf(request)) {
      (void)lance_rest::PathIdOf(request, *delimiter);
    }
    return;
  }
  (void)iceberg_rest::CatalogOf(request);
  (void)iceberg_rest::NamespaceOf(request);
  (void)iceberg_rest::TableOf(request);
  (void)iceberg_rest::PageOf(request);
  (void)FormDecodeSegment(request.PathParam("view"));
}

void CheckTarget(std::string_view target) {
  auto url = boost::urls::parse_origin_form(target);
  if (!url) return;
  Request request;
  request.path = std::string(url->encoded_path());
  for (const auto& param : url->params())
    request.query.emplace_back(param.key, param.value);
  const Router& router = Routes();
  for (const char* method : {"GET", "POST", "HEAD", "DELETE"}) {
    RouteMatch match = router.Match(method, request.path);
    if (match.kind != RouteMatch::Kind::kFound) continue;
    FUZZ_CHECK(match.route_index < router.routes().size());
    request.method = method;
    request.path_params = std::move(match.params);
    DecodeCaptures(request, router.routes()[match.route_index].protocol);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input = cairn::fuzz::AsText(data, size);
  CheckCodec(input);
  CheckTarget(input);
  return 0;
}
