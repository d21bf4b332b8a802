#include "engine/object_store/s3_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

namespace advisor {
namespace {

namespace fs = std::filesystem;

class S3ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = fs::temp_directory_path() /
            ("advisor-s3-config-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(home_);
    fs::create_directories(home_ / ".aws");
    variables_["HOME"] = home_.string();
  }
  void TearDown() override { fs::remove_all(home_); }

  void WriteAwsFile(const std::string& name, const std::string& text) {
    std::ofstream(home_ / ".aws" / name) << text;
  }
  S3Config Resolve() const {
    return ResolveS3Config([this](const std::string& name) -> std::optional<std::string> {
      const auto found = variables_.find(name);
      if (found == variables_.end()) return std::nullopt;
      return found->second;
    });
  }
  std::string Refusal() const {
    try {
      Resolve();
    } catch (const std::runtime_error& error) {
      return error.what();
    }
    return "(accepted)";
  }

  fs::path home_;
  std::map<std::string, std::string> variables_;
};

TEST_F(S3ConfigTest, EnvironmentComesFirst) {
  WriteAwsFile("credentials",
               "[default]\naws_access_key_id = FILEKEY\naws_secret_access_key = FILESECRET\n");
  variables_["AWS_ACCESS_KEY_ID"] = "ENVKEY";
  variables_["AWS_SECRET_ACCESS_KEY"] = "ENVSECRET";
  variables_["AWS_SESSION_TOKEN"] = "ENVTOKEN";
  variables_["AWS_DEFAULT_REGION"] = "eu-west-1";
  const S3Config config = Resolve();
  EXPECT_EQ(config.access_key_id, "ENVKEY");
  EXPECT_EQ(config.secret_access_key, "ENVSECRET");
  EXPECT_EQ(config.session_token, "ENVTOKEN");
  EXPECT_EQ(config.region, "eu-west-1");
  EXPECT_EQ(config.endpoint, "https://s3.eu-west-1.amazonaws.com");
  EXPECT_FALSE(config.custom_endpoint);
  variables_["AWS_REGION"] = "ap-south-1";
  EXPECT_EQ(Resolve().region, "ap-south-1");
}

TEST_F(S3ConfigTest, ReadsTheProfileFromTheSharedFiles) {
  WriteAwsFile("credentials",
               "[default]\naws_access_key_id = DEFAULTKEY\naws_secret_access_key = DEFAULTSECRET\n"
               "# a comment\n[ci]\naws_access_key_id=CIKEY\naws_secret_access_key=CISECRET\n"
               "aws_session_token = CITOKEN\n");
  WriteAwsFile("config",
               "[default]\nregion = us-west-2\n[profile ci]\nregion = eu-central-1\n"
               "endpoint_url = http://127.0.0.1:9000/\ns3 =\n  addressing_style = path\n");
  S3Config config = Resolve();
  EXPECT_EQ(config.access_key_id, "DEFAULTKEY");
  EXPECT_EQ(config.region, "us-west-2");

  variables_["AWS_PROFILE"] = "ci";
  config = Resolve();
  EXPECT_EQ(config.access_key_id, "CIKEY");
  EXPECT_EQ(config.secret_access_key, "CISECRET");
  EXPECT_EQ(config.session_token, "CITOKEN");
  EXPECT_EQ(config.region, "eu-central-1");
  EXPECT_EQ(config.endpoint, "http://127.0.0.1:9000");  // no trailing '/'
  EXPECT_TRUE(config.custom_endpoint);

  variables_["AWS_ENDPOINT_URL"] = "https://storage.googleapis.com";
  EXPECT_EQ(Resolve().endpoint, "https://storage.googleapis.com");
}

TEST_F(S3ConfigTest, CredentialsInTheConfigFileServeToo) {
  WriteAwsFile("config", "[profile minio]\naws_access_key_id = K\naws_secret_access_key = S\n");
  variables_["AWS_PROFILE"] = "minio";
  EXPECT_EQ(Resolve().access_key_id, "K");
  EXPECT_EQ(Resolve().region, "us-east-1");
}

TEST_F(S3ConfigTest, RefusesMissingOrMalformedSettingsWithOneLine) {
  EXPECT_NE(Refusal().find("no S3 credentials: set AWS_ACCESS_KEY_ID"), std::string::npos)
      << Refusal();
  variables_["AWS_PROFILE"] = "nowhere";
  EXPECT_NE(Refusal().find("AWS_PROFILE: no profile \"nowhere\""), std::string::npos) << Refusal();
  variables_.erase("AWS_PROFILE");
  variables_["AWS_ACCESS_KEY_ID"] = "KEYONLY";
  EXPECT_NE(Refusal().find("AWS_SECRET_ACCESS_KEY is not"), std::string::npos) << Refusal();
  variables_["AWS_SECRET_ACCESS_KEY"] = "TOPSECRET";
  variables_["AWS_ENDPOINT_URL"] = "ftp://example.com";
  EXPECT_NE(Refusal().find("is no http:// or https:// URL"), std::string::npos) << Refusal();
  variables_["AWS_ENDPOINT_URL"] = "http://localhost:9000";
  variables_["ADVISOR_S3_TIMEOUT_S"] = "0";
  EXPECT_NE(Refusal().find("ADVISOR_S3_TIMEOUT_S: \"0\""), std::string::npos) << Refusal();
  variables_["ADVISOR_S3_TIMEOUT_S"] = "5";
  EXPECT_EQ(Resolve().timeout_s, 5);
}

}  // namespace
}  // namespace advisor
