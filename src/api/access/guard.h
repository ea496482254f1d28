#pragma once

/// \file
/// \brief Authorization at the routes: every route declares a rule — what privilege its
/// caller needs on which object — and its handler is wrapped so that the rule is checked
/// before the handler acts. A request without a caller (authentication off) passes every
/// check. Denials are `kForbidden` and are decided from names alone, never from whether
/// the object exists, so a 403 tells a caller nothing it could not list.

#include <functional>
#include <string>
#include <string_view>

#include "auth/privilege.h"
#include "common/result.h"
#include "http/request.h"
#include "http/router.h"

namespace cairn {

/// \brief How a route's rule is checked.
enum class AccessMode {
  kPublic,     ///< no authentication (health, metrics, the token endpoint)
  kRequire,    ///< `privilege` on the target, before the handler runs
  kList,       ///< `privilege` (a *_LIST) on the container, or the caller may see into
               ///< it: then the handler lists only what the caller may see
  kSee,        ///< the caller may see the target (some grant on it, above or below)
  kInHandler,  ///< authenticated; the handler checks the objects its body names
};

/// \brief A route's rule. `target` says in words what the privilege is checked on ("the
/// table", "the parent namespace of the body's namespace"): the docs' route table.
struct AccessRule {
  AccessMode mode = AccessMode::kRequire;
  Privilege privilege = Privilege::kServiceAdmin;
  std::string_view target;
};

/// \brief The object a rule is checked on, from the request's path captures.
using TargetOf = std::function<Result<Securable>(const Request&)>;

/// \brief `handler` preceded by the rule's check. `target` is unused for kPublic and
/// kInHandler. Errors of the check: the target's (a malformed path: 400), `kForbidden`.
Handler Guarded(const AccessRule& rule, TargetOf target, Handler handler);

/// \brief A fast path preceded by the rule's check; when the check does not pass it
/// answers nothing, so the request goes to the guarded handler, which says why.
FastHandler GuardedFast(const AccessRule& rule, TargetOf target, FastHandler fast);

/// \brief The rule in words, for `Route::access` and the docs.
std::string DescribeRule(const AccessRule& rule);

/// \brief Marks `route` with its rule (`access`, `access_mode`, `access_privilege`,
/// `authenticated`) without guarding it.
Route MarkRoute(Route route, const AccessRule& rule);

/// \brief Marks `route` with its rule and guards its handler and fast path.
Route GuardRoute(Route route, const AccessRule& rule, const TargetOf& target);

/// \brief For handlers: passes when the request has no caller or the caller holds
/// `privilege` on `target`. Errors: `kForbidden` naming the principal, privilege and
/// object (all known to the caller already).
Status Authorize(const Request& request, Privilege privilege, const Securable& target);

/// \brief For listings: whether `child` belongs in the answer — no caller, or the caller
/// holds `list_privilege` on `container`, or may see `child`.
bool Listable(const Request& request, Privilege list_privilege,
              const Securable& container, const Securable& child);

/// \brief `catalog.ns.name` as messages print an object.
std::string SecurableText(const Securable& securable);

}  // namespace cairn
