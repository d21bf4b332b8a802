#include "engine/worker/result_files.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace advisor {
namespace {

using nlohmann::json;

json NumberOrNull(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

void WriteWhole(const std::string& path, const json& content) {
  const std::string temporary = path + ".partial";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content.dump() << "\n";
    if (!out.flush()) {
      throw std::runtime_error("cannot write " + temporary + ": " + std::strerror(errno));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot write " + path + ": " + reason);
  }
}

[[noreturn]] void Fail(const std::string& source, const std::string& field,
                       const std::string& problem) {
  throw WorkerResultError(source + ": " + field + ": " + problem);
}

double NonNegative(const json& root, const std::string& source, const char* field) {
  const json& value = root.contains(field) ? root[field] : json();
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
    Fail(source, field, "must be a non-negative number, got " + value.dump());
  }
  return value.get<double>();
}

}  // namespace

void WriteWorkerResult(const std::string& path, const WorkerResult& result) {
  if (!result.skipped.empty()) {
    WriteWhole(path, {{"skipped", result.skipped}});
    return;
  }
  WriteWhole(path, {{"step_ms", result.step_ms},
                    {"peak_memory_mb", NumberOrNull(result.peak_memory_mb)},
                    {"samples_per_step", result.samples_per_step},
                    {"loss", NumberOrNull(result.loss)},
                    {"sites", result.sites}});
}

void WriteNumericsResult(const std::string& path, const NumericsResult& result) {
  if (!result.skipped.empty()) {
    WriteWhole(path, {{"skipped", result.skipped}});
    return;
  }
  WriteWhole(path, {{"within_tolerance", result.within_tolerance},
                    {"max_abs_diff", result.numerics.max_abs_diff},
                    {"max_rel_diff", result.numerics.max_rel_diff},
                    {"tolerance", result.numerics.tolerance},
                    {"worst", result.worst},
                    {"compared", result.compared},
                    {"sites", result.sites}});
}

NumericsResult ReadNumericsResult(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path, "file", "the worker wrote no numerics result");
  std::stringstream text;
  text << in.rdbuf();
  json root;
  try {
    root = json::parse(text.str());
  } catch (const json::parse_error& error) {
    const std::string message = error.what();
    throw WorkerResultError(path + ": not valid JSON: " + message.substr(0, message.find('\n')));
  }
  if (!root.is_object()) Fail(path, "top level", "must be a JSON object");

  NumericsResult result;
  if (root.contains("skipped")) {
    if (!root["skipped"].is_string() || root["skipped"].get<std::string>().empty()) {
      Fail(path, "skipped", "must be a non-empty string (the reason)");
    }
    result.skipped = root["skipped"].get<std::string>();
    return result;
  }
  if (!root.contains("within_tolerance") || !root["within_tolerance"].is_boolean()) {
    Fail(path, "within_tolerance", "must be true or false");
  }
  result.within_tolerance = root["within_tolerance"].get<bool>();
  result.numerics.max_abs_diff = NonNegative(root, path, "max_abs_diff");
  result.numerics.max_rel_diff = NonNegative(root, path, "max_rel_diff");
  result.numerics.tolerance = NonNegative(root, path, "tolerance");
  if (!root.contains("worst") || !root["worst"].is_string()) {
    Fail(path, "worst", "must be a string");
  }
  result.worst = root["worst"].get<std::string>();
  if (!root.contains("compared") || !root["compared"].is_number_integer() ||
      root["compared"].get<long long>() < 1) {
    Fail(path, "compared", "must be a positive integer");
  }
  result.compared = static_cast<int>(root["compared"].get<long long>());
  if (root.contains("sites")) {
    const json& sites = root["sites"];
    if (!sites.is_array()) Fail(path, "sites", "must be a list of module paths");
    for (const json& site : sites) {
      if (!site.is_string()) Fail(path, "sites", "must hold strings, got " + site.dump());
      result.sites.push_back(site.get<std::string>());
    }
  }
  return result;
}

}  // namespace advisor
