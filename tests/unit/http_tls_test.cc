// HttpServer over TLS, end to end on a loopback port: HTTPS with a certificate from a
// throw-away CA, plain HTTP and stalled handshakes on the TLS port, and the certificate
// reloaded (SIGHUP raised in this process, and ReloadTls) while a connection stays open.

#include <poll.h>
#include <unistd.h>

#include <csignal>
#include <fstream>

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "matchers.h"
#include "temp_dir.h"
#include "tls_test_util.h"

namespace cairn {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A key file that looks like PEM but is not a key; its body must never be echoed.
constexpr std::string_view kBrokenKey =
    "-----BEGIN PRIVATE KEY-----\nS3CRETMARKERnotbase64!!\n-----END PRIVATE KEY-----\n";

class HttpTlsTest : public ::testing::Test {
 protected:
  HttpTlsTest()
      : first_(MakeTestPki(dir_.path(), "a-")), second_(MakeTestPki(dir_.path(), "b-")) {
    Install(first_.cert, first_.key);
  }

  /// Copies `cert` and `key` over the files the server is configured with.
  void Install(const std::string& cert, const std::string& key) {
    namespace fs = std::filesystem;
    fs::copy_file(cert, served_cert_, fs::copy_options::overwrite_existing);
    fs::copy_file(key, served_key_, fs::copy_options::overwrite_existing);
  }

  HttpOptions TlsOptions() const {
    HttpOptions options = TestHttpOptions();
    options.tls.cert_file = served_cert_;
    options.tls.key_file = served_key_;
    return options;
  }

  /// A new connection verified against `ca` gets `GET /hello` answered.
  static bool NewConnectionTrusts(const RunningTestServer& server,
                                  const std::string& ca) {
    TlsTestClient client(ca);
    const auto reply = client.Get(server.Url("https", "/hello"));
    return reply.code == CURLE_OK && reply.status == 200 && reply.body == "hello";
  }

  ScopedTempDir dir_{"http-tls"};
  const TestPki first_;
  const TestPki second_;
  const std::string served_cert_ = dir_.File("served.pem");
  const std::string served_key_ = dir_.File("served.key");
};

TEST_F(HttpTlsTest, ServesHttpsWithACertificateThatVerifiesAgainstItsCa) {
  RunningTestServer server(TlsOptions());
  ASSERT_THAT(server.Start(), IsOk());
  for (const char* path : {"/hello", "/work"}) {
    TlsTestClient client(first_.ca);
    const auto reply = client.Get(server.Url("https", path));
    EXPECT_EQ(reply.code, CURLE_OK) << curl_easy_strerror(reply.code);
    EXPECT_EQ(reply.status, 200);
    EXPECT_EQ(reply.body, "hello");
  }
  TlsTestClient other_ca(second_.ca);
  EXPECT_EQ(other_ca.Get(server.Url("https", "/hello")).code,
            CURLE_PEER_FAILED_VERIFICATION);
}

TEST_F(HttpTlsTest, PlainHttpToTheTlsPortFailsCleanlyAndServingGoesOn) {
  CapturedLog log;
  RunningTestServer server(TlsOptions());
  ASSERT_THAT(server.Start(), IsOk());
  TlsTestClient plain(first_.ca);
  const auto reply = plain.Get(server.Url("http", "/hello"));
  EXPECT_NE(reply.code, CURLE_OK);
  EXPECT_NE(reply.status, 200);
  EXPECT_TRUE(log.WaitFor("TLS handshake with 127.0.0.1:")) << log.Text();
  EXPECT_TRUE(NewConnectionTrusts(server, first_.ca));
}

TEST_F(HttpTlsTest, StalledHandshakeIsClosedAfterTheHeaderTimeoutAndBlocksNobody) {
  HttpOptions options = TlsOptions();
  options.header_timeout = std::chrono::milliseconds(300);
  RunningTestServer server(options);
  ASSERT_THAT(server.Start(), IsOk());
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(server.port());
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  // The one I/O thread and the one worker still serve others meanwhile.
  TlsTestClient client(first_.ca);
  EXPECT_EQ(client.Get(server.Url("https", "/work")).status, 200);
  EXPECT_EQ(client.Get(server.Url("https", "/hello")).status, 200);
  // No ClientHello ever comes: the server closes the connection at the header timeout.
  pollfd wait{fd, POLLIN, 0};
  ASSERT_EQ(::poll(&wait, 1, 5000), 1);
  char byte = 0;
  EXPECT_LE(::recv(fd, &byte, 1, 0), 0);
  ::close(fd);
}

TEST_F(HttpTlsTest, SighupReloadsForNewConnectionsWhileAnOpenOneKeepsWorking) {
  CapturedLog log;
  RunningTestServer server(TlsOptions());
  ASSERT_THAT(server.Start(), IsOk());
  TlsTestClient kept(first_.ca);
  ASSERT_EQ(kept.Get(server.Url("https", "/hello")).status, 200);

  Install(second_.cert, second_.key);
  ASSERT_EQ(std::raise(SIGHUP), 0);
  ASSERT_TRUE(log.WaitFor("TLS certificate reloaded from " + served_cert_)) << log.Text();

  EXPECT_TRUE(NewConnectionTrusts(server, second_.ca));
  EXPECT_FALSE(NewConnectionTrusts(server, first_.ca));
  // The connection opened before the reload goes on with its certificate.
  const auto again = kept.Get(server.Url("https", "/work"));
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.new_connections, 0) << "the keep-alive connection was not reused";
}

TEST_F(HttpTlsTest, ReloadTlsTakesEffectForTheNextConnection) {
  RunningTestServer server(TlsOptions());
  ASSERT_THAT(server.Start(), IsOk());
  EXPECT_TRUE(NewConnectionTrusts(server, first_.ca));
  Install(second_.cert, second_.key);
  ASSERT_THAT(server.server().ReloadTls(), IsOk());
  EXPECT_TRUE(NewConnectionTrusts(server, second_.ca));
  EXPECT_FALSE(NewConnectionTrusts(server, first_.ca));
}

TEST_F(HttpTlsTest, ReloadWithABrokenKeyKeepsTheOldCertificateAndNeverShowsTheKey) {
  CapturedLog log;
  RunningTestServer server(TlsOptions());
  ASSERT_THAT(server.Start(), IsOk());
  Install(second_.cert, second_.key);
  std::ofstream(served_key_, std::ios::trunc) << kBrokenKey;

  const auto status = server.server().ReloadTls();
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessage("tls-key-file: '" + served_key_ + "'"));
  EXPECT_THAT(status, HasErrorMessageThat(Not(HasSubstr("S3CRETMARKER"))));

  ASSERT_EQ(std::raise(SIGHUP), 0);
  ASSERT_TRUE(log.WaitFor("TLS reload failed")) << log.Text();
  EXPECT_THAT(log.Text(), HasSubstr(served_key_));
  EXPECT_THAT(log.Text(), Not(HasSubstr("S3CRETMARKER")));
  EXPECT_TRUE(NewConnectionTrusts(server, first_.ca));
  EXPECT_FALSE(NewConnectionTrusts(server, second_.ca));
}

TEST_F(HttpTlsTest, ReloadWithAKeyOfAnotherCertificateKeepsTheOldCertificate) {
  RunningTestServer server(TlsOptions());
  ASSERT_THAT(server.Start(), IsOk());
  Install(second_.cert, first_.key);
  EXPECT_THAT(server.server().ReloadTls(), HasErrorMessage("does not match"));
  EXPECT_TRUE(NewConnectionTrusts(server, first_.ca));
}

TEST_F(HttpTlsTest, ListenFailsOnAMismatchedKeyNamingTheFileButNotItsContents) {
  Install(first_.cert, second_.key);
  RunningTestServer server(TlsOptions());
  const auto status = server.Start();
  EXPECT_THAT(status, IsError(ErrorKind::kInvalidConfig));
  EXPECT_THAT(status, HasErrorMessage(served_key_));
  std::istringstream key(ReadWhole(second_.key));
  for (std::string line; std::getline(key, line);) {
    if (line.empty() || line.rfind("-----", 0) == 0) continue;
    EXPECT_THAT(status, HasErrorMessageThat(Not(HasSubstr(line))));
  }
}

TEST_F(HttpTlsTest, MinimumVersion13RefusesATls12Client) {
  HttpOptions options = TlsOptions();
  options.tls.min_version = TlsVersion::kTls13;
  RunningTestServer server(options);
  ASSERT_THAT(server.Start(), IsOk());
  TlsTestClient old_client(first_.ca);
  old_client.LimitToTls12();
  EXPECT_NE(old_client.Get(server.Url("https", "/hello")).code, CURLE_OK);
  EXPECT_TRUE(NewConnectionTrusts(server, first_.ca));
}

TEST(HttpPlainTest, SighupWithTlsOffLogsThatThereIsNoCertificateToReloadAndServes) {
  CapturedLog log;
  RunningTestServer server(TestHttpOptions());
  ASSERT_THAT(server.Start(), IsOk());
  TlsTestClient client("/nonexistent-ca.pem");
  ASSERT_EQ(client.Get(server.Url("http", "/hello")).status, 200);
  EXPECT_THAT(server.server().ReloadTls(), IsError(ErrorKind::kUnsupported));
  ASSERT_EQ(std::raise(SIGHUP), 0);
  ASSERT_TRUE(log.WaitFor("TLS is off, no certificate to reload")) << log.Text();
  EXPECT_EQ(client.Get(server.Url("http", "/work")).status, 200);
}

}  // namespace
}  // namespace cairn
