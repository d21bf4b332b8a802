#include "engine/autotest/candidate_result.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/json_input/json_document.h"
#include "engine/json_input/json_field.h"
#include "engine/util/new_file.h"

namespace advisor {
namespace {

using nlohmann::json;

// Ten thousand steps take well under a megabyte; a larger file is not a result.
constexpr std::uintmax_t kMaxResultBytes = 16 << 20;

// JSON has no NaN or infinity: a value that is not finite is written as null.
json NumberOrNull(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

json LookupsOrNull(const std::optional<FxGraphCacheLookups>& lookups) {
  if (!lookups) return nullptr;
  return {{"hits", lookups->hits}, {"misses", lookups->misses}, {"bypasses", lookups->bypasses}};
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
  if (!std::filesystem::exists(path, error)) throw JsonInputError(path + ": " + missing);
  return ReadJsonFile(path, kMaxResultBytes);
}

// Both files say "skipped" with a reason instead of results when the candidate did not apply.
std::string SkippedReason(const JsonField& root) {
  const std::optional<JsonField> skipped = root.Optional("skipped");
  return skipped ? skipped->NonEmptyString() : "";
}

std::vector<std::string> Sites(const JsonField& root) {
  std::vector<std::string> paths;
  if (auto sites = root.Optional("sites")) {
    for (const JsonField& site : sites->Elements()) paths.push_back(site.String());
  }
  return paths;
}

// `code_changes`: [{"module_type", "method", "diff"}], all strings; absent is none.
std::vector<MethodChange> CodeChanges(const JsonField& root) {
  std::vector<MethodChange> changes;
  if (auto list = root.Optional("code_changes")) {
    for (const JsonField& item : list->Elements()) {
      changes.push_back({item.Required("module_type").String(), item.Required("method").String(),
                         item.Required("diff").String()});
    }
  }
  return changes;
}

// `fx_graph_cache`: {"hits", "misses", "bypasses"}, counts; absent or null where the process
// compiled nothing with inductor.
std::optional<FxGraphCacheLookups> FxGraphCache(const JsonField& root) {
  const std::optional<JsonField> cache = root.Optional("fx_graph_cache");
  if (!cache || cache->value().is_null()) return std::nullopt;
  cache->ExpectObject();
  const auto count = [&](const char* name) {
    return static_cast<int>(cache->Required(name).Integer(0, 1'000'000));
  };
  return FxGraphCacheLookups{count("hits"), count("misses"), count("bypasses")};
}

CandidateResult ReadResult(const JsonField& root) {
  root.ExpectObject();
  CandidateResult result;
  result.skipped = SkippedReason(root);
  if (!result.skipped.empty()) return result;
  if (auto out_of_memory = root.Optional("out_of_memory")) {
    result.out_of_memory = out_of_memory->NonEmptyString();
    return result;
  }
  const JsonField steps = root.Required("step_ms");
  for (const JsonField& step : steps.Elements(1)) {
    result.step_ms.push_back(step.Number(NumberRange::Above(0)));
  }
  result.samples_per_step =
      static_cast<int>(root.Required("samples_per_step").Integer(1, 1'000'000'000));
  // Null where the device has no allocator statistics, or where the loss diverged.
  result.peak_memory_mb = root.Required("peak_memory_mb").NumberOrNull(NumberRange::AtLeast(0));
  result.loss = root.Required("loss").NumberOrNull();
  result.sites = Sites(root);
  if (auto warmup = root.Optional("warmup_s")) {
    result.warmup_s = warmup->NumberOrNull(NumberRange::AtLeast(0));
  }
  result.fx_graph_cache = FxGraphCache(root);
  return result;
}

NumericsResult ReadNumerics(const JsonField& root) {
  root.ExpectObject();
  NumericsResult result;
  result.skipped = SkippedReason(root);
  if (!result.skipped.empty()) return result;
  result.within_tolerance = root.Required("within_tolerance").Bool();
  result.numerics.max_abs_diff = root.Required("max_abs_diff").Number(NumberRange::AtLeast(0));
  result.numerics.max_rel_diff = root.Required("max_rel_diff").Number(NumberRange::AtLeast(0));
  result.numerics.tolerance = root.Required("tolerance").Number(NumberRange::AtLeast(0));
  result.worst = root.Required("worst").String();
  result.compared =
      static_cast<int>(root.Required("compared").Integer(1, std::numeric_limits<int>::max()));
  result.sites = Sites(root);
  result.code_changes = CodeChanges(root);
  return result;
}

}  // namespace

void WriteCandidateResult(const std::string& path, const CandidateResult& result) {
  if (!result.skipped.empty()) {
    WriteWhole(path, {{"skipped", result.skipped}});
    return;
  }
  if (!result.out_of_memory.empty()) {
    WriteWhole(path, {{"out_of_memory", result.out_of_memory}});
    return;
  }
  WriteWhole(path, {{"step_ms", result.step_ms},
                    {"peak_memory_mb", NumberOrNull(result.peak_memory_mb)},
                    {"samples_per_step", result.samples_per_step},
                    {"loss", NumberOrNull(result.loss)},
                    {"sites", result.sites},
                    {"warmup_s", NumberOrNull(result.warmup_s)},
                    {"fx_graph_cache", LookupsOrNull(result.fx_graph_cache)}});
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
  return RethrowAs<CandidateResultError>([&] {
    const json document = ParseJsonDocument(json_text, source);
    return ReadResult(JsonField(document, source));
  });
}

CandidateResult ReadCandidateResult(const std::string& path) {
  return ParseCandidateResult(RethrowAs<CandidateResultError>([&] {
                                return ReadBounded(path, "the worker wrote no result file");
                              }),
                              path);
}

NumericsResult ReadNumericsResult(const std::string& path) {
  return RethrowAs<CandidateResultError>([&] {
    const json document =
        ParseJsonDocument(ReadBounded(path, "the worker wrote no numerics result"), path);
    return ReadNumerics(JsonField(document, path));
  });
}

}  // namespace advisor
