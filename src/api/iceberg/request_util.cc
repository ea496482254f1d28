#include "api/iceberg/request_util.h"

#include <charconv>

#include "common/macros.h"
#include "common/strings.h"
#include "common/url_codec.h"

namespace cairn::iceberg_rest {

Result<std::string> CatalogOf(const Request& request) {
  return FormDecodeSegment(request.PathParam("prefix"));
}

Result<NamespacePath> NamespaceOf(const Request& request) {
  return DecodeNamespaceSegment(request.PathParam("namespace"));
}

Result<ViewIdent> ViewOf(const Request& request) {
  ViewIdent ident;
  CAIRN_ASSIGN_OR_RAISE(ident.ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(ident.name, FormDecodeSegment(request.PathParam("view")));
  return ident;
}

NamespacePath SplitParent(std::string_view parent) {
  // The separator Cairn advertises for multi-level namespaces in paths and `parent`.
  constexpr char kNamespaceSeparator = '\x1f';
  NamespacePath levels;
  if (parent.empty()) return levels;  // the spec treats an empty parent as absent
  size_t start = 0;
  for (;;) {
    const size_t pos = parent.find(kNamespaceSeparator, start);
    levels.emplace_back(parent.substr(start, pos - start));
    if (pos == std::string_view::npos) return levels;
    start = pos + 1;
  }
}

Result<TableIdent> TableOf(const Request& request) {
  TableIdent ident;
  CAIRN_ASSIGN_OR_RAISE(ident.ns, NamespaceOf(request));
  CAIRN_ASSIGN_OR_RAISE(ident.name, FormDecodeSegment(request.PathParam("table")));
  return ident;
}

Result<PageRequest> PageOf(const Request& request) {
  const auto token = request.QueryParam("pageToken");
  const auto raw_size = request.QueryParam("pageSize");
  PageRequest page{std::string(token.value_or("")), std::nullopt};
  if (raw_size) {
    size_t value = 0;
    const auto* end = raw_size->data() + raw_size->size();
    const auto [ptr, ec] = std::from_chars(raw_size->data(), end, value);
    if (raw_size->empty() || ec != std::errc() || ptr != end || value == 0) {
      return BadRequest("Invalid pageSize '{}': expected a positive integer", *raw_size);
    }
    page.page_size = value;
  } else if (token) {
    // A paginating client without a size gets server-sized pages; without pageToken and
    // pageSize the spec asks for everything in one response.
    page.page_size = kMaxPageSize;
  }
  return page;
}

Status CheckBodyIdentifier(const std::optional<TableIdent>& body, const TableIdent& path,
                           std::string_view kind) {
  if (!body || (body->ns == path.ns && body->name == path.name)) return Ok();
  return BadRequest("Invalid field 'identifier': {} does not match the {} in the path {}",
                    DottedName(*body), kind, DottedName(path));
}

bool AsksFor(const Request& request, std::string_view mechanism) {
  auto header = request.Header("x-iceberg-access-delegation");
  if (!header) return false;
  std::string_view rest = *header;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (EqualsIgnoreCase(item, mechanism)) return true;
  }
  return false;
}

bool AsksForCredentials(const Request& request) {
  return AsksFor(request, "vended-credentials");
}

}  // namespace cairn::iceberg_rest
