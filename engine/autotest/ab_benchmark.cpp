#include "engine/autotest/ab_benchmark.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "engine/autotest/ab_stats.h"
#include "engine/autotest/process.h"
#include "engine/autotest/worker_result.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

// The largest reported peak, or none when no run reported one.
void KeepPeak(std::optional<double>& peak, const std::optional<double>& reported) {
  if (reported) peak = std::max(peak.value_or(0.0), *reported);
}

// One side of the benchmark across its rounds.
struct Side {
  const char* name;                // "baseline" or "candidate"
  const CandidateSpec* candidate;  // null for the baseline
  int samples_per_step = 0;
  std::optional<double> peak_memory_mb;
};

// Runs one worker process and reads its result. Returns "" and fills `result` on success (or when
// the worker declined the candidate), else the reason the run failed.
std::string RunOnce(const Side& side, int round, const WorkerCommandBuilder& build_command,
                    const AbSettings& settings, const std::string& scratch_dir,
                    WorkerResult& result) {
  const std::string prefix = std::string(side.name) + " round " + std::to_string(round) + "/" +
                             std::to_string(settings.rounds) + ": ";
  const std::string id = side.candidate ? side.candidate->id : "baseline";
  const std::string result_path = (std::filesystem::path(scratch_dir) /
                                   (id + "-" + side.name + "-r" + std::to_string(round) + ".json"))
                                      .string();
  std::error_code ignored;
  std::filesystem::remove(result_path, ignored);  // never read a previous run's file

  WorkerCommand command = build_command(side.candidate, result_path);
  if (side.candidate) {
    for (const auto& [name, value] : side.candidate->env) command.env[name] = value;
  }
  ProcessSpec spec;
  spec.argv = command.argv;
  spec.env = command.env;
  spec.timeout = settings.worker_timeout;
  spec.stderr_tail_bytes = settings.stderr_tail_bytes;
  const ProcessOutcome outcome = RunProcess(spec);
  if (!outcome.Succeeded()) {
    std::string reason = prefix + outcome.Describe();
    if (!outcome.stderr_tail.empty()) reason += "; stderr tail:\n" + outcome.stderr_tail;
    return reason;
  }
  try {
    result = ReadWorkerResult(result_path);
  } catch (const WorkerResultError& error) {
    return prefix + error.what();
  }
  if (!result.skipped.empty()) return {};
  if (!result.loss) return prefix + "the loss was not finite";
  if (round > 1 && result.samples_per_step != side.samples_per_step) {
    return prefix + "samples_per_step changed from " + std::to_string(side.samples_per_step) +
           " to " + std::to_string(result.samples_per_step);
  }
  return {};
}

}  // namespace

FixResult NewFixResult(const CandidateSpec& candidate) {
  FixResult fix;
  fix.recipe = candidate.id;
  fix.kind = candidate.kind;
  fix.preserves_semantics = candidate.preserves_semantics;
  return fix;
}

AbResult RunAbBenchmark(const CandidateSpec& candidate, const WorkerCommandBuilder& build_command,
                        const AbSettings& settings, const std::string& scratch_dir,
                        std::ostream& progress) {
  AbResult ab;
  ab.fix = NewFixResult(candidate);
  FixResult& fix = ab.fix;
  const std::string label = "[autotest] " + candidate.id + ": ";

  Side baseline{"baseline", nullptr, 0, std::nullopt};
  Side tried{"candidate", &candidate, 0, std::nullopt};
  std::vector<AbRound> rounds;
  for (int round = 1; round <= settings.rounds; ++round) {
    AbRound measured;
    for (Side* side : {&baseline, &tried}) {
      WorkerResult result;
      const std::string failure =
          RunOnce(*side, round, build_command, settings, scratch_dir, result);
      if (!failure.empty()) {
        fix.status = fix_status::kFailed;
        fix.detail = failure;
        progress << label << "failed: " << failure.substr(0, failure.find('\n')) << "\n";
        return ab;
      }
      if (!result.skipped.empty()) {
        // The worker decides what a model supports; a baseline cannot be skipped.
        fix.status = side->candidate ? fix_status::kSkipped : fix_status::kFailed;
        fix.detail =
            side->candidate ? result.skipped : "baseline: the worker skipped it: " + result.skipped;
        progress << label << fix.status << ": " << fix.detail << "\n";
        return ab;
      }
      side->samples_per_step = result.samples_per_step;
      KeepPeak(side->peak_memory_mb, result.peak_memory_mb);
      if (side->candidate && result.warmup_s) KeepPeak(fix.warmup_s, result.warmup_s);
      (side->candidate ? measured.candidate_ms : measured.baseline_ms) = result.step_ms;
      if (side->candidate && round == 1) fix.sites = result.sites;
      progress << label << "round " << round << "/" << settings.rounds << " " << side->name << " "
               << Printf("%.1f", Median(result.step_ms)) << " ms\n";
    }
    // A rewrite that found nothing to change would only benchmark the baseline against itself.
    if (round == 1 && !candidate.rewrites.empty() && fix.sites.empty()) {
      fix.status = fix_status::kSkipped;
      fix.detail = "not applicable: the rewrite changed no site in this model";
      progress << label << "skipped: " << fix.detail << "\n";
      return ab;
    }
    rounds.push_back(std::move(measured));
  }

  const AbMeasurement measurement =
      MeasureAb(rounds, baseline.samples_per_step, tried.samples_per_step);
  fix.baseline = measurement.baseline;
  fix.candidate = measurement.candidate;
  fix.speedup = measurement.speedup;
  fix.speedup_low = measurement.speedup_low;
  fix.speedup_high = measurement.speedup_high;
  fix.peak_memory_mb = tried.peak_memory_mb;
  ab.baseline_peak_memory_mb = baseline.peak_memory_mb;
  ab.baseline_samples_per_s = measurement.baseline_samples_per_s;
  ab.candidate_samples_per_s = measurement.candidate_samples_per_s;

  const std::string ratio = Printf("%.3fx", fix.speedup) + " (rounds " +
                            Printf("%.3fx", fix.speedup_low) + " to " +
                            Printf("%.3fx", fix.speedup_high) + ")";
  const std::string why_no_change = WhyNoMeasurableChange(measurement, settings.noise_threshold);
  if (!why_no_change.empty()) {
    fix.status = fix_status::kNoChange;
    fix.detail = "no measurable change: " + ratio + ", " + why_no_change;
  } else {
    // A measurable slowdown is not a fix, however correct.
    fix.status = fix.speedup > 1 ? fix_status::kVerified : fix_status::kRejected;
    if (fix.speedup < 1) fix.detail = "slower than the baseline: " + ratio;
  }
  progress << label << fix.status << ", " << ratio << ", "
           << Printf("%.1f", measurement.baseline_samples_per_s) << " -> "
           << Printf("%.1f", measurement.candidate_samples_per_s) << " samples/s\n";
  return ab;
}

}  // namespace advisor
