#include "engine/autotest/candidate_result.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/util/new_file.h"

namespace advisor {
namespace {

using nlohmann::json;

// Ten thousand steps take well under a megabyte; a larger file is not a result.
constexpr std::uintmax_t kMaxResultBytes = 16 << 20;

[[noreturn]] void Fail(const std::string& source, const std::string& field,
                       const std::string& problem) {
  throw CandidateResultError(source + ": " + field + ": " + problem);
}

bool IsFiniteNumber(const json& value) {
  return value.is_number() && std::isfinite(value.get<double>());
}

// JSON has no NaN or infinity: a value that is not finite is written as null.
json NumberOrNull(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

void WriteWhole(const std::string& path, const json& content) {
  // Never through a link or into a file someone placed there: see new_file.h.
  const std::string temporary = path + ".partial";
  if (const int error = WriteNewFile(temporary, content.dump() + "\n")) {
    throw std::runtime_error("cannot write " + temporary + ": " + std::strerror(error));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot write " + path + ": " + reason);
  }
}

std::string ReadBounded(const std::string& path, const std::string& missing) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw CandidateResultError(path + ": " + missing);
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) throw CandidateResultError(path + ": cannot read: " + error.message());
  if (size > kMaxResultBytes) {
    throw CandidateResultError(path + ": " + std::to_string(size) +
                            " bytes is too large for a result");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json ParseObject(const std::string& json_text, const std::string& source) {
  json root;
  try {
    root = json::parse(json_text);
  } catch (const json::exception& error) {  // a syntax error, or a number beyond double
    const std::string message = error.what();
    throw CandidateResultError(source + ": not valid JSON: " + message.substr(0, message.find('\n')));
  }
  if (!root.is_object()) Fail(source, "top level", "must be a JSON object");
  return root;
}

// Both files say "skipped" with a reason instead of results when the candidate did not apply.
std::string SkippedReason(const json& root, const std::string& source) {
  if (!root.contains("skipped")) return "";
  const json& skipped = root["skipped"];
  if (!skipped.is_string() || skipped.get<std::string>().empty()) {
    Fail(source, "skipped", "must be a non-empty string (the reason)");
  }
  return skipped.get<std::string>();
}

std::vector<std::string> Sites(const json& root, const std::string& source) {
  std::vector<std::string> paths;
  if (!root.contains("sites")) return paths;
  const json& sites = root["sites"];
  if (!sites.is_array()) Fail(source, "sites", "must be a list of module paths");
  for (const json& site : sites) {
    if (!site.is_string()) Fail(source, "sites", "must hold strings, got " + site.dump());
    paths.push_back(site.get<std::string>());
  }
  return paths;
}

// `code_changes`: [{"module_type", "method", "diff"}], all strings; absent is none.
std::vector<MethodChange> CodeChanges(const json& root, const std::string& source) {
  std::vector<MethodChange> changes;
  if (!root.contains("code_changes")) return changes;
  const json& list = root["code_changes"];
  if (!list.is_array()) Fail(source, "code_changes", "must be a list");
  for (const json& item : list) {
    const auto text = [&](const char* field) {
      if (!item.is_object() || !item.contains(field) || !item[field].is_string()) {
        Fail(source, "code_changes", std::string("each must have a string \"") + field + "\"");
      }
      return item[field].get<std::string>();
    };
    changes.push_back({text("module_type"), text("method"), text("diff")});
  }
  return changes;
}

double NonNegative(const json& root, const std::string& source, const char* field) {
  const json& value = root.contains(field) ? root[field] : json();
  if (!IsFiniteNumber(value) || value.get<double>() < 0) {
    Fail(source, field, "must be a non-negative number, got " + value.dump());
  }
  return value.get<double>();
}

}  // namespace

void WriteCandidateResult(const std::string& path, const CandidateResult& result) {
  if (!result.skipped.empty()) {
    WriteWhole(path, {{"skipped", result.skipped}});
    return;
  }
  WriteWhole(path, {{"step_ms", result.step_ms},
                    {"peak_memory_mb", NumberOrNull(result.peak_memory_mb)},
                    {"samples_per_step", result.samples_per_step},
                    {"loss", NumberOrNull(result.loss)},
                    {"sites", result.sites},
                    {"warmup_s", NumberOrNull(result.warmup_s)}});
}

void WriteNumericsResult(const std::string& path, const NumericsResult& result) {
  if (!result.skipped.empty()) {
    WriteWhole(path, {{"skipped", result.skipped}});
    return;
  }
  json code_changes = json::array();
  for (const MethodChange& change : result.code_changes) {
    code_changes.push_back(
        {{"module_type", change.module_type}, {"method", change.method}, {"diff", change.diff}});
  }
  WriteWhole(path, {{"within_tolerance", result.within_tolerance},
                    {"max_abs_diff", result.numerics.max_abs_diff},
                    {"max_rel_diff", result.numerics.max_rel_diff},
                    {"tolerance", result.numerics.tolerance},
                    {"worst", result.worst},
                    {"compared", result.compared},
                    {"sites", result.sites},
                    {"code_changes", code_changes}});
}

CandidateResult ParseCandidateResult(const std::string& json_text, const std::string& source) {
  const json root = ParseObject(json_text, source);
  CandidateResult result;
  result.skipped = SkippedReason(root, source);
  if (!result.skipped.empty()) return result;

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

  // A worker whose loss diverged writes null.
  if (!root.contains("loss")) Fail(source, "loss", "missing (null when not finite)");
  const json& loss = root["loss"];
  if (!loss.is_null()) {
    if (!IsFiniteNumber(loss)) Fail(source, "loss", "must be a number or null, got " + loss.dump());
    result.loss = loss.get<double>();
  }

  result.sites = Sites(root, source);
  if (root.contains("warmup_s") && !root["warmup_s"].is_null()) {
    result.warmup_s = NonNegative(root, source, "warmup_s");
  }
  return result;
}

CandidateResult ReadCandidateResult(const std::string& path) {
  return ParseCandidateResult(ReadBounded(path, "the worker wrote no result file"), path);
}

NumericsResult ReadNumericsResult(const std::string& path) {
  const json root = ParseObject(ReadBounded(path, "the worker wrote no numerics result"), path);
  NumericsResult result;
  result.skipped = SkippedReason(root, path);
  if (!result.skipped.empty()) return result;

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
  result.sites = Sites(root, path);
  result.code_changes = CodeChanges(root, path);
  return result;
}

}  // namespace advisor
