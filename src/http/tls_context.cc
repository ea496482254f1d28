// TLS contexts from PEM files. The certificate chain goes through Asio's loader; the key
// is parsed here with OpenSSL so that an encrypted key fails instead of prompting for a
// passphrase on the terminal, and so that "not a key" and "not this certificate's key"
// get different messages.

#include "http/tls_context.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <utility>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include "common/macros.h"

namespace cairn {
namespace {

namespace ssl = boost::asio::ssl;

/// TLS 1.2 suites: ECDHE key exchange (forward secrecy) with an AEAD cipher. TLS 1.3
/// suites are all of that kind and keep OpenSSL's defaults.
constexpr const char* kTls12Ciphers = "ECDHE+AESGCM:ECDHE+CHACHA20";

/// A file's contents, wiped from memory when dropped (the private key is one).
class FileText {
 public:
  explicit FileText(size_t capacity) : text_(capacity, '\0') {}
  ~FileText() { OPENSSL_cleanse(text_.data(), text_.size()); }
  FileText(FileText&& other) noexcept : text_(std::move(other.text_)) {}
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;
  FileText& operator=(FileText&&) = delete;

  /// Where `read` fills in the contents; `capacity()` bytes.
  char* buffer() { return text_.data(); }
  size_t capacity() const { return text_.size(); }
  /// Keeps the first `size` bytes (shrinking keeps the allocation, so nothing is left
  /// behind unwiped).
  void Truncate(size_t size) { text_.resize(size); }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

std::string ErrnoText(int error) { return std::generic_category().message(error); }

/// The whole of a regular file of at most `kMaxTlsFileBytes`. Opened non-blocking so
/// that a FIFO at the path cannot stall the caller; only regular files are read.
Result<FileText> ReadTlsFile(std::string_view setting, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return InvalidConfig("{}: cannot read '{}': {}", setting, path, ErrnoText(errno));
  const FdCloser closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0)
    return InvalidConfig("{}: cannot read '{}': {}", setting, path, ErrnoText(errno));
  if (!S_ISREG(info.st_mode))
    return InvalidConfig("{}: '{}' is not a regular file", setting, path);
  // Up to one byte more than allowed, to tell a file at the bound from a larger one.
  FileText contents(kMaxTlsFileBytes + 1);
  size_t total = 0;
  while (total < contents.capacity()) {
    const ssize_t n = ::read(fd, contents.buffer() + total, contents.capacity() - total);
    if (n == 0) break;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return InvalidConfig("{}: cannot read '{}': {}", setting, path, ErrnoText(errno));
    total += static_cast<size_t>(n);
  }
  if (total > kMaxTlsFileBytes) {
    return InvalidConfig("{}: '{}' is larger than {} bytes", setting, path,
                         kMaxTlsFileBytes);
  }
  if (total == 0) return InvalidConfig("{}: '{}' is empty", setting, path);
  contents.Truncate(total);
  return contents;
}

/// OpenSSL's reason for the last failure (library and reason names, no data), and an
/// empty error queue afterwards.
std::string OpenSslReason() {
  const auto code = ERR_peek_last_error();
  std::string reason = "unknown OpenSSL error";
  if (code != 0) {
    char text[256] = {};
    ERR_error_string_n(code, text, sizeof text);
    reason = text;
  }
  ERR_clear_error();
  return reason;
}

/// Declines to decrypt: an encrypted key fails to load rather than OpenSSL asking for a
/// passphrase on the terminal.
int RefusePassphrase(char* /*buffer*/, int /*size*/, int /*rwflag*/, void* /*user*/) {
  return -1;
}

Status ApplySecureDefaults(ssl::context& context, TlsVersion min_version) {
  SSL_CTX* native = context.native_handle();
  SSL_CTX_set_options(native, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                  SSL_OP_CIPHER_SERVER_PREFERENCE);
  const int version = min_version == TlsVersion::kTls13 ? TLS1_3_VERSION : TLS1_2_VERSION;
  if (SSL_CTX_set_min_proto_version(native, version) != 1 ||
      SSL_CTX_set_cipher_list(native, kTls12Ciphers) != 1) {
    return Internal("TLS: cannot apply the protocol settings: {}", OpenSslReason());
  }
  return Ok();
}

Status UsePrivateKey(ssl::context& context, const TlsOptions& options,
                     const FileText& key) {
  const BioPtr bio(
      BIO_new_mem_buf(key.text().data(), static_cast<int>(key.text().size())));
  const std::unique_ptr<EVP_PKEY, PkeyFree> pkey(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, RefusePassphrase, nullptr)
          : nullptr);
  if (!pkey) {
    return InvalidConfig(
        "tls-key-file: '{}' holds no PEM private key readable without a passphrase "
        "({})",
        options.key_file, OpenSslReason());
  }
  SSL_CTX* native = context.native_handle();
  if (SSL_CTX_use_PrivateKey(native, pkey.get()) != 1 ||
      SSL_CTX_check_private_key(native) != 1) {
    ERR_clear_error();
    return InvalidConfig(
        "tls-key-file: the key in '{}' does not match the certificate in "
        "'{}' (tls-cert-file)",
        options.key_file, options.cert_file);
  }
  return Ok();
}

}  // namespace

Result<TlsContextPtr> LoadTlsContext(const TlsOptions& options) {
  CAIRN_ASSIGN_OR_RAISE(const FileText chain,
                        ReadTlsFile("tls-cert-file", options.cert_file));
  CAIRN_ASSIGN_OR_RAISE(const FileText key,
                        ReadTlsFile("tls-key-file", options.key_file));
  TlsContextPtr context;
  try {
    context = std::make_shared<ssl::context>(ssl::context::tls_server);
  } catch (const std::exception& e) {
    return Internal("TLS: cannot create a context: {}", e.what());
  }
  CAIRN_RETURN_IF_ERROR(ApplySecureDefaults(*context, options.min_version));
  boost::system::error_code ec;
  context->use_certificate_chain(
      boost::asio::buffer(chain.text().data(), chain.text().size()), ec);
  if (ec) {
    ERR_clear_error();
    return InvalidConfig("tls-cert-file: '{}' holds no PEM certificate chain ({})",
                         options.cert_file, ec.message());
  }
  CAIRN_RETURN_IF_ERROR(UsePrivateKey(*context, options, key));
  return context;
}

TlsCertificateInfo DescribeTlsCertificate(ssl::context& context) {
  X509* cert = SSL_CTX_get0_certificate(context.native_handle());
  const BioPtr bio(BIO_new(BIO_s_mem()));
  if (cert == nullptr || !bio) return {"no certificate", false};
  // RFC 2253 form escapes control and non-ASCII bytes, so the line stays one log line.
  BIO_puts(bio.get(), "subject=");
  X509_NAME_print_ex(bio.get(), X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
  BIO_puts(bio.get(), " not_after=");
  ASN1_TIME_print(bio.get(), X509_get0_notAfter(cert));
  char* data = nullptr;
  const auto size = BIO_get_mem_data(bio.get(), &data);
  constexpr size_t kMaxDescription = 512;
  TlsCertificateInfo info;
  if (size > 0) {
    info.description.assign(data, std::min(static_cast<size_t>(size), kMaxDescription));
  }
  info.expired = X509_cmp_current_time(X509_get0_notAfter(cert)) < 0;
  ERR_clear_error();
  return info;
}

Result<std::unique_ptr<TlsContextHolder>> TlsContextHolder::Open(
    const TlsOptions& options) {
  CAIRN_ASSIGN_OR_RAISE(TlsContextPtr first, LoadTlsContext(options));
  return std::unique_ptr<TlsContextHolder>(
      new TlsContextHolder(options, std::move(first)));
}

TlsContextHolder::TlsContextHolder(TlsOptions options, TlsContextPtr first)
    : options_(std::move(options)), current_(std::move(first)) {}

TlsContextPtr TlsContextHolder::Current() const {
  const MutexLock lock(mutex_);
  return current_;
}

Status TlsContextHolder::Reload() {
  // Loaded outside the lock: accepting connections never waits for the files.
  CAIRN_ASSIGN_OR_RAISE(TlsContextPtr next, LoadTlsContext(options_));
  const MutexLock lock(mutex_);
  current_ = std::move(next);
  return Ok();
}

}  // namespace cairn
