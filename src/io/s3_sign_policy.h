#pragma once

/// \file
/// \brief The checks of `s3_request_signing.h` (what may be signed), apart from the
/// signing itself. Internal to the io layer; pure and thread-safe.

#include <string>

#include "common/result.h"
#include "io/s3_request_signing.h"
#include "io/s3_sign_target.h"

namespace cairn {

/// \brief Checks `request`, aimed at `target`, against `scope` (the rules of
/// `s3_request_signing.h`); returns the payload hash to sign: the SHA-256 of the body
/// for DeleteObjects, otherwise the request's `x-amz-content-sha256` (a hex digest,
/// `UNSIGNED-PAYLOAD` or `STREAMING-UNSIGNED-PAYLOAD-TRAILER`), `UNSIGNED-PAYLOAD`
/// without one. Errors: as `SignS3Request`.
Result<std::string> CheckS3SignPolicy(const S3SignRequest& request,
                                      const S3SignTarget& target,
                                      const S3SigningScope& scope);

/// \brief The values of header `name` (any case), in map order; empty when absent.
std::vector<std::string> HeaderValues(const HttpHeaderMap& headers,
                                      std::string_view name);

}  // namespace cairn
