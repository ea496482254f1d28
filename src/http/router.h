#pragma once

/// \file
/// \brief The route table as data: (method, path pattern) → handler. Patterns are paths
/// whose segments are literals or `{name}` captures. Matching works on raw segments, so a
/// `%2F` inside a capture never creates a new segment.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "http/request.h"

namespace cairn {

using Handler = std::function<Result<Response>(const Request&)>;
/// \brief A handler's fast path: the response when it can be made without waiting (from
/// memory and point reads of an embedded store), or nullopt to run the handler.
using FastHandler = std::function<std::optional<Response>(const Request&)>;

/// \brief One row of the route table.
struct Route {
  std::string method;   ///< "GET", "POST", "HEAD", "DELETE", ...
  std::string pattern;  ///< e.g. "/iceberg/v1/{prefix}/namespaces/{namespace}"
  Protocol protocol = Protocol::kIceberg;
  /// True when the handler may block (store, files): it then runs on the worker pool.
  bool blocking = true;
  Handler handler;
  /// Optional: tried on the I/O thread first when the server allows it
  /// (`HttpOptions::inline_fast_paths`), saving the hand-off to a worker.
  FastHandler fast = {};
  /// False for a public route (health, metrics, the token endpoint): the server then
  /// authenticates nobody. Every other route's requests carry their caller.
  bool authenticated = true;
  /// What the route requires of its caller, in words (e.g. "TABLE_READ on the table"),
  /// as `docs/SECURITY.md` lists it; empty when it requires nothing.
  std::string access = {};
  /// The same as data, for tools and tests: how the rule is checked ("public",
  /// "require", "list", "see", "in-handler") and the privilege it names, if one.
  std::string access_mode = {};
  std::string access_privilege = {};
};

/// \brief The outcome of matching a request against the table.
struct RouteMatch {
  enum class Kind { kFound, kNotFound, kMethodNotAllowed };
  Kind kind = Kind::kNotFound;
  /// Index of the matched route (valid when `kind == kFound`).
  size_t route_index = 0;
  /// Captures of the matched route, raw.
  std::vector<std::pair<std::string, std::string>> params;
  /// Methods the path accepts (filled for `kMethodNotAllowed`), comma-separated.
  std::string allowed;
};

/// \brief An immutable-after-setup route table. `Add` is not thread-safe; `Match` is.
class Router {
 public:
  /// \brief Adds a route. A pattern must start with `/`.
  void Add(Route route);

  /// \brief Finds the route for a method and raw path. When several patterns match, the
  /// most specific wins: literal segments beat captures, compared left to right. One
  /// trailing slash is ignored.
  RouteMatch Match(std::string_view method, std::string_view raw_path) const;

  const std::vector<Route>& routes() const { return routes_; }

 private:
  struct Compiled {
    std::vector<std::string> segments;  // literal text, or the capture name
    std::vector<bool> is_capture;
  };
  std::vector<Route> routes_;
  std::vector<Compiled> compiled_;
};

/// \brief Splits a raw path on `/` (the leading `/` dropped; one trailing `/` ignored).
std::vector<std::string_view> SplitPath(std::string_view raw_path);

}  // namespace cairn
