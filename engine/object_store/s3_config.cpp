#include "engine/object_store/s3_config.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>

namespace advisor {
namespace {

using Section = std::map<std::string, std::string>;

std::string Trimmed(const std::string& text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// The `key = value` lines of section `name` of an INI file as the AWS tools write it; nullopt
// where the file or the section is missing. Indented lines continue a nested value (the config
// file's "s3 =" block): they are not keys of the section.
std::optional<Section> ReadSection(const std::string& path, const std::string& name) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::optional<Section> section;
  bool inside = false;
  std::string line;
  while (std::getline(file, line)) {
    const std::string text = Trimmed(line);
    if (text.empty() || text[0] == '#' || text[0] == ';') continue;
    if (text.front() == '[' && text.back() == ']') {
      inside = Trimmed(text.substr(1, text.size() - 2)) == name;
      if (inside && !section) section.emplace();
      continue;
    }
    if (!inside || line[0] == ' ' || line[0] == '\t') continue;
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos) continue;
    (*section)[Trimmed(text.substr(0, equals))] = Trimmed(text.substr(equals + 1));
  }
  return section;
}

std::string Value(const std::optional<Section>& section, const std::string& key) {
  if (!section) return "";
  const auto found = section->find(key);
  return found == section->end() ? "" : found->second;
}

std::string NonEmpty(const EnvironmentLookup& environment, const std::string& name) {
  const std::optional<std::string> value = environment(name);
  return value ? *value : "";
}

long TimeoutSeconds(const EnvironmentLookup& environment) {
  const std::string text = NonEmpty(environment, "ADVISOR_S3_TIMEOUT_S");
  if (text.empty()) return S3Config{}.timeout_s;
  char* end = nullptr;
  const long seconds = std::strtol(text.c_str(), &end, 10);
  if (*end != '\0' || seconds < 1 || seconds > 3600) {
    throw std::runtime_error("ADVISOR_S3_TIMEOUT_S: \"" + text +
                             "\" is no number of seconds from 1 to 3600");
  }
  return seconds;
}

}  // namespace

std::optional<std::string> ProcessEnvironment(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

S3Config ResolveS3Config(const EnvironmentLookup& environment) {
  const std::string home = NonEmpty(environment, "HOME");
  const auto file_of = [&](const std::string& variable, const std::string& default_name) {
    const std::string named = NonEmpty(environment, variable);
    return !named.empty() ? named : home + "/.aws/" + default_name;
  };
  const std::string credentials_file = file_of("AWS_SHARED_CREDENTIALS_FILE", "credentials");
  const std::string config_file = file_of("AWS_CONFIG_FILE", "config");
  const std::string named_profile = NonEmpty(environment, "AWS_PROFILE");
  const std::string profile = named_profile.empty() ? "default" : named_profile;
  const std::optional<Section> credentials = ReadSection(credentials_file, profile);
  const std::optional<Section> config =
      ReadSection(config_file, profile == "default" ? profile : "profile " + profile);
  if (!named_profile.empty() && !credentials && !config) {
    throw std::runtime_error("AWS_PROFILE: no profile \"" + profile + "\" in " + credentials_file +
                             " or " + config_file);
  }

  S3Config result;
  result.access_key_id = NonEmpty(environment, "AWS_ACCESS_KEY_ID");
  if (!result.access_key_id.empty()) {
    result.secret_access_key = NonEmpty(environment, "AWS_SECRET_ACCESS_KEY");
    result.session_token = NonEmpty(environment, "AWS_SESSION_TOKEN");
    if (result.secret_access_key.empty()) {
      throw std::runtime_error("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
    }
  } else {
    // The credentials file first, then the config file, a whole set from one of them.
    for (const std::optional<Section>* section : {&credentials, &config}) {
      result.access_key_id = Value(*section, "aws_access_key_id");
      if (result.access_key_id.empty()) continue;
      result.secret_access_key = Value(*section, "aws_secret_access_key");
      result.session_token = Value(*section, "aws_session_token");
      break;
    }
    if (result.access_key_id.empty() || result.secret_access_key.empty()) {
      throw std::runtime_error(
          "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give profile \"" +
          profile + "\" aws_access_key_id and aws_secret_access_key in " + credentials_file);
    }
  }

  for (const char* variable : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
    if (result.region.empty()) result.region = NonEmpty(environment, variable);
  }
  if (result.region.empty()) result.region = Value(config, "region");
  if (result.region.empty()) result.region = "us-east-1";

  for (const char* variable : {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"}) {
    if (result.endpoint.empty()) result.endpoint = NonEmpty(environment, variable);
  }
  if (result.endpoint.empty()) result.endpoint = Value(config, "endpoint_url");
  result.custom_endpoint = !result.endpoint.empty();
  if (!result.custom_endpoint) result.endpoint = "https://s3." + result.region + ".amazonaws.com";
  if (result.endpoint.rfind("http://", 0) != 0 && result.endpoint.rfind("https://", 0) != 0) {
    throw std::runtime_error("S3 endpoint \"" + result.endpoint +
                             "\" is no http:// or https:// URL (AWS_ENDPOINT_URL)");
  }
  while (result.endpoint.back() == '/') result.endpoint.pop_back();
  result.timeout_s = TimeoutSeconds(environment);
  return result;
}

}  // namespace advisor
