#include "engine/script/script_candidate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/autotest/process.h"
#include "engine/autotest/tolerance.h"
#include "engine/json_input/json_document.h"
#include "engine/json_input/json_field.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

using nlohmann::json;

json OverrideValue(const std::optional<bool>& value) { return *value; }
json OverrideValue(const std::optional<int>& value) { return *value; }
json OverrideValue(const std::optional<std::string>& value) { return *value; }
json OverrideValue(const std::optional<ThreadCount>& value) { return value->count; }
json OverrideValue(const std::optional<std::vector<std::string>>& value) { return *value; }

// The knobs as the probe reads them (probes/python/site/advisor_probe/knobs.py); a thread count of
// 0 is one per physical core.
json OverridesToJson(const RecipeOverrides& overrides) {
  json out = json::object();
  ForEachOverrideField([&](const char* name, auto member) {
    if (overrides.*member) out[name] = OverrideValue(overrides.*member);
  });
  return out;
}

// The tolerance of each floating dtype for a candidate whose numerics the probe checks inside the
// run (probes/python/site/advisor_probe/numerics_check.py); integers must match exactly there.
json ToleranceTable(ToleranceClass tolerance) {
  json table = json::object();
  for (const char* dtype : {"float64", "float32", "float16", "bfloat16"}) {
    // JSON has no infinity: an unchecked class admits any finite difference.
    table[dtype] =
        std::min(NumericsTolerance(dtype, tolerance), std::numeric_limits<double>::max());
  }
  return table;
}

std::string PythonPath(const std::string& probe_dir) {
  std::string path = probe_dir + "/site";
  if (const char* existing = std::getenv("PYTHONPATH"); existing != nullptr && *existing) {
    path += std::string(":") + existing;
  }
  return path;
}

std::string ReadSmall(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str().substr(0, 1 << 20);
}

}  // namespace

std::map<std::string, std::string> ScriptBenchEnvironment(const ScriptCandidateOptions& options,
                                                          const CandidateSpec* candidate,
                                                          const std::string& result_path,
                                                          bool losses_only) {
  const json config = {
      {"library", options.probe_dir + "/libadvisor_probe.so"},
      {"build_info", options.probe_dir + "/build_info.json"},
      {"result", result_path},
      {"warmup", losses_only ? 0 : options.warmup},
      {"steps", losses_only ? 0 : options.steps},
      {"loss_steps", losses_only ? options.loss_steps : 0},
      {"step_timeout_s", options.step_timeout.count()},
      {"overrides", candidate ? OverridesToJson(candidate->overrides) : json::object()}};
  return {{"PYTHONPATH", PythonPath(options.probe_dir)}, {"ADVISOR_PROBE_BENCH", config.dump()}};
}

ScriptCandidateRunner::ScriptCandidateRunner(ScriptCandidateOptions options, AbSettings settings)
    : options_(std::move(options)), settings_(settings), scratch_("advisor-script-numerics-") {
  const std::map<std::string, std::string> user = InductorEnvironment();
  if (user.count("TORCHINDUCTOR_CACHE_DIR") == 0) {
    compile_cache_dir_.emplace("advisor-compile-cache-");
  }
  compile_cache_ =
      CompileCacheEnvironment(compile_cache_dir_ ? compile_cache_dir_->path() : "", user);
}

std::string ScriptCandidateRunner::SharedByRuns() const {
  return DescribeCompileCache(compile_cache_);
}

std::map<std::string, std::string> ScriptCandidateRunner::RunEnvironment(
    const CandidateSpec* candidate, const std::string& result_path, bool losses_only) const {
  std::map<std::string, std::string> env =
      ScriptBenchEnvironment(options_, candidate, result_path, losses_only);
  env.insert(compile_cache_.env.begin(), compile_cache_.env.end());
  return env;
}

CandidateCommand ScriptCandidateRunner::BenchmarkCommand(const CandidateSpec* candidate,
                                                         const std::string& result_path) const {
  return CandidateCommand{options_.command, RunEnvironment(candidate, result_path, false)};
}

std::optional<CandidateCommand> ScriptCandidateRunner::BlocksCommand(
    const std::vector<CandidateSpec>& candidates, const BlockDesign& design,
    const std::string& result_path) const {
  json listed = json::array();
  for (const CandidateSpec& candidate : candidates) {
    json entry = {{"id", candidate.id}, {"overrides", OverridesToJson(candidate.overrides)}};
    if (candidate.preserves_semantics) entry["check"] = ToleranceTable(candidate.tolerance);
    listed.push_back(std::move(entry));
  }
  CandidateCommand command{options_.command, RunEnvironment(nullptr, result_path, false)};
  json config = json::parse(command.env.at("ADVISOR_PROBE_BENCH"));
  config["blocks"] = {{"candidates", listed},
                      {"settle", design.settle_steps},
                      {"steps", design.block_steps},
                      {"cycles", design.cycles}};
  command.env["ADVISOR_PROBE_BENCH"] = config.dump();
  return command;
}

std::vector<double> ScriptCandidateRunner::Losses(const CandidateSpec* candidate,
                                                  std::string& failure) const {
  const std::string name = candidate ? candidate->id : "baseline";
  const std::string result_path =
      (std::filesystem::path(scratch_.path()) / (name + "-losses.json")).string();
  std::error_code ignored;
  std::filesystem::remove(result_path, ignored);
  ProcessSpec spec;
  spec.argv = options_.command;
  spec.env = RunEnvironment(candidate, result_path, true);
  if (candidate) {
    for (const auto& [variable, value] : candidate->env) spec.env[variable] = value;
  }
  spec.timeout = settings_.candidate_timeout;
  spec.stderr_tail_bytes = settings_.stderr_tail_bytes;
  const ProcessOutcome outcome = RunProcess(spec);
  if (!outcome.Succeeded()) {
    failure = "the " + name + " run " + outcome.Describe();
    if (!outcome.stderr_tail.empty()) failure += "; stderr tail:\n" + outcome.stderr_tail;
    return {};
  }
  // Written by the probe in the script's process: checked like any candidate result. What
  // happened comes first: a path in advisor's scratch folder and a field's name tell the user
  // nothing of a script that ended before its loss steps, or of a candidate the probe skipped.
  std::error_code absent;
  if (!std::filesystem::exists(result_path, absent)) {
    failure = "the " + name + " run ended (" + outcome.Describe() +
              ") before the probe recorded the losses of its first steps";
    if (!outcome.stderr_tail.empty()) failure += "; stderr tail:\n" + outcome.stderr_tail;
    return {};
  }
  try {
    const json root = ParseJsonDocument(ReadSmall(result_path), result_path);
    const JsonField result(root, result_path);
    if (const std::optional<JsonField> skipped = result.Optional("skipped")) {
      failure = "the " + name + " run did not apply it: " + skipped->Text();
      return {};
    }
    const JsonField losses = result.Required("losses");
    std::vector<double> values;
    for (const JsonField& loss : losses.Elements(1, 1000)) {
      // A loss that stopped being finite is written as null.
      values.push_back(loss.value().is_number() ? loss.value().get<double>() : std::nan(""));
    }
    return values;
  } catch (const JsonInputError& error) {
    failure = "the " + name + " run's losses, as its probe wrote them, could not be read: " +
              error.what();
    return {};
  }
}

NumericsVerdict ScriptCandidateRunner::CheckNumerics(const CandidateSpec& candidate) {
  if (!baseline_run_) {
    baseline_ = Losses(nullptr, baseline_failure_);
    baseline_run_ = true;
  }
  NumericsVerdict verdict;
  if (!baseline_failure_.empty()) {
    verdict.detail = baseline_failure_;
    return verdict;
  }
  std::string failure;
  const std::vector<double> losses = Losses(&candidate, failure);
  if (!failure.empty()) {
    verdict.detail = failure;
    return verdict;
  }
  return CompareLosses(baseline_, losses, candidate.tolerance);
}

NumericsVerdict CompareLosses(const std::vector<double>& baseline,
                              const std::vector<double>& candidate, ToleranceClass tolerance) {
  NumericsVerdict verdict;
  verdict.numerics.tolerance = NumericsTolerance("float32", tolerance);
  verdict.numerics.checked_in = measured_in::kProcesses;
  if (baseline.size() != candidate.size()) {
    verdict.outcome = NumericsVerdict::Outcome::kExceeded;
    verdict.detail = "the candidate ran " + std::to_string(candidate.size()) +
                     " steps' losses, the baseline " + std::to_string(baseline.size());
    return verdict;
  }
  std::size_t worst = 0;
  for (std::size_t i = 0; i < baseline.size(); ++i) {
    if (!std::isfinite(baseline[i]) || !std::isfinite(candidate[i])) {
      verdict.outcome = NumericsVerdict::Outcome::kExceeded;
      verdict.numerics.max_abs_diff = verdict.numerics.max_rel_diff = INFINITY;
      verdict.detail = "the loss of step " + std::to_string(i + 1) + " is not finite (" +
                       Printf("%g", baseline[i]) + " baseline, " + Printf("%g", candidate[i]) +
                       " candidate)";
      return verdict;
    }
    const double difference = std::abs(baseline[i] - candidate[i]);
    const double scale = std::max({std::abs(baseline[i]), std::abs(candidate[i]), 1e-12});
    if (difference / scale >= verdict.numerics.max_rel_diff) {
      verdict.numerics.max_rel_diff = difference / scale;
      worst = i;
    }
    verdict.numerics.max_abs_diff = std::max(verdict.numerics.max_abs_diff, difference);
  }
  const bool within = verdict.numerics.max_rel_diff <= verdict.numerics.tolerance;
  verdict.outcome = within ? NumericsVerdict::Outcome::kWithinTolerance
                           : NumericsVerdict::Outcome::kExceeded;
  verdict.detail = Printf("loss of step %zu: %.6g baseline, %.6g candidate (relative difference "
                          "%.2e, tolerance %.0e, %zu steps compared)",
                          worst + 1, baseline[worst], candidate[worst],
                          verdict.numerics.max_rel_diff, verdict.numerics.tolerance,
                          baseline.size());
  return verdict;
}

}  // namespace advisor
