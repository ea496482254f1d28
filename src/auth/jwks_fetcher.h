#pragma once

/// \file
/// \brief Fetching an OIDC issuer's JWK Set (its `jwks_uri`) over HTTP(S) with libcurl,
/// and the seam `OidcVerifier` fetches through (`JwksFetcher`), so that tests can stand
/// in for the issuer.
///
/// The issuer is a remote party: the transfer is bounded in time (connect and total
/// timeouts) and size (`max_body_bytes`, aborted beyond), speaks only http and https
/// (redirects included, and never from https down to http), and verifies TLS against the
/// system CA store or a configured CA file. Errors name the URL and the HTTP status,
/// never the body: a misconfigured endpoint may answer with anything, secrets included.

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "auth/jwk.h"
#include "common/result.h"

namespace cairn {

/// \brief The largest JWK Set body read (`ParseJwks` refuses larger documents anyway).
inline constexpr size_t kMaxJwksBodyBytes = 256 * 1024;
/// \brief The longest JWKS URL accepted.
inline constexpr size_t kMaxJwksUrlBytes = 2048;

/// \brief How a JWK Set is fetched.
struct JwksFetchOptions {
  /// Time to establish the connection (TCP and TLS).
  std::chrono::milliseconds connect_timeout{5000};
  /// Time for the whole transfer, redirects included.
  std::chrono::milliseconds total_timeout{10000};
  /// The largest body read; a longer one fails the fetch. At most `kMaxJwksBodyBytes`.
  size_t max_body_bytes = kMaxJwksBodyBytes;
  /// Redirects followed (0: none); each must stay on http/https, and an https URL's
  /// redirects on https.
  int max_redirects = 3;
  /// A PEM file of CA certificates to trust instead of the system store (for an issuer
  /// behind a private CA); empty for the system store.
  std::string ca_file;
};

/// \brief Fetches the current keys of one issuer. Called by `OidcVerifier` from one
/// thread at a time, never under a lock. Errors: as `FetchJwks`.
using JwksFetcher = std::function<Result<VerificationKeys>()>;

/// \brief Checks a JWKS URL before any use: at most `kMaxJwksUrlBytes`, an absolute
/// `http` or `https` URL with a host, no user or password (they would end up in error
/// messages), no fragment and no control characters or spaces. Errors: `kInvalidConfig`.
Status ValidateJwksUrl(std::string_view url);

/// \brief Checks fetch options: positive timeouts, `max_body_bytes` in (0,
/// kMaxJwksBodyBytes], `max_redirects` in [0, 10]. Errors: `kInvalidConfig`.
Status ValidateJwksFetchOptions(const JwksFetchOptions& options);

/// \brief GETs `url` and parses the body as a JWK Set (`ParseJwks`). Thread-safe; each
/// call uses its own connection (fetches are rare: `OidcVerifier` spaces them out).
/// Errors: `kInvalidConfig` when `url` or `options` are invalid (as the validators);
/// `kServiceUnavailable` when the issuer cannot be reached, the transfer times out or it
/// answers a status other than 2xx (redirects it does not follow included);
/// `kIOError` when the body is larger than `options.max_body_bytes`, is not a JWK Set,
/// or holds no signature key Cairn can use. Messages name the URL and the status, never
/// the body.
Result<VerificationKeys> FetchJwks(std::string_view url, const JwksFetchOptions& options);

/// \brief A `JwksFetcher` that calls `FetchJwks(url, options)`.
JwksFetcher MakeHttpJwksFetcher(std::string url, JwksFetchOptions options);

}  // namespace cairn
