// End-to-end: build/advisor analyze reading traces from and writing reports to a real local
// S3-compatible server (moto's, with authentication on) and to one that breaks transfers off
// (s3_test_server.py). One server process for the whole suite: this binary is one ctest test.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "engine/object_store/object_store.h"
#include "engine/object_store/report_upload.h"
#include "tests/integration/run_advisor.h"

namespace advisor::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kBucket[] = "s3://advisor-test/";
const std::string kTrace =
    std::string(ADVISOR_TEST_TRACES_DIR) + "/torch-1.13-cpu/single/mnist_style-stack.json.gz";
const std::string kRanks = std::string(ADVISOR_TEST_TRACES_DIR) + "/torch-1.13-cpu/ranks/straggler";

// s3_test_server.py, running while its standard input is open.
struct Servers {
  pid_t pid = -1;
  int stdin_fd = -1;
  json ports;  // {"moto", "broken", "key", "secret"}
};

std::string ServerPython() {
  const char* venv = std::getenv("ADVISOR_S3_VENV");
  const char* home = std::getenv("HOME");
  const std::string folder = venv != nullptr   ? venv
                             : home != nullptr ? std::string(home) + "/.cache/advisor/s3-venv"
                                               : "";
  return folder + "/bin/python";
}

// Starts the servers; "" when up, else why not.
std::string Start(Servers& servers) {
  int to_child[2];
  int from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 || ::pipe2(from_child, O_CLOEXEC) != 0) return "no pipe";
  const std::string python = ServerPython();
  const std::string script = std::string(ADVISOR_TEST_SOURCE_DIR) + "/s3_test_server.py";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // this suite killed: the servers go with it
    ::dup2(to_child[0], STDIN_FILENO);
    ::dup2(from_child[1], STDOUT_FILENO);
    const std::string rank0 = kRanks + "/rank0.json.gz";
    const std::string rank1 = kRanks + "/rank1.json.gz";
    ::execl(python.c_str(), python.c_str(), script.c_str(), kTrace.c_str(), rank0.c_str(),
            rank1.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  servers.pid = pid;
  servers.stdin_fd = to_child[1];
  std::string line;
  pollfd ready{from_child[0], POLLIN, 0};
  char c = 0;
  while (line.find('\n') == std::string::npos && ::poll(&ready, 1, 60'000) == 1 &&
         ::read(from_child[0], &c, 1) == 1) {
    line += c;
  }
  ::close(from_child[0]);
  servers.ports = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!servers.ports.is_object()) return "s3_test_server.py did not start (its stderr above)";
  return "";
}

void Stop(Servers& servers) {
  if (servers.pid < 0) return;
  ::close(servers.stdin_fd);
  for (int waited_ms = 0; waited_ms < 10'000; waited_ms += 50) {
    if (::waitpid(servers.pid, nullptr, WNOHANG) == servers.pid) return;
    ::usleep(50'000);
  }
  ::kill(servers.pid, SIGKILL);
  ::waitpid(servers.pid, nullptr, 0);
}

class ObjectStoreTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!HasObjectStoreSupport()) return;
    if (::access(ServerPython().c_str(), X_OK) != 0) {
      skip_reason_ = "moto's server is not installed: scripts/s3-test-server.sh installs it";
      return;
    }
    start_error_ = Start(servers_);
  }
  static void TearDownTestSuite() { Stop(servers_); }

  void SetUp() override {
    if (!HasObjectStoreSupport()) GTEST_SKIP() << "this advisor was built without libcurl";
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
    ASSERT_EQ(start_error_, "");
    scratch_ = FreshFolder(ADVISOR_TEST_SCRATCH_DIR,
                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    const json& ports = servers_.ports;
    environment_ = {{"AWS_ACCESS_KEY_ID", ports.at("key")},
                    {"AWS_SECRET_ACCESS_KEY", ports.at("secret")},
                    {"AWS_REGION", "us-east-1"},
                    {"AWS_ENDPOINT_URL", Endpoint("moto")},
                    {"HOME", scratch_}};  // no ~/.aws of the machine's
  }

  static std::string Endpoint(const char* server) {
    return "http://127.0.0.1:" + std::to_string(servers_.ports.at(server).get<int>());
  }

  // advisor analyze ARGUMENTS with environment_ and no other AWS setting.
  CommandResult Analyze(const std::string& arguments) {
    std::string command = "env";
    for (const char* unset :
         {"AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL_S3",
          "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "ADVISOR_S3_TIMEOUT_S"}) {
      command += std::string(" -u ") + unset;
    }
    for (const auto& [name, value] : environment_) command += " " + name + "='" + value + "'";
    CommandResult result =
        RunCommand(command + " " + ADVISOR_BINARY + " analyze " + arguments + " -q", scratch_);
    // Whatever happened, no secret was printed.
    for (const char* secret : {"key", "secret"}) {
      const std::string value = servers_.ports.at(secret);
      EXPECT_EQ(result.out.find(value), std::string::npos) << result.out;
      EXPECT_EQ(result.err.find(value), std::string::npos) << result.err;
    }
    return result;
  }

  // The store as the test's own client sees it, with the environment_ of advisor.
  std::unique_ptr<ObjectStore> Store() const {
    return OpenS3Store([this](const std::string& name) -> std::optional<std::string> {
      const auto found = environment_.find(name);
      if (found == environment_.end()) return std::nullopt;
      return found->second;
    });
  }

  // A failed run: one line on stderr holding `url` and `problem`, and no report anywhere.
  void ExpectFailure(const CommandResult& result, const std::string& url,
                     const std::string& problem) {
    EXPECT_NE(result.exit_code, 0);
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_NE(result.err.find(url), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(problem), std::string::npos) << result.err;
    EXPECT_FALSE(fs::exists(scratch_ + "/report")) << "a failed run wrote a local report";
  }

  static inline Servers servers_;
  static inline std::string skip_reason_;
  static inline std::string start_error_;
  std::string scratch_;
  std::map<std::string, std::string> environment_;
};

TEST_F(ObjectStoreTest, ReadsATracePrefixAndWritesTheReportToTheBucket) {
  const CommandResult result =
      Analyze(std::string(kBucket) + "plain/ --out " + kBucket + "runs/first");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("report: s3://advisor-test/runs/first/report.md"), std::string::npos)
      << result.out;

  const std::unique_ptr<ObjectStore> store = Store();
  const ObjectUrl run = ParseObjectUrl(std::string(kBucket) + "runs/first/");
  EXPECT_EQ(store->List(run),
            (std::vector<std::string>{"report.html", "report.json", "report.md"}));
  store->Download(run.Child("report.json"), scratch_ + "/report.json");
  const std::string text = ReadFile(scratch_ + "/report.json");
  const json report = json::parse(text);
  // plain/ holds one trace: notes.txt and deeper/other.json are no traces of it.
  EXPECT_EQ(report.at("run").at("model"), std::string(kBucket) + "plain/trace.json");
  EXPECT_GT(report.at("step").at("median_ms").get<double>(), 0);
  EXPECT_EQ(text.find(servers_.ports.at("secret").get<std::string>()), std::string::npos);
  EXPECT_EQ(text.find(servers_.ports.at("key").get<std::string>()), std::string::npos);
}

TEST_F(ObjectStoreTest, ReadsAGzipObjectIntoALocalReport) {
  const CommandResult result =
      Analyze(std::string(kBucket) + "gz/trace.json.gz --out " + scratch_ + "/report");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const json report = json::parse(ReadFile(scratch_ + "/report/report.json"));
  EXPECT_EQ(report.at("run").at("model"), std::string(kBucket) + "gz/trace.json.gz");
}

TEST_F(ObjectStoreTest, ReadsAPrefixOfOneTracePerRank) {
  const CommandResult result =
      Analyze(std::string(kBucket) + "ranks/ --out " + scratch_ + "/report");
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("straggler: rank 1"), std::string::npos) << result.out;
  const json report = json::parse(ReadFile(scratch_ + "/report/report.json"));
  EXPECT_EQ(report.at("distributed").at("ranks").size(), 2u);
  EXPECT_EQ(report.at("run").at("model"), std::string(kBucket) + "ranks/");
}

TEST_F(ObjectStoreTest, AMissingBucketIsOneLine) {
  ExpectFailure(Analyze("s3://advisor-missing/traces/ --out " + scratch_ + "/report"),
                "s3://advisor-missing/traces/: cannot list: NoSuchBucket", "(HTTP 404)");
}

TEST_F(ObjectStoreTest, RefusedCredentialsAreOneLineThatHoldsNoSecret) {
  environment_["AWS_SECRET_ACCESS_KEY"] = "wrong-secret-of-the-test";
  CommandResult result = Analyze(std::string(kBucket) + "plain/ --out " + scratch_ + "/report");
  ExpectFailure(result, "s3://advisor-test/plain/: cannot list: SignatureDoesNotMatch",
                "(HTTP 403)");
  EXPECT_EQ(result.err.find("wrong-secret-of-the-test"), std::string::npos) << result.err;

  environment_["AWS_ACCESS_KEY_ID"] = "AKIAUNKNOWNTOMOTO000";
  result = Analyze(std::string(kBucket) + "plain/ --out " + scratch_ + "/report");
  ExpectFailure(result, "s3://advisor-test/plain/: cannot list: InvalidAccessKeyId", "(HTTP 403)");
  EXPECT_EQ(result.err.find("AKIAUNKNOWNTOMOTO000"), std::string::npos) << result.err;
}

TEST_F(ObjectStoreTest, ATruncatedObjectIsOneLineNamingItsUrl) {
  ExpectFailure(Analyze(std::string(kBucket) + "cut/trace.json.gz --out " + scratch_ + "/report"),
                "s3://advisor-test/cut/trace.json.gz: byte ", "the gzip data ends early");
}

TEST_F(ObjectStoreTest, AReadTheServerBreaksOffIsOneLine) {
  environment_["AWS_ENDPOINT_URL"] = Endpoint("broken");
  ExpectFailure(
      Analyze(std::string(kBucket) + "halfway.json --out " + scratch_ + "/report"),
      "s3://advisor-test/halfway.json: cannot read: ", "the connection broke off mid-transfer");
}

TEST_F(ObjectStoreTest, AStalledReadEndsAtTheTimeout) {
  environment_["AWS_ENDPOINT_URL"] = Endpoint("broken");
  environment_["ADVISOR_S3_TIMEOUT_S"] = "1";
  ExpectFailure(Analyze(std::string(kBucket) + "stall.json --out " + scratch_ + "/report"),
                "s3://advisor-test/stall.json: cannot read: ",
                "the store did not answer for 1 s (ADVISOR_S3_TIMEOUT_S)");
}

TEST_F(ObjectStoreTest, AnUploadTheServerBreaksOffIsOneLine) {
  environment_["AWS_ENDPOINT_URL"] = Endpoint("broken");
  ExpectFailure(Analyze(kTrace + " --out " + kBucket + "runs/broken/"),
                "s3://advisor-test/runs/broken/report.html: cannot write: ",
                "the connection broke off mid-transfer");
}

// What a failed upload leaves: no report.json, not even the previous run's, and none of the
// files it had uploaded before the failure.
TEST_F(ObjectStoreTest, AFailedUploadLeavesNoReportAtTheDestination) {
  const std::unique_ptr<ObjectStore> store = Store();
  const ObjectUrl run = ParseObjectUrl(std::string(kBucket) + "runs/failed/");
  for (const char* name : {"report.md", "report.json"}) {
    std::ofstream(scratch_ + "/" + name) << "{}";
  }
  UploadReport(*store, scratch_, {"report.json", "report.md"}, run);
  ASSERT_EQ(store->List(run), (std::vector<std::string>{"report.json", "report.md"}));

  // report.html cannot be read: the upload fails after report.md went up.
  EXPECT_THROW(UploadReport(*store, scratch_, {"report.json", "report.md", "report.html"}, run),
               ObjectStoreError);
  EXPECT_EQ(store->List(run), std::vector<std::string>{});
}

TEST(ObjectStoreWithoutCurlTest, RefusesS3UrlsWithOneLine) {
  if (HasObjectStoreSupport()) GTEST_SKIP() << "this advisor was built with libcurl";
  const std::string scratch = FreshFolder(ADVISOR_TEST_SCRATCH_DIR, "without_curl");
  const CommandResult result = RunCommand(
      std::string(ADVISOR_BINARY) + " analyze s3://advisor-test/plain/ --out " + scratch + "/r",
      scratch);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.err.find("s3://advisor-test/plain/: this advisor was built without libcurl"),
            std::string::npos)
      << result.err;
}

}  // namespace
}  // namespace advisor::testing
