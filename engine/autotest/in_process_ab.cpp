#include "engine/autotest/in_process_ab.h"

#include <algorithm>
#include <filesystem>

#include "engine/autotest/process.h"
#include "engine/util/printable_text.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

InProcessOutcome NoneDecided(const std::vector<CandidateSpec>& candidates, const std::string& why) {
  InProcessOutcome outcome;
  for (const CandidateSpec& candidate : candidates) outcome.not_decided[candidate.id] = why;
  return outcome;
}

std::string PairsText(std::size_t pairs) {
  return std::to_string(pairs) + (pairs == 1 ? " pair" : " pairs") + " of full blocks";
}

}  // namespace

InProcessOutcome RunInProcessAb(const std::vector<CandidateSpec>& candidates,
                                const CandidateRunner& runner, const AbSettings& settings,
                                BlockDesign design, const std::string& scratch_dir,
                                std::ostream& progress) {
  design.cycles = std::min(design.cycles, settings.max_rounds);
  const std::string result_path = (std::filesystem::path(scratch_dir) / "blocks.json").string();
  std::error_code ignored;
  std::filesystem::remove(result_path, ignored);  // never read a previous run's file
  const std::optional<CandidateCommand> command =
      runner.BlocksCommand(candidates, design, result_path);
  if (!command) return NoneDecided(candidates, "");

  std::string ids;
  for (const CandidateSpec& candidate : candidates) ids += (ids.empty() ? "" : ", ") + candidate.id;
  progress << "[autotest] measuring " << ids << " inside one run of the script: " << design.cycles
           << " cycles of a baseline and a candidate block of " << design.block_steps
           << " steps each, " << design.settle_steps << " steps after each switch left out\n";
  ProcessSpec spec;
  spec.argv = command->argv;
  spec.env = command->env;
  spec.timeout = settings.candidate_timeout;
  spec.stderr_tail_bytes = settings.stderr_tail_bytes;
  const ProcessOutcome process = RunProcess(spec);
  std::error_code absent;
  if (!process.Succeeded() || !std::filesystem::exists(result_path, absent)) {
    const std::string why = process.Succeeded()
                                ? "the run that switched them ended before its first block"
                                : "the run that switched them failed (" + process.Describe() + ")";
    progress << "[autotest] " << PrintableLine(why) << ": each is measured in processes\n";
    return NoneDecided(candidates, why);
  }
  BlocksResult result;
  try {
    result = ReadBlocksResult(result_path);
  } catch (const BlocksResultError& error) {
    progress << "[autotest] " << PrintableLine(error.what()) << "\n";
    return NoneDecided(candidates, error.what());
  }

  if (!result.loss) {
    const std::string why = "the loss was not finite at the end of the run that switched them";
    progress << "[autotest] " << why << ": each is measured in processes\n";
    return NoneDecided(candidates, why);
  }

  InProcessOutcome outcome;
  for (const CandidateSpec& candidate : candidates) {
    const std::vector<AbRound> rounds = CandidateRounds(result, candidate.id, design.block_steps);
    if (rounds.size() < 2) {
      const std::string why = "the script ended after " + PairsText(rounds.size()) + " of " +
                              candidate.id + " (2 decide)";
      progress << "[autotest] " << candidate.id << ": " << why << ": measured in processes\n";
      outcome.not_decided[candidate.id] = why;
      continue;
    }
    AbResult ab;
    ab.fix = NewFixResult(candidate);
    ab.fix.step_statistic = StepStatisticName(settings.statistic);
    ab.fix.measured_in = measured_in::kProcess;
    ab.fix.rounds = static_cast<int>(rounds.size());
    ab.fix.peak_memory_mb = SidePeakMemoryMb(result, candidate.id, /*baseline=*/false);
    ab.baseline_peak_memory_mb = SidePeakMemoryMb(result, candidate.id, /*baseline=*/true);
    const AbMeasurement measurement =
        MeasureAb(rounds, result.samples_per_step, result.samples_per_step, settings.statistic);
    const AbDecision decision =
        DecideAb(measurement, settings.noise_threshold, /*last_round=*/true);
    const std::string cut_short =
        result.complete ? "" : "the script ended after " + PairsText(rounds.size());
    RecordVerdict(measurement, decision, cut_short, ab, progress);
    outcome.decided.emplace(candidate.id, std::move(ab));
  }
  return outcome;
}

}  // namespace advisor
