#pragma once

/// \file
/// \brief The keys requests to S3 are signed with (by libcurl in `s3_client.cc`, by
/// Cairn's own SigV4 in `sigv4.h`).

#include <string>

namespace cairn {

/// \brief An access key, its secret and an optional session token. The secret and the
/// token are never printed, logged or put in an error message.
struct S3Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  /// For temporary credentials (STS); empty otherwise.
  std::string session_token;
};

}  // namespace cairn
