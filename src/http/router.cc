#include "http/router.h"

#include <optional>

namespace cairn {

std::vector<std::string_view> SplitPath(std::string_view raw_path) {
  std::vector<std::string_view> segments;
  if (!raw_path.empty() && raw_path.front() == '/') raw_path.remove_prefix(1);
  if (!raw_path.empty() && raw_path.back() == '/') raw_path.remove_suffix(1);
  if (raw_path.empty()) return segments;
  size_t start = 0;
  for (;;) {
    const size_t slash = raw_path.find('/', start);
    segments.push_back(raw_path.substr(start, slash - start));
    if (slash == std::string_view::npos) return segments;
    start = slash + 1;
  }
}

void Router::Add(Route route) {
  Compiled compiled;
  for (auto segment : SplitPath(route.pattern)) {
    const bool capture =
        segment.size() >= 2 && segment.front() == '{' && segment.back() == '}';
    compiled.segments.emplace_back(capture ? segment.substr(1, segment.size() - 2)
                                           : segment);
    compiled.is_capture.push_back(capture);
  }
  routes_.push_back(std::move(route));
  compiled_.push_back(std::move(compiled));
}

RouteMatch Router::Match(std::string_view method, std::string_view raw_path) const {
  const auto segments = SplitPath(raw_path);
  RouteMatch result;
  // Specificity of the best path match so far: one flag per segment, literal = true.
  std::optional<std::vector<bool>> best_for_method;
  std::optional<std::vector<bool>> best_any;
  for (size_t i = 0; i < routes_.size(); ++i) {
    const Compiled& c = compiled_[i];
    if (c.segments.size() != segments.size()) continue;
    std::vector<bool> literal(segments.size());
    bool matches = true;
    for (size_t s = 0; s < segments.size() && matches; ++s) {
      literal[s] = !c.is_capture[s];
      matches = c.is_capture[s] || c.segments[s] == segments[s];
    }
    if (!matches) continue;
    if (!best_any || literal > *best_any) {
      best_any = literal;
      result.allowed.clear();
    }
    if (literal == *best_any) {
      if (!result.allowed.empty()) result.allowed += ", ";
      result.allowed += routes_[i].method;
    }
    // HEAD is not implied by GET: routes declare HEAD explicitly where the spec has it.
    if (routes_[i].method != method) continue;
    if (!best_for_method || literal > *best_for_method) {
      best_for_method = literal;
      result.kind = RouteMatch::Kind::kFound;
      result.route_index = i;
    }
  }
  if (result.kind == RouteMatch::Kind::kFound && *best_for_method == *best_any) {
    const Compiled& c = compiled_[result.route_index];
    for (size_t s = 0; s < segments.size(); ++s) {
      if (c.is_capture[s]) result.params.emplace_back(c.segments[s], segments[s]);
    }
    result.allowed.clear();
    return result;
  }
  result.kind =
      best_any ? RouteMatch::Kind::kMethodNotAllowed : RouteMatch::Kind::kNotFound;
  return result;
}

}  // namespace cairn
