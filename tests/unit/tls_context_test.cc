// Loading TLS contexts from PEM files: what is refused, and that a refusal names the
// file but never shows the key.

#include "http/tls_context.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "matchers.h"
#include "temp_dir.h"
#include "tls_test_util.h"

namespace cairn {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

class TlsContextTest : public ::testing::Test {
 protected:
  TlsOptions Options(std::string cert, std::string key) const {
    TlsOptions options;
    options.cert_file = std::move(cert);
    options.key_file = std::move(key);
    return options;
  }

  /// Runs `openssl` with `arguments`; fails the test when it fails.
  static void OpenSsl(const std::string& arguments) {
    const std::string command = "openssl " + arguments + " 2>/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0)
        << command;  // NOLINT(concurrency-mt-unsafe)
  }

  ScopedTempDir dir_{"tls-context"};
  const TestPki pki_ = MakeTestPki(dir_.path(), "");
};

TEST_F(TlsContextTest, LoadsAMatchingPairAndDescribesTheCertificate) {
  auto context = LoadTlsContext(Options(pki_.cert, pki_.key));
  ASSERT_THAT(context, IsOk());
  const TlsCertificateInfo info = DescribeTlsCertificate(**context);
  EXPECT_THAT(info.description, StartsWith("subject=CN=localhost not_after="));
  EXPECT_FALSE(info.expired);
}

TEST_F(TlsContextTest, RefusesMissingEmptyAndNonRegularFiles) {
  EXPECT_THAT(LoadTlsContext(Options(dir_.File("missing.pem"), pki_.key)),
              HasErrorMessageThat(StartsWith("tls-cert-file: cannot read '")));
  std::ofstream(dir_.File("empty.key")).flush();
  EXPECT_THAT(LoadTlsContext(Options(pki_.cert, dir_.File("empty.key"))),
              HasErrorMessage("tls-key-file: '" + dir_.File("empty.key") + "' is empty"));
  EXPECT_THAT(LoadTlsContext(Options(pki_.cert, dir_.path().string())),
              HasErrorMessage("is not a regular file"));
  // A FIFO is refused without blocking on it.
  ASSERT_EQ(::mkfifo(dir_.File("fifo").c_str(), 0600), 0);
  EXPECT_THAT(LoadTlsContext(Options(pki_.cert, dir_.File("fifo"))),
              HasErrorMessage("is not a regular file"));
}

TEST_F(TlsContextTest, RefusesAFileOverTheSizeBound) {
  {
    std::ofstream big(dir_.File("big.pem"), std::ios::binary);
    big << std::ifstream(pki_.cert, std::ios::binary).rdbuf();
    big << std::string(kMaxTlsFileBytes, '\n');
  }
  EXPECT_THAT(LoadTlsContext(Options(dir_.File("big.pem"), pki_.key)),
              HasErrorMessage("is larger than 1048576 bytes"));
}

TEST_F(TlsContextTest, RefusesACertificateFileWithoutACertificate) {
  auto status = LoadTlsContext(Options(pki_.key, pki_.key));
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status,
              HasErrorMessageThat(StartsWith("tls-cert-file: '" + pki_.key +
                                             "' holds no PEM certificate chain")));
}

TEST_F(TlsContextTest, RefusesAnEncryptedKeyWithoutAskingForAPassphrase) {
  const std::string encrypted = dir_.File("encrypted.key");
  OpenSsl("pkcs8 -topk8 -v2 aes-256-cbc -passout pass:hunter2 -in '" + pki_.key +
          "' -out '" + encrypted + "'");
  auto status = LoadTlsContext(Options(pki_.cert, encrypted));
  EXPECT_THAT(status, HasErrorMessageThat(StartsWith(
                          "tls-key-file: '" + encrypted +
                          "' holds no PEM private key readable without a passphrase")));
  EXPECT_THAT(status, HasErrorMessageThat(Not(HasSubstr("hunter2"))));
}

TEST_F(TlsContextTest, RefusesAKeyOfAnotherTypeThanTheCertificate) {
  // An RSA key against the EC certificate: OpenSSL files it under another slot, which
  // only the final check catches.
  const std::string rsa = dir_.File("rsa.key");
  OpenSsl("genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out '" + rsa + "'");
  EXPECT_THAT(LoadTlsContext(Options(pki_.cert, rsa)),
              HasErrorMessage("tls-key-file: the key in '" + rsa +
                              "' does not match the certificate in '" + pki_.cert + "'"));
}

TEST_F(TlsContextTest, HolderKeepsItsContextWhenAReloadFails) {
  const std::string cert = dir_.File("served.pem");
  std::filesystem::copy_file(pki_.cert, cert);
  auto holder = TlsContextHolder::Open(Options(cert, pki_.key));
  ASSERT_THAT(holder, IsOk());
  const TlsContextPtr first = (*holder)->Current();
  std::ofstream(cert, std::ios::trunc) << "not a certificate\n";
  EXPECT_THAT((*holder)->Reload(), IsError(ErrorKind::kInvalidConfig));
  EXPECT_EQ((*holder)->Current(), first);
  std::filesystem::copy_file(pki_.cert, cert,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_THAT((*holder)->Reload(), IsOk());
  EXPECT_NE((*holder)->Current(), first);
}

}  // namespace
}  // namespace cairn
