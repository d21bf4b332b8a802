#include "engine/autotest/in_process_ab.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iterator>

#include "engine/autotest/host_pace.h"
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

// The verdict on a check the probe ran; none where it could not run one.
std::optional<NumericsVerdict> VerdictOf(const BlocksResult& result, const std::string& id) {
  const auto checked = result.numerics.find(id);
  if (checked == result.numerics.end() || !checked->second.error.empty()) return std::nullopt;
  NumericsVerdict verdict;
  verdict.numerics = checked->second.numerics;
  verdict.detail = checked->second.detail;
  verdict.outcome = verdict.numerics.max_rel_diff <= verdict.numerics.tolerance
                        ? NumericsVerdict::Outcome::kWithinTolerance
                        : NumericsVerdict::Outcome::kExceeded;
  return verdict;
}

// Why a candidate's numerics were not checked inside the run.
std::string NotCheckedWhy(const BlocksResult& result, const std::string& id) {
  const auto checked = result.numerics.find(id);
  return checked == result.numerics.end()
             ? std::string("the script ended before the numerics check")
             : "its numerics check inside the run failed: " + checked->second.error;
}

// A candidate whose steps waited this share of their time or more for the DataLoader's batches
// is held back by the input pipeline: its verdict's detail says so.
constexpr double kHeldBackShare = 0.1;

// The epochs' starts among the timed steps of the candidate's blocks and the baseline's: how many
// on each side and what they waited, and the loader's epoch, with a line of progress where any
// began in a timed step.
void RecordEpochStarts(const BlocksResult& result, const BlockDesign& design, FixResult& fix,
                       std::ostream& progress) {
  const EpochStartWaits candidate =
      SideEpochStartWaits(result, fix.recipe, /*baseline=*/false, design.block_steps);
  const EpochStartWaits baseline =
      SideEpochStartWaits(result, fix.recipe, /*baseline=*/true, design.block_steps);
  fix.epoch_starts = candidate.steps;
  fix.baseline_epoch_starts = baseline.steps;
  fix.epoch_start_wait_ms = candidate.mean_ms;
  fix.baseline_epoch_start_wait_ms = baseline.mean_ms;
  fix.epoch_batches = result.epoch_batches;
  if (candidate.steps + baseline.steps == 0) return;
  const auto side = [](const EpochStartWaits& waits) {
    return waits.mean_ms ? Printf("%d waiting %.1f ms on average", waits.steps, *waits.mean_ms)
                         : std::string("none");
  };
  progress << "[autotest] " << fix.recipe << ": timed steps that began an epoch"
           << (result.epoch_batches ? Printf(" (of %d batches)", *result.epoch_batches) : "")
           << ": " << side(candidate) << ", the baseline's " << side(baseline) << "\n";
}

// The candidate's and the baseline's waits for batches, from the run's blocks, and where the
// candidate's steps waited a share of their time, a note in its detail and the progress.
void RecordLoaderWaits(const BlocksResult& result, const BlockDesign& design, AbResult& ab,
                       std::ostream& progress) {
  FixResult& fix = ab.fix;
  fix.loader_wait_ms = SideLoaderWaitMs(result, fix.recipe, /*baseline=*/false, design.block_steps);
  fix.baseline_loader_wait_ms =
      SideLoaderWaitMs(result, fix.recipe, /*baseline=*/true, design.block_steps);
  if (fix.loader_wait_ms || fix.baseline_loader_wait_ms) {
    RecordEpochStarts(result, design, fix, progress);
  }
  if (!fix.loader_wait_ms || fix.candidate.mean_ms <= 0 ||
      *fix.loader_wait_ms < kHeldBackShare * fix.candidate.mean_ms) {
    return;
  }
  const std::string note = Printf(
      "held back by the input pipeline: its steps waited %.1f ms of %.1f for the DataLoader's "
      "batches (the baseline's %.1f ms of %.1f)",
      *fix.loader_wait_ms, fix.candidate.mean_ms, fix.baseline_loader_wait_ms.value_or(0.0),
      fix.baseline.mean_ms);
  fix.detail += (fix.detail.empty() ? "" : "; ") + note;
  progress << "[autotest] " << fix.recipe << ": " << note << "\n";
}

// Each side's share of an epoch's start, which its pairs counted (CandidateRounds).
void RecordEpochStartCost(const EpochStart& start, const EpochStartShares& shares, AbResult& ab,
                          std::ostream& progress) {
  FixResult& fix = ab.fix;
  fix.epoch_start_extra_wait_ms = start.extra_wait_ms;
  fix.host_lead_ms = shares.candidate.host_lead_ms;
  fix.baseline_host_lead_ms = shares.baseline.host_lead_ms;
  fix.epoch_start_cost_ms = shares.candidate.cost_ms;
  fix.baseline_epoch_start_cost_ms = shares.baseline.cost_ms;
  progress << "[autotest] " << fix.recipe
           << Printf(
                  ": an epoch's start costs it %.1f ms (its host %.1f ms ahead of the "
                  "device), the baseline %.1f ms (%.1f ms ahead)\n",
                  shares.candidate.cost_ms, shares.candidate.host_lead_ms, shares.baseline.cost_ms,
                  shares.baseline.host_lead_ms);
}

// Which clock paced each side (engine/autotest/host_pace.h), with each side's lead where an
// epoch's start did not already report it; where the candidate's host paced its steps and the
// baseline's device did, a note in its detail and the progress that the speedup follows the
// host's speed.
void RecordHostPace(const BlocksResult& result, const BlockDesign& design, FixResult& fix,
                    std::ostream& progress) {
  const std::optional<CandidatePace> pace = CandidatePaceOf(result, fix.recipe, design.block_steps);
  if (!pace) return;
  fix.host_paced = pace->candidate.host_paced;
  fix.baseline_host_paced = pace->baseline.host_paced;
  if (!fix.host_lead_ms) fix.host_lead_ms = pace->candidate.host_lead_ms;
  if (!fix.baseline_host_lead_ms) fix.baseline_host_lead_ms = pace->baseline.host_lead_ms;
  if (!pace->SpeedupFollowsHost()) return;
  const std::string note = Printf(
      "paced by the host: at its blocks' ends the host was %.1f ms ahead of the device, under "
      "a step (%.1f ms), against the baseline's %.1f ms (a step of %.1f ms), so this speedup "
      "follows the host CPU's speed while it ran; a long run on a busier or slower host gains "
      "less",
      pace->candidate.host_lead_ms, pace->candidate.step_ms, pace->baseline.host_lead_ms,
      pace->baseline.step_ms);
  fix.detail += (fix.detail.empty() ? "" : "; ") + note;
  progress << "[autotest] " << fix.recipe << ": " << note << "\n";
}

// One run of the door's blocks command: its result, or why there is none.
struct BlocksRun {
  std::optional<BlocksResult> result;
  std::string why_not;  // the progress has said it
  double wall_s = 0;
};

// `otherwise`: what becomes of the candidates where the run gives no result, for the progress.
BlocksRun RunBlocks(const std::vector<CandidateSpec>& candidates, const CandidateRunner& runner,
                    const AbSettings& settings, const BlockDesign& design,
                    const std::string& result_path, const std::string& otherwise,
                    std::ostream& progress) {
  std::error_code ignored;
  std::filesystem::remove(result_path, ignored);  // never read a previous run's file
  const std::optional<CandidateCommand> command =
      runner.BlocksCommand(candidates, design, result_path);
  if (!command) return {};

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
  BlocksRun run;
  run.wall_s = process.wall_s;
  std::error_code absent;
  if (!process.Succeeded() || !std::filesystem::exists(result_path, absent)) {
    run.why_not = process.Succeeded()
                      ? "the run that switched them ended before its first block"
                      : "the run that switched them failed (" + process.Describe() + ")";
    progress << "[autotest] " << PrintableLine(run.why_not) << ": " << otherwise << "\n";
    return run;
  }
  try {
    run.result = ReadBlocksResult(result_path);
  } catch (const BlocksResultError& error) {
    run.why_not = error.what();
    progress << "[autotest] " << PrintableLine(run.why_not) << ": " << otherwise << "\n";
    return run;
  }
  if (!run.result->loss) {
    run.result.reset();
    run.why_not = "the loss was not finite at the end of the run that switched them";
    progress << "[autotest] " << run.why_not << ": " << otherwise << "\n";
    return run;
  }
  if (run.result->loader_queue > 0) {
    progress << "[autotest] the DataLoader feeding the steps holds " << run.result->loader_queue
             << " batches ready: " << DrainedBlocks(*run.result, design.settle_steps) << " of "
             << run.result->blocks.size()
             << " blocks, whose side may be faster than the block before it, left out their first "
             << design.settle_steps + run.result->loader_queue
             << " steps, so that their timed steps wait for batches as a long run would\n";
  }
  return run;
}

// The candidates' pairs of full blocks so far, by id, and why each stopped where it did.
struct Pairs {
  std::map<std::string, std::vector<AbRound>> rounds;
  std::map<std::string, std::string> notes;  // for the verdict's detail
  // The first run's, counted in every run's pairs: a second run of a few candidates crosses
  // fewer epochs' starts to read it from.
  std::optional<EpochStart> epoch_start;
  // By candidate, each side's share of that start in the first run (its fix reports them); a
  // second run's pairs count that run's own sides' leads.
  std::map<std::string, EpochStartShares> shares;
  // A candidate measured in a second run too: its blocks of both (AppendBlocksOf), which its
  // waits for batches and its peak memory are read from, as its pairs are.
  std::map<std::string, BlocksResult> both_runs;

  const BlocksResult& BlocksOf(const BlocksResult& first, const std::string& candidate) const {
    const auto both = both_runs.find(candidate);
    return both == both_runs.end() ? first : both->second;
  }

  std::optional<EpochStartShares> SharesIn(const BlocksResult& result, const std::string& candidate,
                                           int block_steps) const {
    if (!epoch_start) return std::nullopt;
    return EpochStartSharesOf(*epoch_start, result, candidate, block_steps);
  }
};

// A candidate whose interval still straddles an edge of the noise band after the first run (an
// interval as wide as 0.53x-1.61x says nothing) gets more pairs in a second run of blocks, up to
// kWideIntervalFactor times the first run's in all, where the budget has room for that run: priced
// by the first run, what it spent outside its blocks and its mean block (CostOfBlocksRun).
void MorePairsForWideIntervals(const std::vector<CandidateSpec>& measured, const BlocksRun& first,
                               const BlockDesign& design, const CandidateRunner& runner,
                               const AbSettings& settings, const AutotestBudget& budget,
                               const std::string& scratch_dir, Pairs& pairs,
                               std::ostream& progress) {
  std::vector<CandidateSpec> wide;
  for (const CandidateSpec& candidate : measured) {
    const std::vector<AbRound>& rounds = pairs.rounds[candidate.id];
    const AbMeasurement measurement = MeasureAb(rounds, 1, 1, settings.statistic);
    if (DecideAb(measurement, settings.noise_threshold, /*last_round=*/false).outcome !=
        AbDecision::Outcome::kUndecided) {
      continue;
    }
    progress << "[autotest] " << candidate.id
             << Printf(": 95 %% interval %.3fx to %.3fx after ", measurement.interval->low,
                       measurement.interval->high)
             << PairsText(rounds.size()) << " straddles the noise band\n";
    wide.push_back(candidate);
  }
  if (wide.empty()) return;

  BlockDesign more = design;
  more.cycles = design.cycles * (kWideIntervalFactor - 1);
  const int blocks = 2 * static_cast<int>(wide.size()) * more.cycles;  // a pair a cycle
  const auto cost = std::chrono::duration_cast<AutotestBudget::Clock::duration>(
      std::chrono::duration<double>(CostOfBlocksRun(*first.result, first.wall_s).PriceS(blocks)));
  if (!budget.RoomFor(cost)) {
    for (const CandidateSpec& candidate : wide) {
      pairs.notes[candidate.id] =
          "more pairs of blocks did not fit the autotest budget (" + budget.DescribeLimit() + ")";
    }
    progress << "[autotest] more pairs of blocks do not fit the autotest budget\n";
    return;
  }
  const BlocksRun second =
      RunBlocks(wide, runner, settings, more,
                (std::filesystem::path(scratch_dir) / "blocks-wide.json").string(),
                "the first run's pairs stand", progress);
  if (!second.result) {
    for (const CandidateSpec& candidate : wide) {
      pairs.notes[candidate.id] = "the second run of blocks gave none: " + second.why_not;
    }
    return;
  }
  for (const CandidateSpec& candidate : wide) {
    std::vector<AbRound> added =
        CandidateRounds(*second.result, candidate.id, design.block_steps,
                        pairs.SharesIn(*second.result, candidate.id, design.block_steps));
    std::vector<AbRound>& rounds = pairs.rounds[candidate.id];
    pairs.notes[candidate.id] = std::to_string(added.size()) + " of its " +
                                PairsText(rounds.size() + added.size()) +
                                " from a second run of the script, its interval being wide";
    if (!second.result->complete) pairs.notes[candidate.id] += " (that run ended early)";
    rounds.insert(rounds.end(), std::make_move_iterator(added.begin()),
                  std::make_move_iterator(added.end()));
    BlocksResult both = *first.result;
    AppendBlocksOf(*second.result, candidate.id, both);
    pairs.both_runs[candidate.id] = std::move(both);
  }
}

}  // namespace

InProcessOutcome RunInProcessAb(const std::vector<CandidateSpec>& candidates,
                                const CandidateRunner& runner, const AbSettings& settings,
                                BlockDesign design, const AutotestBudget& budget,
                                const std::string& scratch_dir, std::ostream& progress) {
  design.cycles = std::min(design.cycles, settings.max_rounds);
  const BlocksRun run = RunBlocks(candidates, runner, settings, design,
                                  (std::filesystem::path(scratch_dir) / "blocks.json").string(),
                                  "each is measured in processes", progress);
  if (!run.result) return NoneDecided(candidates, run.why_not);
  const BlocksResult& result = *run.result;

  InProcessOutcome outcome;
  outcome.wall_s = run.wall_s;
  Pairs pairs;
  pairs.epoch_start = EpochStartOf(result);
  if (pairs.epoch_start) {
    progress << "[autotest] "
             << Printf(
                    "an epoch's first batch waited %.1f ms more than the others (%d start%s): "
                    "each pair is read without the timed steps that began an epoch, and with "
                    "each side's share of a start, the wait less the lead its host keeps over "
                    "the device, spread over the epoch's %d batches, as a long run pays it\n",
                    pairs.epoch_start->extra_wait_ms, pairs.epoch_start->starts,
                    pairs.epoch_start->starts == 1 ? "" : "s", pairs.epoch_start->epoch_batches);
  }
  std::vector<CandidateSpec> measured;  // those with two pairs or more, numerics passed
  for (const CandidateSpec& candidate : candidates) {
    if (candidate.preserves_semantics) {
      const std::optional<NumericsVerdict> verdict = VerdictOf(result, candidate.id);
      if (!verdict) {
        const std::string why = NotCheckedWhy(result, candidate.id);
        progress << "[autotest] " << candidate.id << ": " << PrintableLine(why)
                 << ": checked and measured in processes\n";
        outcome.not_decided[candidate.id] = why;
        continue;
      }
      outcome.numerics[candidate.id] = *verdict;
      if (verdict->outcome != NumericsVerdict::Outcome::kWithinTolerance) {
        outcome.not_decided[candidate.id] = "numerics outside tolerance";
        continue;
      }
    }
    const std::optional<EpochStartShares> shares =
        pairs.SharesIn(result, candidate.id, design.block_steps);
    if (shares) pairs.shares[candidate.id] = *shares;
    std::vector<AbRound> rounds = CandidateRounds(result, candidate.id, design.block_steps, shares);
    if (rounds.size() < 2) {
      const std::string why = "the script ended after " + PairsText(rounds.size()) + " of " +
                              candidate.id + " (2 decide)";
      progress << "[autotest] " << candidate.id << ": " << why << ": measured in processes\n";
      outcome.not_decided[candidate.id] = why;
      continue;
    }
    if (!result.complete) {
      pairs.notes[candidate.id] = "the script ended after " + PairsText(rounds.size());
    }
    pairs.rounds[candidate.id] = std::move(rounds);
    measured.push_back(candidate);
  }
  // A script that ended early would end a second run early too.
  if (result.complete) {
    MorePairsForWideIntervals(measured, run, design, runner, settings, budget, scratch_dir, pairs,
                              progress);
  }

  for (const CandidateSpec& candidate : measured) {
    const std::vector<AbRound>& rounds = pairs.rounds[candidate.id];
    AbResult ab;
    ab.fix = NewFixResult(candidate);
    ab.fix.step_statistic = StepStatisticName(settings.statistic);
    ab.fix.measured_in = measured_in::kProcess;
    ab.fix.rounds = static_cast<int>(rounds.size());
    ab.fix.pairs = rounds;
    if (pairs.epoch_start) {
      RecordEpochStartCost(*pairs.epoch_start, pairs.shares.at(candidate.id), ab, progress);
    }
    const BlocksResult& blocks = pairs.BlocksOf(result, candidate.id);
    ab.fix.peak_memory_mb = SidePeakMemoryMb(blocks, candidate.id, /*baseline=*/false);
    ab.fix.baseline_peak_memory_mb = SidePeakMemoryMb(blocks, candidate.id, /*baseline=*/true);
    // The first compiled block's settle steps compiled: reported apart, as a process's warm-up.
    if (Compiles(candidate.overrides)) {
      ab.fix.warmup_s = FirstSettleS(result, candidate.id, design.settle_steps);
    }
    const AbMeasurement measurement =
        MeasureAb(rounds, result.samples_per_step, result.samples_per_step, settings.statistic);
    const AbDecision decision =
        DecideAb(measurement, settings.noise_threshold, /*last_round=*/true);
    RecordVerdict(measurement, decision, pairs.notes[candidate.id], ab, progress);
    RecordLoaderWaits(blocks, design, ab, progress);
    RecordHostPace(blocks, design, ab.fix, progress);
    outcome.decided.emplace(candidate.id, std::move(ab));
  }
  return outcome;
}

}  // namespace advisor
