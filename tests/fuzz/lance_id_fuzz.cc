// libFuzzer harness: how the Lance REST handlers read an object's id. The input is three
// parts separated by newlines:
//   line 1: the raw query string (`delimiter=%24&limit=10`), parsed as the server parses
//           a request target;
//   line 2: the raw `{id}` path segment;
//   rest:   the request body.
// It runs what `TargetOf` / `TargetAgreeingWith` do — `DelimiterOf`, `PathIdOf`, every
// body parser that carries an id, `CheckBodyId` — plus the query helpers, and checks
// that `SplitId` and `JoinId` are inverse.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <boost/url/parse.hpp>

#include "api/lance/json_serde.h"
#include "api/lance/request_util.h"
#include "fuzz_check.h"

namespace {

using cairn::LanceId;

template <class Body>
void CheckAgainstPath(const cairn::Result<Body>& body, const LanceId& path_id,
                      const std::string& delimiter) {
  if (body) (void)cairn::lance_rest::CheckBodyId(path_id, body->id, delimiter);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cairn;
  using namespace cairn::lance_rest;
  std::string_view input = fuzz::AsText(data, size);
  const std::string_view query = fuzz::TakeLine(input);
  const std::string_view raw_id = fuzz::TakeLine(input);

  Request request;
  request.method = "POST";
  const std::string target = "/lance/v1/table/x/describe?" + std::string(query);
  auto url = boost::urls::parse_origin_form(target);
  if (!url) return 0;  // the server answers 400 before any handler runs
  for (const auto& param : url->params())
    request.query.emplace_back(param.key, param.value);
  request.path_params.emplace_back("id", std::string(raw_id));
  request.body = std::string(input);

  for (const auto& [key, value] : request.query) {
    (void)ParsePageSize(value, key);
    (void)QueryFlag(request, key, false);
    (void)KeywordKey(value);
  }

  auto delimiter = DelimiterOf(request);
  if (!delimiter) return 0;
  auto path_id = PathIdOf(request, *delimiter);
  if (!path_id) return 0;
  // SplitId ∘ JoinId is the identity on everything SplitId returns.
  const std::string joined = JoinId(*path_id, *delimiter);
  auto split = SplitId(joined, *delimiter);
  FUZZ_CHECK(split.has_value());
  FUZZ_CHECK(*split == *path_id);
  // A body naming the path's own id always agrees with it.
  FUZZ_CHECK(
      CheckBodyId(*path_id, std::optional<LanceId>(*path_id), *delimiter).has_value());

  const std::string& d = *delimiter;
  const std::string_view body = request.body;
  CheckAgainstPath(NamespaceIdRequestFromJson(body), *path_id, d);
  CheckAgainstPath(TableIdRequestFromJson(body), *path_id, d);
  CheckAgainstPath(CreateNamespaceRequestFromJson(body), *path_id, d);
  CheckAgainstPath(ListRequestFromJson(body), *path_id, d);
  CheckAgainstPath(DropNamespaceRequestFromJson(body), *path_id, d);
  CheckAgainstPath(DescribeTableRequestFromJson(body), *path_id, d);
  CheckAgainstPath(RegisterTableRequestFromJson(body), *path_id, d);
  CheckAgainstPath(DeclareTableRequestFromJson(body), *path_id, d);
  if (auto rename = RenameTableRequestFromJson(body)) {
    (void)CheckBodyId(*path_id, rename->id, d);
    if (rename->new_namespace_id) (void)JoinId(*rename->new_namespace_id, d);
  }
  (void)TransactionRequestFromJson(body);
  (void)AlterTransactionRequestFromJson(body);
  return 0;
}
