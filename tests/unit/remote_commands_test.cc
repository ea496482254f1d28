// The client of the remote commands against a scripted HTTP server (tokens, errors,
// bounds, secrets), their helpers, and the usage errors their parsing reports.

#include "app/remote_commands.h"

#include <unistd.h>

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "app/admin_commands.h"
#include "app/management_client.h"
#include "app/remote_commands_internal.h"
#include "fake_http_server.h"
#include "matchers.h"

namespace cairn {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kSecret = "s3cr+t/secret-value";

FakeHttpReply Reply(int status, std::string body) {
  FakeHttpReply reply;
  reply.status = status;
  reply.body = std::move(body);
  reply.headers = {"Content-Type: application/json"};
  return reply;
}

FakeHttpReply TokenReply(const std::string& token) {
  return Reply(200, R"({"access_token":")" + token + R"(","token_type":"bearer"})");
}

std::unique_ptr<ManagementClient> Client(ManagementClientOptions options) {
  auto client = ManagementClient::Open(std::move(options));
  EXPECT_THAT(client, IsOk());
  return client ? std::move(*client) : nullptr;
}

ManagementClientOptions At(const FakeHttpServer& server) {
  ManagementClientOptions options;
  options.server = server.endpoint() + "/";
  options.timeout_ms = 5000;
  return options;
}

/// A port on which nothing listens (bound, then closed).
int ClosedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    ADD_FAILURE() << "cannot bind a port on 127.0.0.1";
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

TEST(ManagementClientTest, ExchangesTheCredentialForATokenOnceAndSendsIt) {
  FakeHttpServer server([](const FakeHttpRequest& request) {
    if (request.target == "/v1/oauth/tokens") return TokenReply("tok-123");
    return Reply(200, R"({"catalogs":[]})");
  });
  ManagementClientOptions options = At(server);
  options.credential = std::string("etl-client:") + kSecret;
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  EXPECT_THAT(client->Call("GET", "/management/v1/catalogs"), IsOk());
  EXPECT_THAT(client->Call("GET", "/management/v1/catalogs/x"), IsOk());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].Header("content-type"), "application/x-www-form-urlencoded");
  EXPECT_EQ(requests[0].body,
            "grant_type=client_credentials&client_id=etl-client"
            "&client_secret=s3cr%2Bt%2Fsecret-value&scope=catalog");
  for (size_t i = 1; i < requests.size(); ++i) {
    EXPECT_EQ(requests[i].method, "GET");
    EXPECT_EQ(requests[i].Header("authorization"), "Bearer tok-123");
  }
  EXPECT_EQ(requests[2].target, "/management/v1/catalogs/x");
}

TEST(ManagementClientTest, SendsAGivenTokenAndJsonBodies) {
  FakeHttpServer server([](const FakeHttpRequest& request) {
    if (request.method == "DELETE") return Reply(204, "");
    return Reply(200, request.body);
  });
  ManagementClientOptions options = At(server);
  options.token = "given-token";
  options.credential = "ignored:when-a-token-is-given";
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  const boost::json::value body = boost::json::parse(R"({"updates":{"a":"b"}})");
  auto answer = client->Call("PATCH", "/management/v1/catalogs/s", &body);
  ASSERT_THAT(answer, IsOk());
  EXPECT_EQ(*answer, body);
  auto deleted = client->Call("DELETE", "/management/v1/catalogs/s");
  ASSERT_THAT(deleted, IsOk());
  EXPECT_TRUE(deleted->is_null());
  // A bodiless POST carries an empty body, not a form.
  EXPECT_THAT(client->Call("POST", "/management/v1/principals/p/rotate"), IsOk());

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].Header("authorization"), "Bearer given-token");
  EXPECT_EQ(requests[0].Header("content-type"), "application/json");
  EXPECT_EQ(requests[2].method, "POST");
  EXPECT_EQ(requests[2].Header("content-length"), "0");
  EXPECT_EQ(requests[2].Header("content-type"), "");
}

TEST(ManagementClientTest, ReportsAnErrorAnswerByStatusAndType) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    return Reply(404, R"({"error":{"message":"Warehouse does not exist: x",)"
                      R"("type":"NoSuchWarehouseException","code":404}})");
  });
  auto client = Client(At(server));
  ASSERT_NE(client, nullptr);
  auto answer = client->Call("GET", "/management/v1/catalogs/x");
  EXPECT_THAT(answer, IsError(ErrorKind::kNotFound));
  EXPECT_THAT(answer, HasErrorMessageThat(::testing::Eq(
                          "404 NoSuchWarehouseException: Warehouse does not exist: x")));
}

TEST(ManagementClientTest, Answers401WithoutCredentialsWithAHint) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    return Reply(401, R"({"error":{"message":"Authentication required",)"
                      R"("type":"NotAuthorizedException","code":401}})");
  });
  auto client = Client(At(server));
  ASSERT_NE(client, nullptr);
  auto answer = client->Call("GET", "/management/v1/catalogs");
  EXPECT_THAT(answer, IsError(ErrorKind::kUnauthenticated));
  EXPECT_THAT(answer, HasErrorMessage("give --credential"));
}

TEST(ManagementClientTest, NeverQuotesTheSecretOrTheToken) {
  // A server that quotes what it was sent, secrets included.
  FakeHttpServer server([](const FakeHttpRequest& request) {
    const std::string quoted = request.body + " " + request.Header("authorization");
    return Reply(request.target == "/v1/oauth/tokens" ? 401 : 403,
                 boost::json::serialize(boost::json::object{
                     {"error", "invalid_client"}, {"error_description", quoted}}));
  });
  ManagementClientOptions options = At(server);
  options.credential = std::string("id:") + kSecret;
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  auto refused = client->Call("GET", "/management/v1/catalogs");
  EXPECT_THAT(refused, IsError(ErrorKind::kUnauthenticated));
  EXPECT_THAT(refused, HasErrorMessageThat(
                           AllOf(HasSubstr("401 invalid_client"), HasSubstr("[redacted]"),
                                 Not(HasSubstr(kSecret)), Not(HasSubstr("s3cr%2Bt")))));

  options.credential.clear();
  options.token = "the-bearer-token";
  client = Client(options);
  ASSERT_NE(client, nullptr);
  auto forbidden = client->Call("GET", "/management/v1/catalogs");
  EXPECT_THAT(forbidden, IsError(ErrorKind::kForbidden));
  EXPECT_THAT(forbidden, HasErrorMessageThat(Not(HasSubstr("the-bearer-token"))));
}

// A secret that is part of the redaction marker is redacted once, not forever.
TEST(ManagementClientTest, ASecretInsideTheMarkerIsRedactedOnce) {
  FakeHttpServer server([](const FakeHttpRequest& request) {
    return Reply(401, boost::json::serialize(boost::json::object{
                          {"error", "invalid_client"},
                          {"error_description", "bad secret e for " + request.body}}));
  });
  ManagementClientOptions options = At(server);
  options.credential = "id:e";
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  auto refused = client->Call("GET", "/management/v1/catalogs");
  ASSERT_THAT(refused, IsError(ErrorKind::kUnauthenticated));
  EXPECT_THAT(refused.error().message, HasSubstr("bad s[redacted]cr[redacted]t"));
  EXPECT_LT(refused.error().message.size(), 2000U);
}

// A secret the server quotes where its message is cut leaves no part of itself.
TEST(ManagementClientTest, ASecretAcrossTheCutOfAMessageLeavesNoPart) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    return Reply(403, boost::json::serialize(boost::json::object{
                          {"error",
                           {{"type", "ForbiddenException"},
                            {"message", std::string(470, 'x') + "the-bearer-token"}}}}));
  });
  ManagementClientOptions options = At(server);
  options.token = "the-bearer-token";
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  auto refused = client->Call("GET", "/management/v1/catalogs");
  ASSERT_FALSE(refused.has_value());
  EXPECT_THAT(refused.error().message, Not(HasSubstr("the-bea")));
  EXPECT_THAT(refused.error().message, HasSubstr("[redacted]"));
}

TEST(ManagementClientTest, RefusesAnAnswerPastItsBound) {
  for (const bool chunked : {false, true}) {
    SCOPED_TRACE(chunked ? "chunked" : "with Content-Length");
    FakeHttpServer server([chunked](const FakeHttpRequest&) {
      FakeHttpReply reply =
          Reply(200, R"({"catalogs":[")" + std::string(8192, 'x') + R"("]})");
      reply.chunked = chunked;
      return reply;
    });
    ManagementClientOptions options = At(server);
    options.max_answer_bytes = 1024;
    auto client = Client(options);
    ASSERT_NE(client, nullptr);
    EXPECT_THAT(client->Call("GET", "/management/v1/catalogs"),
                IsError(ErrorKind::kRequestTooLarge));
  }
}

TEST(ManagementClientTest, NamesTheUrlItCannotReach) {
  ManagementClientOptions options;
  options.server = "http://127.0.0.1:" + std::to_string(ClosedPort());
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  auto answer = client->Call("GET", "/management/v1/catalogs");
  EXPECT_THAT(answer, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(answer, HasErrorMessage("cannot reach " + options.server +
                                      "/management/v1/catalogs"));
}

TEST(ManagementClientTest, GivesUpAfterItsTimeout) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    FakeHttpReply reply;
    reply.hang = true;
    return reply;
  });
  ManagementClientOptions options = At(server);
  options.timeout_ms = 200;
  auto client = Client(options);
  ASSERT_NE(client, nullptr);
  auto answer = client->Call("GET", "/management/v1/catalogs");
  EXPECT_THAT(answer, IsError(ErrorKind::kServiceUnavailable));
  EXPECT_THAT(answer, HasErrorMessage("no answer within 200 ms"));
}

TEST(ManagementClientTest, RefusesBadOptionsWithoutQuotingSecrets) {
  struct Case {
    std::string server;
    std::string credential;
    int64_t timeout_ms;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"ftp://127.0.0.1:9001", "", 1000, "--server"},
      {"127.0.0.1:9001", "", 1000, "--server"},
      {"http://user:pass-secret@127.0.0.1:9001", "", 1000, "user or password"},
      {"http://127.0.0.1:9001/?x=1", "", 1000, "query"},
      {"http://127.0.0.1:9001", "no-colon-secret", 1000, "CLIENT_ID:SECRET"},
      {"http://127.0.0.1:9001", ":only-secret", 1000, "CLIENT_ID:SECRET"},
      {"http://127.0.0.1:9001", "id:", 1000, "CLIENT_ID:SECRET"},
      {"http://127.0.0.1:9001", "id:secret", 0, "--timeout-ms"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.server + " " + c.credential);
    ManagementClientOptions options;
    options.server = c.server;
    options.credential = c.credential;
    options.timeout_ms = c.timeout_ms;
    const Status status = ValidateManagementClientOptions(options);
    EXPECT_THAT(status, IsError(ErrorKind::kInvalidArgument));
    EXPECT_THAT(status, HasErrorMessage(c.says));
    EXPECT_THAT(status, HasErrorMessageThat(Not(HasSubstr("secret"))));
  }
  ManagementClientOptions fine;
  fine.server = "https://cairn.example:8443/proxy/";
  fine.credential = "id:secret:with:colons";
  EXPECT_THAT(ValidateManagementClientOptions(fine), IsOk());
}

TEST(RemoteHelpersTest, EncodesNamesAndNamespacesAsTheRoutesDecodeThem) {
  EXPECT_EQ(remote::Segment("a b/c+d"), "a%20b%2Fc%2Bd");
  auto levels = remote::NamespaceLevels("sales.eu west");
  ASSERT_THAT(levels, IsOk());
  EXPECT_EQ(*levels, (std::vector<std::string>{"sales", "eu west"}));
  EXPECT_EQ(remote::NamespaceSegment(*levels), "sales%1Feu%20west");
  for (const char* bad : {"", ".a", "a.", "a..b"}) {
    EXPECT_THAT(remote::NamespaceLevels(bad), IsError(ErrorKind::kInvalidArgument))
        << bad;
  }
  EXPECT_EQ(boost::json::value(remote::PairsToJson({"a=1", "b=x=y", "a=2", "c="})),
            boost::json::parse(R"({"a":"2","b":"x=y","c":""})"));
}

TEST(RemoteHelpersTest, ListAllFollowsThePagesToTheEnd) {
  FakeHttpServer server([](const FakeHttpRequest& request) {
    if (request.target.find("pageToken=b%20") != std::string::npos) {
      return Reply(200, R"({"roles":["c"]})");
    }
    if (request.target.find("pageToken=") != std::string::npos) {
      return Reply(200, R"({"roles":["b "],"next-page-token":"b "})");
    }
    return Reply(200, R"({"roles":["a"],"next-page-token":"a"})");
  });
  auto client = Client(At(server));
  ASSERT_NE(client, nullptr);
  auto listed = remote::ListAll(*client, "/management/v1/roles", "roles", 1);
  ASSERT_THAT(listed, IsOk());
  EXPECT_EQ(listed->json, boost::json::parse(R"({"roles":["a","b ","c"]})"));
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].target, "/management/v1/roles?pageSize=1");
  EXPECT_EQ(requests[1].target, "/management/v1/roles?pageSize=1&pageToken=a");
}

TEST(RemoteHelpersTest, ListAllStopsWhenAServerRepeatsAPage) {
  FakeHttpServer server([](const FakeHttpRequest&) {
    return Reply(200, R"({"roles":["a"],"next-page-token":"a"})");
  });
  auto client = Client(At(server));
  ASSERT_NE(client, nullptr);
  EXPECT_THAT(remote::ListAll(*client, "/management/v1/roles", "roles", 1),
              IsError(ErrorKind::kIOError));
}

/// The exit code `cairn <args>` fails its parse with (0: it parses).
int ParseExitCode(const std::vector<std::string>& args) {
  CLI::App app{"test"};
  auto run = AddRemoteCommands(app);
  std::vector<const char*> argv = {"cairn"};
  for (const auto& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return e.get_exit_code();
  }
  return 0;
}

TEST(RemoteCommandsTest, UsageErrorsHaveExitCodeTwo) {
  EXPECT_EQ(ParseExitCode({"catalog", "show", "sales"}), 0);
  EXPECT_EQ(ParseExitCode({"catalog", "show"}), 2);
  EXPECT_EQ(ParseExitCode({"catalog", "show", "a", "b"}), 2);
  EXPECT_EQ(ParseExitCode({"catalog", "list", "--bogus"}), 2);
  EXPECT_EQ(ParseExitCode({"catalog", "list", "--timeout-ms", "soon"}), 2);
  EXPECT_EQ(ParseExitCode({"catalog", "list", "--page-size", "0"}), 2);
  EXPECT_EQ(ParseExitCode({"catalog", "create", "s", "--property", "novalue"}), 2);
  EXPECT_EQ(ParseExitCode({"principal", "assign", "alice"}), 2);
  EXPECT_EQ(ParseExitCode({"table", "maintain", "expire-snapshots", "c", "ns"}), 2);
  // A group without one of its commands.
  EXPECT_EQ(ParseExitCode({"catalog", "--server", "http://127.0.0.1:1"}), 2);
  EXPECT_EQ(ParseExitCode({"table", "maintain", "--bogus", "remove-orphan-files"}), 2);
  // --help is answered before the arguments are checked.
  EXPECT_EQ(ParseExitCode({"table", "maintain", "expire-snapshots", "--help"}), 0);
}

/// Calls `visit(command path, option)` for every option of `app` and its subcommands.
void ForEachOption(
    const CLI::App& app, const std::string& path,
    const std::function<void(const std::string&, const CLI::Option&)>& visit) {
  for (const CLI::Option* option : app.get_options()) visit(path, *option);
  for (const CLI::App* sub : app.get_subcommands({})) {
    ForEachOption(*sub, path + " " + sub->get_name(), visit);
  }
}

// Every numeric option of the admin and remote commands shows its type (INT) and its
// default, either as `=value` or in its description (the issue: "every numeric option's
// help shows its type and default"; `cairn serve`'s settings: config_test).
TEST(RemoteCommandsTest, NumericOptionsShowTheirTypeAndDefault) {
  CLI::App app;
  AddAdminCommands(app);
  AddRemoteCommands(app);
  std::set<std::string> numeric;
  ForEachOption(app, "cairn", [&](const std::string& path, const CLI::Option& option) {
    const std::string type = option.get_type_name();
    if (type != "INT" && type != "UINT" && type != "FLOAT" && type != "NUMBER") return;
    const std::string name = path + " " + option.get_name();
    numeric.insert(name);
    EXPECT_EQ(type, "INT") << name;
    EXPECT_TRUE(!option.get_default_str().empty() ||
                option.get_description().find("default") != std::string::npos)
        << name << ": " << option.get_description();
  });
  // A sample that must be numeric, so that the walk cannot silently find none.
  for (const char* name :
       {"cairn catalog list --page-size", "cairn catalog list --timeout-ms",
        "cairn transaction list --page-size",
        "cairn table maintain expire-snapshots --retain-last",
        "cairn table maintain expire-snapshots --older-than-ms"}) {
    EXPECT_TRUE(numeric.contains(name)) << name;
  }
}

}  // namespace
}  // namespace cairn
