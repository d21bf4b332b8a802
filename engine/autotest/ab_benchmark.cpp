#include "engine/autotest/ab_benchmark.h"

#include <algorithm>
#include <filesystem>
#include <utility>
#include <vector>

#include "engine/autotest/ab_stats.h"
#include "engine/autotest/candidate_process.h"
#include "engine/autotest/candidate_result.h"
#include "engine/util/printable_text.h"
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

// Runs one candidate process and reads its result. Returns "" and fills `result` on success (or
// when the process declined the candidate), else the reason the run failed.
std::string RunOnce(const Side& side, int round, const CandidateRunner& runner,
                    const AbSettings& settings, const std::string& scratch_dir,
                    CandidateResult& result) {
  const std::string prefix = std::string(side.name) + " round " + std::to_string(round) + "/" +
                             std::to_string(settings.max_rounds) + ": ";
  const std::string id = side.candidate ? side.candidate->id : "baseline";
  const std::string result_path = (std::filesystem::path(scratch_dir) /
                                   (id + "-" + side.name + "-r" + std::to_string(round) + ".json"))
                                      .string();
  CandidateProcessRun run = RunCandidateProcess(runner, side.candidate, settings, result_path);
  if (!run.failure.empty()) return prefix + run.failure;
  result = std::move(run.result);
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

void RecordVerdict(const AbMeasurement& measurement, const AbDecision& decision,
                   const std::string& budget_note, AbResult& ab, std::ostream& progress) {
  FixResult& fix = ab.fix;
  fix.baseline = measurement.baseline;
  fix.candidate = measurement.candidate;
  fix.speedup = measurement.speedup;
  fix.speedup_low = measurement.speedup_low;
  fix.speedup_high = measurement.speedup_high;
  if (measurement.interval) {
    fix.speedup_ci_low = measurement.interval->low;
    fix.speedup_ci_high = measurement.interval->high;
  }
  ab.baseline_samples_per_s = measurement.baseline_samples_per_s;
  ab.candidate_samples_per_s = measurement.candidate_samples_per_s;

  std::string ratio = Printf("%.3fx (", fix.speedup);
  if (measurement.interval) {
    ratio += Printf("95 %% interval %.3fx to %.3fx, ", measurement.interval->low,
                    measurement.interval->high);
  }
  ratio += std::to_string(fix.rounds) + (fix.rounds == 1 ? " round" : " rounds") +
           (fix.measured_in == measured_in::kProcess ? " inside the running script)" : ")");
  std::vector<std::string> notes;
  switch (decision.outcome) {
    case AbDecision::Outcome::kFaster:
      fix.status = fix_status::kVerified;
      break;
    case AbDecision::Outcome::kSlower:  // a measurable slowdown is not a fix, however correct
      fix.status = fix_status::kRejected;
      notes.push_back("slower than the baseline: " + ratio);
      break;
    default:
      fix.status = fix_status::kNoChange;
      notes.push_back("no measurable change: " + ratio + ", " + decision.why);
      break;
  }
  if (!budget_note.empty()) notes.push_back(budget_note);
  for (const std::string& note : notes) {
    fix.detail += (fix.detail.empty() ? "" : "; ") + note;
  }
  progress << "[autotest] " << fix.recipe << ": " << fix.status << ", " << ratio << ", "
           << Printf("%.1f", measurement.baseline_samples_per_s) << " -> "
           << Printf("%.1f", measurement.candidate_samples_per_s) << " samples/s\n";
}

AbResult RunAbBenchmark(const CandidateSpec& candidate, const CandidateRunner& runner,
                        const AbSettings& settings, const std::string& scratch_dir,
                        AutotestBudget& budget, int rounds_queued, std::ostream& progress) {
  AbResult ab;
  ab.fix = NewFixResult(candidate);
  FixResult& fix = ab.fix;
  fix.step_statistic = StepStatisticName(settings.statistic);
  fix.measured_in = measured_in::kProcesses;
  const std::string label = "[autotest] " + candidate.id + ": ";

  Side baseline{"baseline", nullptr, 0, std::nullopt};
  Side tried{"candidate", &candidate, 0, std::nullopt};
  std::vector<AbRound> rounds;
  AbMeasurement measurement;
  AbDecision decision;
  std::string budget_note;  // why the rounds stopped before a clear decision or the cap
  for (int round = 1; round <= settings.max_rounds; ++round) {
    if (!budget.RoomForRound()) {
      budget_note = "the autotest budget (" + budget.DescribeLimit() + ") " +
                    (round == 1 ? std::string("was spent")
                                : "ended it after " + std::to_string(round - 1) +
                                      (round == 2 ? " round" : " rounds"));
      break;
    }
    const auto round_start = AutotestBudget::Clock::now();
    AbRound measured;
    for (Side* side : {&baseline, &tried}) {
      CandidateResult result;
      const std::string failure =
          RunOnce(*side, round, runner, settings, scratch_dir, result);
      if (!failure.empty()) {
        fix.status = fix_status::kFailed;
        fix.detail = failure;
        progress << label << "failed: " << PrintableLine(failure.substr(0, failure.find('\n')))
                 << "\n";
        return ab;
      }
      if (!result.skipped.empty()) {
        // The candidate process decides what a model supports; a baseline cannot be skipped.
        fix.status = side->candidate ? fix_status::kSkipped : fix_status::kFailed;
        fix.detail =
            side->candidate ? result.skipped : "baseline: the worker skipped it: " + result.skipped;
        progress << label << fix.status << ": " << PrintableLine(fix.detail) << "\n";
        return ab;
      }
      side->samples_per_step = result.samples_per_step;
      KeepPeak(side->peak_memory_mb, result.peak_memory_mb);
      if (side->candidate) {
        KeepPeak(fix.warmup_s, result.warmup_s);
        // `advisor candidate` reports neither: its rounds list nothing.
        if (result.warmup_s || result.fx_graph_cache) {
          fix.warmup_rounds.push_back({result.warmup_s, result.fx_graph_cache});
        }
      }
      (side->candidate ? measured.candidate_ms : measured.baseline_ms) = result.step_ms;
      if (side->candidate && round == 1) fix.sites = result.sites;
      if (!side->candidate) {
        progress << label << "round " << round << "/" << settings.max_rounds << " baseline "
                 << Printf("%.1f", ComparedStepMs(fix, SummarizeSteps(result.step_ms)))
                 << " ms\n";
      }
    }
    budget.RecordRound(AutotestBudget::Clock::now() - round_start);
    // A rewrite that found nothing to change would only benchmark the baseline against itself.
    if (round == 1 && !candidate.rewrites.empty() && fix.sites.empty()) {
      fix.status = fix_status::kSkipped;
      fix.detail = "not applicable: the rewrite changed no site in this model";
      progress << label << "skipped: " << fix.detail << "\n";
      return ab;
    }
    const double candidate_ms = ComparedStepMs(fix, SummarizeSteps(measured.candidate_ms));
    rounds.push_back(std::move(measured));
    measurement =
        MeasureAb(rounds, baseline.samples_per_step, tried.samples_per_step, settings.statistic);
    decision = DecideAb(measurement, settings.noise_threshold, round == settings.max_rounds);
    const bool decided = decision.outcome != AbDecision::Outcome::kUndecided;
    std::string line = label + "round " + std::to_string(round) + "/" +
                       std::to_string(settings.max_rounds) + " candidate " +
                       Printf("%.1f", candidate_ms) + " ms";
    if (measurement.interval) {
      line += Printf(", %.3fx [%.3fx, %.3fx]", measurement.speedup, measurement.interval->low,
                     measurement.interval->high);
    }
    const std::string left =
        budget.DescribeTimeLeft((decided ? 0 : settings.max_rounds - round) + rounds_queued);
    if (!left.empty()) line += "; " + left;
    progress << line << "\n";
    if (decided) break;
  }
  if (rounds.empty()) {
    fix.status = fix_status::kSkipped;
    fix.detail = "not tried: " + budget_note;
    progress << label << "skipped: " << fix.detail << "\n";
    return ab;
  }
  if (decision.outcome == AbDecision::Outcome::kUndecided) {  // the budget ended the rounds
    decision = DecideAb(measurement, settings.noise_threshold, /*last_round=*/true);
  }

  fix.rounds = static_cast<int>(rounds.size());
  fix.pairs = rounds;
  fix.peak_memory_mb = tried.peak_memory_mb;
  fix.baseline_peak_memory_mb = baseline.peak_memory_mb;
  RecordVerdict(measurement, decision, budget_note, ab, progress);
  return ab;
}

}  // namespace advisor
