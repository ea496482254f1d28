#pragma once

/// \file
/// \brief What every Lance REST handler reads from a request: the delimiter, the `{id}`
/// path segment as a `LanceId`, the agreement of a body id with it, paging and flags from
/// the query string, and mode keywords in any of the spellings clients send.

#include <optional>
#include <string>
#include <string_view>

#include "catalog/lance_service.h"
#include "common/result.h"
#include "http/request.h"

namespace cairn::lance_rest {

/// \brief The `delimiter` query parameter, else `.` — the 0.0.1 spec's default
/// (DESIGN.md §4; today's clients always send `$` explicitly). Errors: `kBadRequest` when
/// it is empty.
Result<std::string> DelimiterOf(const Request& request);

/// \brief Splits a decoded string identifier on `delimiter`. The delimiter itself (or an
/// empty string) is the root. Errors: `kBadRequest` for an empty level (`a$$b`, `$a`).
Result<LanceId> SplitId(std::string_view text, std::string_view delimiter);

/// \brief Inverse of `SplitId`: the levels joined, or the delimiter for the root.
std::string JoinId(const LanceId& id, std::string_view delimiter);

/// \brief The `{id}` capture, percent-decoded with form rules (`+` is a space, as the
/// Rust client encodes), then split. Errors: `kBadRequest`.
Result<LanceId> PathIdOf(const Request& request, std::string_view delimiter);

/// \brief The path is authoritative; a body that names an object must name the same one.
/// Errors: `kBadRequest` when a body level contains the delimiter (such a name cannot be
/// addressed with it) or the ids differ.
Status CheckBodyId(const LanceId& path_id, const std::optional<LanceId>& body_id,
                   std::string_view delimiter);

/// \brief The table (or other object) of the path's `{id}`, split with the request's
/// delimiter; a body that names one must name the same. Errors: those of `DelimiterOf`,
/// `PathIdOf` and `CheckBodyId`.
Result<LanceId> PathIdAgreeingWith(const Request& request,
                                   const std::optional<LanceId>& body_id);

/// \brief The branch a request names: the body's, else the query string's `branch`
/// (LanceDB sends it there on a list); empty for the main branch.
std::string BranchOf(const Request& request, const std::optional<std::string>& body);

/// \brief A keyword folded for comparison: lower case, underscores dropped
/// (`EXIST_OK`, `ExistOk`, `exist_ok` ⇒ `existok`).
std::string KeywordKey(std::string_view keyword);

/// \brief A positive page size. Errors: `kBadRequest` naming `what`.
Result<size_t> ParsePageSize(std::string_view text, std::string_view what);

/// \brief The query parameter `name` as a boolean (`true`/`false`, any case), or
/// `fallback` when absent. Errors: `kBadRequest`.
Result<bool> QueryFlag(const Request& request, std::string_view name, bool fallback);

}  // namespace cairn::lance_rest
