#include "api/access/guard.h"

#include <utility>

#include <fmt/format.h>

#include "common/macros.h"

namespace cairn {
namespace {

/// Passes when the request may go on to the handler under `rule`.
Status Check(const AccessRule& rule, const TargetOf& target, const Request& request) {
  if (request.caller == nullptr) return Ok();
  switch (rule.mode) {
    case AccessMode::kPublic:
    case AccessMode::kInHandler:
      return Ok();
    case AccessMode::kRequire: {
      CAIRN_ASSIGN_OR_RAISE(Securable on, target(request));
      return Authorize(request, rule.privilege, on);
    }
    case AccessMode::kList:
    case AccessMode::kSee: {
      CAIRN_ASSIGN_OR_RAISE(Securable on, target(request));
      const bool listed_whole =
          rule.mode == AccessMode::kList && request.caller->Allows(rule.privilege, on);
      if (listed_whole || request.caller->MaySee(on)) return Ok();
      return Forbidden("Forbidden: principal '{}' has no grant on or inside {}",
                       request.caller->principal, SecurableText(on));
    }
  }
  return Internal("Unknown access mode");
}

}  // namespace

std::string SecurableText(const Securable& securable) {
  std::string text(SecurableKindName(securable.kind));
  if (securable.kind == SecurableKind::kService) return text;
  text += " " + securable.catalog;
  for (const auto& level : securable.ns) text += "." + level;
  if (!securable.name.empty()) text += "." + securable.name;
  return text;
}

Status Authorize(const Request& request, Privilege privilege, const Securable& target) {
  if (request.caller == nullptr || request.caller->Allows(privilege, target)) return Ok();
  return Forbidden("Forbidden: principal '{}' lacks {} on {}", request.caller->principal,
                   PrivilegeName(privilege), SecurableText(target));
}

bool Listable(const Request& request, Privilege list_privilege,
              const Securable& container, const Securable& child) {
  return request.caller == nullptr || request.caller->Allows(list_privilege, container) ||
         request.caller->MaySee(child);
}

Handler Guarded(const AccessRule& rule, TargetOf target, Handler handler) {
  return [rule, target = std::move(target),
          handler = std::move(handler)](const Request& request) -> Result<Response> {
    CAIRN_RETURN_IF_ERROR(Check(rule, target, request));
    return handler(request);
  };
}

FastHandler GuardedFast(const AccessRule& rule, TargetOf target, FastHandler fast) {
  if (!fast) return {};
  return [rule, target = std::move(target),
          fast = std::move(fast)](const Request& request) -> std::optional<Response> {
    if (!Check(rule, target, request)) return std::nullopt;
    return fast(request);
  };
}

std::string DescribeRule(const AccessRule& rule) {
  const std::string_view privilege = PrivilegeName(rule.privilege);
  switch (rule.mode) {
    case AccessMode::kPublic:
      return "public (no authentication)";
    case AccessMode::kRequire:
      return fmt::format("{} on {}", privilege, rule.target);
    case AccessMode::kList:
      return fmt::format("{} on {}, else only what the caller may see", privilege,
                         rule.target);
    case AccessMode::kSee:
      return fmt::format("a grant on, above or inside {}", rule.target);
    case AccessMode::kInHandler:
      return std::string(rule.target);
  }
  return {};
}

Route MarkRoute(Route route, const AccessRule& rule) {
  static constexpr std::string_view kModeNames[] = {"public", "require", "list", "see",
                                                    "in-handler"};
  route.access = DescribeRule(rule);
  route.access_mode = std::string(kModeNames[static_cast<size_t>(rule.mode)]);
  const bool names_privilege =
      rule.mode == AccessMode::kRequire || rule.mode == AccessMode::kList;
  route.access_privilege =
      names_privilege ? std::string(PrivilegeName(rule.privilege)) : "";
  route.authenticated = rule.mode != AccessMode::kPublic;
  return route;
}

Route GuardRoute(Route route, const AccessRule& rule, const TargetOf& target) {
  route = MarkRoute(std::move(route), rule);
  route.handler = Guarded(rule, target, std::move(route.handler));
  route.fast = GuardedFast(rule, target, std::move(route.fast));
  return route;
}

}  // namespace cairn
