#pragma once

/// \file
/// \brief The server's TLS context: a certificate chain and its private key read from PEM
/// files into an Asio `ssl::context` with secure defaults, and the holder that swaps a
/// freshly loaded context in on reload while open connections keep the one they started
/// with. Internal to the `http` layer (it includes Asio's SSL headers).

#include <cstddef>
#include <memory>
#include <string>

#include <boost/asio/ssl/context.hpp>

#include "common/mutex.h"
#include "common/result.h"
#include "http/server.h"

namespace cairn {

/// A certificate chain or key file larger than this is refused unread: real ones are a
/// few KiB, and a wrong path (a device, a log file) must not be read whole.
inline constexpr size_t kMaxTlsFileBytes = size_t{1} << 20;

using TlsContextPtr = std::shared_ptr<boost::asio::ssl::context>;

/// \brief A server context holding the chain of `options.cert_file` and the key of
/// `options.key_file`, with TLS ≥ `options.min_version`, forward-secret AEAD cipher
/// suites only (TLS 1.2), the server's cipher preference, and neither compression nor
/// renegotiation. An encrypted key is refused (no passphrase prompt, ever).
/// Errors: `kInvalidConfig` when a file is missing, not a regular file, larger than
/// `kMaxTlsFileBytes` or not valid PEM, or when the key does not match the certificate.
/// The message starts with the setting (`tls-cert-file: ...`), names the file and never
/// holds the key's contents. `kInternal` when OpenSSL cannot make a context at all.
Result<TlsContextPtr> LoadTlsContext(const TlsOptions& options);

/// \brief What the log says about a context's certificate.
struct TlsCertificateInfo {
  /// `subject=<RFC 2253 name> not_after=<date>`: printable, at most 512 bytes.
  std::string description;
  bool expired = false;
};

/// \brief The subject and expiry of `context`'s certificate.
TlsCertificateInfo DescribeTlsCertificate(boost::asio::ssl::context& context);

/// \brief The context new connections use. Thread-safe.
class TlsContextHolder {
 public:
  /// \brief Loads the first context. Errors: as `LoadTlsContext`.
  static Result<std::unique_ptr<TlsContextHolder>> Open(const TlsOptions& options);

  /// \brief The current context; a connection keeps the pointer for its lifetime.
  TlsContextPtr Current() const;

  /// \brief Loads the files again; on success the new context becomes current, on failure
  /// the current one stays. Errors: as `LoadTlsContext`.
  Status Reload();

 private:
  TlsContextHolder(TlsOptions options, TlsContextPtr first);

  const TlsOptions options_;
  mutable Mutex mutex_;
  TlsContextPtr current_ CAIRN_GUARDED_BY(mutex_);
};

}  // namespace cairn
