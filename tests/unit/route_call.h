#pragma once

/// \file
/// \brief Calls a route of a `Router` as the server does once it has parsed a request:
/// the route that the method and path match, with its path parameters, the query and the
/// body. For handler tests that need no socket.

#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "http/request.h"
#include "http/router.h"
#include "matchers.h"

namespace cairn::test {

/// \brief The response of the route `method` `path` matches in `router`. A path that no
/// route matches, or a handler that returns an error instead of rendering it, fails the
/// test (and gives an empty response).
inline Response CallRoute(const Router& router, const std::string& method,
                          const std::string& path,
                          std::vector<std::pair<std::string, std::string>> query,
                          const std::string& body) {
  auto match = router.Match(method, path);
  if (match.kind != RouteMatch::Kind::kFound) {
    ADD_FAILURE() << "no route for " << method << " " << path;
    return Response{};
  }
  Request request;
  request.method = method;
  request.path = path;
  request.path_params = match.params;
  request.query = std::move(query);
  request.body = body;
  auto result = router.routes()[match.route_index].handler(request);
  EXPECT_THAT(result, IsOk());  // errors come back as rendered responses
  return result ? *result : Response{};
}

}  // namespace cairn::test
