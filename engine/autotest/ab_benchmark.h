// The A/B benchmark of one candidate: baseline (A) and candidate (B) each in a fresh process,
// interleaved A B A B ... so that slow drift (clocks, thermals, other tenants) hits both
// sides alike. A crash, hang or malformed result of either side ends the benchmark as "failed"
// with the reason; it never ends advisor.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>

#include "engine/autotest/ab_stats.h"
#include "engine/autotest/autotest_budget.h"
#include "engine/autotest/candidate.h"
#include "engine/autotest/candidate_runner.h"
#include "engine/model/run_report.h"

namespace advisor {

// FixResult::status values.
namespace fix_status {
inline constexpr char kVerified[] = "verified";   // works, measurably faster
inline constexpr char kNoChange[] = "no-change";  // works, but the difference is inside the noise
inline constexpr char kRejected[] = "rejected";  // numerics outside tolerance, or measurably slower
inline constexpr char kFailed[] = "failed";      // a process crashed, hung or wrote a bad result
inline constexpr char kSkipped[] = "skipped";    // not tried: not implemented or not applicable
// After a run that ran out of memory, a candidate run alone (its baseline does not fit):
inline constexpr char kFits[] = "fits";                  // trained its steps without running out
inline constexpr char kOutOfMemory[] = "out-of-memory";  // ran out of memory again
}  // namespace fix_status

struct AbSettings {
  // The most A B pairs a candidate gets. Rounds go on only while the speedup's interval still
  // straddles an edge of the noise band (DecideAb), so a large win is verified in 2 and a small
  // one gets up to this many.
  int max_rounds = 8;
  // Per candidate process, model load and warm-up included.
  std::chrono::milliseconds candidate_timeout{std::chrono::minutes(10)};
  // A speedup within this fraction of 1.0 is reported as "no measurable change".
  double noise_threshold = 0.02;
  // The fastest step, unless the workload waits for its input (the autotest sets kMean then).
  StepStatistic statistic = StepStatistic::kMin;
  std::size_t stderr_tail_bytes = 2000;  // of a failed process, quoted in FixResult::detail
};

// What one benchmark measured, with the numbers FixResult has no field for (yet).
struct AbResult {
  FixResult fix;
  std::optional<double> baseline_samples_per_s;
  std::optional<double> candidate_samples_per_s;
};

// The FixResult fields a candidate determines before anything runs.
FixResult NewFixResult(const CandidateSpec& candidate);

// Settles `ab` as `decision` says of `measurement`: the fix's status, speedup and interval, a
// detail that says why where it is not verified (with `budget_note`, why the rounds stopped
// early, if any), and one progress line. fix.rounds and fix.measured_in are the caller's. Shared
// by the rounds of processes and the blocks inside one (engine/autotest/in_process_ab.h).
void RecordVerdict(const AbMeasurement& measurement, const AbDecision& decision,
                   const std::string& budget_note, AbResult& ab, std::ostream& progress);

// Runs rounds of baseline then candidate, each a process of the command `runner` gives, until
// DecideAb decides, settings.max_rounds are done or `budget` has no room for another round,
// writing result files into `scratch_dir`, and prints one progress line per process on
// `progress`, the last of each round with the interval so far and the time left
// (`rounds_queued`: the rounds later candidates may take). The status is
// "verified", "no-change", "rejected" (measurably slower), "failed", or "skipped" when the
// candidate process reports the candidate does not apply (or a rewrite changed no site, or the
// budget was spent before its first round); numerics are the caller's (RunAutotest).
AbResult RunAbBenchmark(const CandidateSpec& candidate, const CandidateRunner& runner,
                        const AbSettings& settings, const std::string& scratch_dir,
                        AutotestBudget& budget, int rounds_queued, std::ostream& progress);

}  // namespace advisor
