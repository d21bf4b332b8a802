#include "engine/autotest/worker_result.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace advisor {
namespace {

using nlohmann::json;

// Ten thousand steps take well under a megabyte; a larger file is not a result.
constexpr std::uintmax_t kMaxResultBytes = 16 << 20;

[[noreturn]] void Fail(const std::string& source, const std::string& field,
                       const std::string& problem) {
  throw WorkerResultError(source + ": " + field + ": " + problem);
}

bool IsFiniteNumber(const json& value) {
  return value.is_number() && std::isfinite(value.get<double>());
}

}  // namespace

WorkerResult ParseWorkerResult(const std::string& json_text, const std::string& source) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::parse_error& error) {
    const std::string message = error.what();
    throw WorkerResultError(source + ": not valid JSON: " + message.substr(0, message.find('\n')));
  }
  if (!root.is_object()) Fail(source, "top level", "must be a JSON object");

  WorkerResult result;
  if (root.contains("skipped")) {
    const json& skipped = root["skipped"];
    if (!skipped.is_string() || skipped.get<std::string>().empty()) {
      Fail(source, "skipped", "must be a non-empty string (the reason)");
    }
    result.skipped = skipped.get<std::string>();
    return result;
  }

  const json& steps = root.contains("step_ms") ? root["step_ms"] : json();
  if (!steps.is_array() || steps.empty()) {
    Fail(source, "step_ms", "must be a non-empty list of positive numbers");
  }
  for (const json& step : steps) {
    if (!IsFiniteNumber(step) || step.get<double>() <= 0) {
      Fail(source, "step_ms", "must hold positive numbers, got " + step.dump());
    }
    result.step_ms.push_back(step.get<double>());
  }

  const json& samples = root.contains("samples_per_step") ? root["samples_per_step"] : json();
  if (!samples.is_number_integer() || samples.get<long long>() < 1 ||
      samples.get<long long>() > 1'000'000'000) {
    Fail(source, "samples_per_step", "must be a positive integer, got " + samples.dump());
  }
  result.samples_per_step = static_cast<int>(samples.get<long long>());

  if (!root.contains("peak_memory_mb"))
    Fail(source, "peak_memory_mb", "missing (null when unknown)");
  const json& peak = root["peak_memory_mb"];
  if (!peak.is_null()) {
    if (!IsFiniteNumber(peak) || peak.get<double>() < 0) {
      Fail(source, "peak_memory_mb", "must be a number of MB or null, got " + peak.dump());
    }
    result.peak_memory_mb = peak.get<double>();
  }

  // JSON has no NaN or infinity, so a worker whose loss diverged writes null.
  if (!root.contains("loss")) Fail(source, "loss", "missing (null when not finite)");
  const json& loss = root["loss"];
  if (!loss.is_null()) {
    if (!IsFiniteNumber(loss)) Fail(source, "loss", "must be a number or null, got " + loss.dump());
    result.loss = loss.get<double>();
  }

  if (root.contains("sites")) {
    const json& sites = root["sites"];
    if (!sites.is_array()) Fail(source, "sites", "must be a list of module paths");
    for (const json& site : sites) {
      if (!site.is_string()) Fail(source, "sites", "must hold strings, got " + site.dump());
      result.sites.push_back(site.get<std::string>());
    }
  }
  return result;
}

WorkerResult ReadWorkerResult(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    throw WorkerResultError(path + ": the worker wrote no result file");
  }
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw WorkerResultError(path + ": cannot read: " + error.message());
  if (size > kMaxResultBytes) {
    throw WorkerResultError(path + ": " + std::to_string(size) +
                            " bytes is too large for a result");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return ParseWorkerResult(text.str(), path);
}

}  // namespace advisor
