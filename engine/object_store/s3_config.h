// Where an S3 request goes and as whom, from the places every AWS tool reads them: the
// environment, then the shared credentials and config files of the profile. The secret parts are
// never printed: no error line, log or report holds them (S3Config has no printer on purpose).
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace advisor {

struct S3Config {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // "" unless temporary credentials
  std::string region;         // "us-east-1" where nothing names one
  // "https://s3.REGION.amazonaws.com" unless overridden (MinIO, GCS's
  // https://storage.googleapis.com, a local moto server); no trailing '/'.
  std::string endpoint;
  bool custom_endpoint = false;  // overridden: buckets are addressed by path, not by host name
  // Seconds to connect, and seconds a transfer may move no byte before it is abandoned.
  long timeout_s = 30;
};

// An environment variable's value, std::nullopt where unset.
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string&)>;

// This process's environment.
std::optional<std::string> ProcessEnvironment(const std::string& name);

// The configuration, in the order the AWS CLI reads it:
//  - profile: AWS_PROFILE, else "default";
//  - credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else the
//    profile's aws_access_key_id, aws_secret_access_key and aws_session_token in
//    AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials), else in AWS_CONFIG_FILE (~/.aws/config,
//    section "[profile NAME]", or "[default]");
//  - region: AWS_REGION, AWS_DEFAULT_REGION, else the profile's region in the config file;
//  - endpoint: AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, else the profile's endpoint_url;
//  - timeout: ADVISOR_S3_TIMEOUT_S (1 to 3600).
// Throws std::runtime_error, one line, where no credentials are found, a named profile is in
// neither file, or a value is malformed; the line never holds a secret.
S3Config ResolveS3Config(const EnvironmentLookup& environment = ProcessEnvironment);

}  // namespace advisor
