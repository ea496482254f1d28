#pragma once

/// \file
/// \brief The paging query of the management API's listings: `pageSize` (1 to 1000,
/// default 100) and `pageToken` (the last name or id of the page before).

#include <cstddef>
#include <string>

#include "common/result.h"
#include "http/request.h"

namespace cairn {

struct PageQuery {
  static constexpr size_t kDefaultSize = 100;
  static constexpr size_t kMaxSize = 1000;

  std::string after;  ///< empty: from the first
  size_t size = kDefaultSize;
};

/// \brief The page a listing request asks for. Errors: `kBadRequest` naming `pageSize`
/// when it is not a whole number from 1 to 1000.
Result<PageQuery> PageQueryOf(const Request& request);

}  // namespace cairn
