#include "engine/autotest/step_blocks.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/json_input/json_document.h"
#include "engine/json_input/json_field.h"
#include "engine/json_input/json_input_error.h"

namespace advisor {
namespace {

using nlohmann::json;

// A thousand blocks of a hundred steps take well under a megabyte.
constexpr std::uintmax_t kMaxBlocksResultBytes = 16 << 20;
constexpr std::size_t kMaxBlocks = 10'000;
constexpr std::size_t kMaxStepsPerBlock = 10'000;
constexpr double kDayMs = 24 * 3600 * 1e3;

// A block's whole time, its settle steps included.
double BlockMs(const StepBlock& block) {
  double total_ms = 0;
  for (const double ms : block.settle_ms) total_ms += ms;
  for (const double ms : block.step_ms) total_ms += ms;
  return total_ms;
}

StepBlock ReadBlock(const JsonField& field) {
  field.ExpectObject();
  StepBlock block;
  block.candidate = field.Required("candidate").NonEmptyString();
  const JsonField side = field.Required("side");
  const std::string name = side.String();
  if (name != "baseline" && name != "candidate") side.Fail("must be baseline or candidate");
  block.baseline = name == "baseline";
  block.cycle = static_cast<int>(field.Required("cycle").Integer(0, 1'000'000));
  if (const std::optional<JsonField> settle = field.Optional("settle_ms")) {
    for (const JsonField& step : settle->Elements(0, kMaxStepsPerBlock)) {
      block.settle_ms.push_back(step.Number(NumberRange::Above(0)));
    }
  }
  const JsonField steps = field.Required("step_ms");
  for (const JsonField& step : steps.Elements(1, kMaxStepsPerBlock)) {
    block.step_ms.push_back(step.Number(NumberRange::Above(0)));
  }
  if (const std::optional<JsonField> waits = field.Optional("loader_wait_ms")) {
    // One a timed step. The wait is the host's and, on a GPU, the step the device's
    // (device_steps.py): where the host ran ahead, it waits for a batch while the device still
    // runs the steps queued before, so a wait can exceed its own step's device time (an epoch's
    // start on the H200: 346.7 ms of waiting in a step of 346.2). The block's whole time, its
    // settle steps included, bounds it: the host runs a step or two ahead, not a block.
    const double block_ms = BlockMs(block);
    const std::vector<JsonField> each = waits->Elements(block.step_ms.size(), block.step_ms.size());
    for (const JsonField& wait : each) {
      block.loader_wait_ms.push_back(wait.Number(NumberRange::Within(0, block_ms)));
    }
  }
  if (const std::optional<JsonField> starts = field.Optional("epoch_starts")) {
    // Steps whose wait was recorded: an epoch's start is a batch of the DataLoader's.
    const std::size_t waited = block.loader_wait_ms.size();
    for (const JsonField& start : starts->Elements(0, waited)) {
      const int step = static_cast<int>(start.Integer(0, static_cast<std::int64_t>(waited) - 1));
      if (!block.epoch_starts.empty() && step <= block.epoch_starts.back()) {
        start.Fail("must rise: each a timed step that began an epoch, once");
      }
      block.epoch_starts.push_back(step);
    }
  }
  if (const std::optional<JsonField> lead = field.Optional("host_lead_ms")) {
    // The probe waits for the device at every block's end, so a block's lead is its own work.
    block.host_lead_ms = lead->Number(NumberRange::Within(0, BlockMs(block)));
  }
  if (auto peak = field.Optional("peak_memory_mb")) {
    block.peak_memory_mb = peak->NumberOrNull(NumberRange::AtLeast(0));
  }
  return block;
}

InRunNumerics ReadNumerics(const JsonField& field) {
  field.ExpectObject();
  InRunNumerics check;
  if (const std::optional<JsonField> error = field.Optional("error")) {
    check.error = error->Text();
    return check;
  }
  // null: an output that was not finite, or outputs that did not match, which no tolerance admits.
  constexpr double kNone = std::numeric_limits<double>::infinity();
  check.numerics.max_abs_diff =
      field.Required("max_abs_diff").NumberOrNull(NumberRange::AtLeast(0)).value_or(kNone);
  check.numerics.max_rel_diff =
      field.Required("max_rel_diff").NumberOrNull(NumberRange::AtLeast(0)).value_or(kNone);
  check.numerics.tolerance = field.Required("tolerance").Number(NumberRange::AtLeast(0));
  check.numerics.checked_in = measured_in::kProcess;
  check.detail = field.Required("detail").Text();
  return check;
}

BlocksResult ReadBlocks(const JsonField& root) {
  root.ExpectObject();
  BlocksResult result;
  const JsonField blocks = root.Required("blocks");
  for (const JsonField& block : blocks.Elements(0, kMaxBlocks)) {
    result.blocks.push_back(ReadBlock(block));
  }
  if (const std::optional<JsonField> numerics = root.Optional("numerics")) {
    for (const JsonField& candidate : numerics->Members()) {
      result.numerics.emplace(candidate.key(), ReadNumerics(candidate));
    }
  }
  result.complete = root.Required("complete").Bool();
  result.samples_per_step =
      static_cast<int>(root.Required("samples_per_step").Integer(1, 1'000'000'000));
  result.loss = root.Required("loss").NumberOrNull();
  if (auto warmup = root.Optional("warmup_s")) {
    result.warmup_s = warmup->NumberOrNull(NumberRange::AtLeast(0));
  }
  if (auto queue = root.Optional("loader_queue")) {
    result.loader_queue = static_cast<int>(queue->Integer(0, kMaxStepsPerBlock));
  }
  if (auto batches = root.Optional("epoch_batches")) {
    result.epoch_batches = static_cast<int>(batches->Integer(1, 1'000'000'000));
  }
  if (const std::optional<JsonField> waits = root.Optional("epoch_start_waits_ms")) {
    // An epoch of the run at least, and no wait longer than a day.
    for (const JsonField& wait : waits->Elements(0, kMaxBlocks * kMaxStepsPerBlock)) {
      result.epoch_start_waits_ms.push_back(wait.Number(NumberRange::Within(0, kDayMs)));
    }
  }
  return result;
}

}  // namespace

bool SwitchesBetweenSteps(const CandidateSpec& candidate) {
  if (!candidate.env.empty() || !candidate.rewrites.empty()) return false;
  bool any = false;
  bool all_switchable = true;
  ForEachOverrideField([&](const char* name, auto member) {
    if (!(candidate.overrides.*member)) return;
    any = true;
    static const char* const kSwitchable[] = {
        "allow_tf32",          "cudnn_benchmark", "deterministic",
        "autocast_dtype",      "sdpa_backend",    "intra_op_threads",
        "attn_implementation", "compile",         "compile_mode"};
    all_switchable &= std::any_of(std::begin(kSwitchable), std::end(kSwitchable),
                                  [&](const char* knob) { return std::string(knob) == name; });
  });
  return any && all_switchable;
}

BlocksResult ParseBlocksResult(const std::string& json_text, const std::string& source) {
  return RethrowAs<BlocksResultError>([&] {
    const json document = ParseJsonDocument(json_text, source);
    return ReadBlocks(JsonField(document, source));
  });
}

BlocksResult ReadBlocksResult(const std::string& path) {
  return ParseBlocksResult(
      RethrowAs<BlocksResultError>([&] { return ReadJsonFile(path, kMaxBlocksResultBytes); }),
      path);
}

namespace {

// The places of a block's timed steps that began no epoch; all of them where every one did (an
// epoch of one batch: each step pays its start).
std::vector<std::size_t> StepsBesideEpochStarts(const StepBlock& block) {
  std::vector<std::size_t> steps;
  auto start = block.epoch_starts.begin();
  for (std::size_t step = 0; step < block.step_ms.size(); ++step) {
    if (start != block.epoch_starts.end() && *start == static_cast<int>(step)) {
      ++start;
      continue;
    }
    steps.push_back(step);
  }
  if (steps.empty()) {
    for (std::size_t step = 0; step < block.step_ms.size(); ++step) steps.push_back(step);
  }
  return steps;
}

double MeanOf(const std::vector<double>& values) {
  double total = 0;
  for (const double value : values) total += value;
  return total / static_cast<double>(values.size());
}

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

bool IsFull(const StepBlock& block, int block_steps) {
  return static_cast<int>(block.step_ms.size()) >= block_steps;
}

bool IsSideOf(const StepBlock& block, const std::string& candidate, bool baseline,
              int block_steps) {
  return block.candidate == candidate && block.baseline == baseline && IsFull(block, block_steps);
}

// One side's lead and the extra wait beyond it.
SideEpochStart SideEpochStartOf(const EpochStart& start, const BlocksResult& result,
                                const std::string& candidate, bool baseline, int block_steps) {
  SideEpochStart side;
  side.host_lead_ms = SideHostLeadMs(result, candidate, baseline, block_steps).value_or(0.0);
  side.cost_ms = std::max(0.0, start.extra_wait_ms - side.host_lead_ms);
  return side;
}

}  // namespace

std::optional<double> SideHostLeadMs(const BlocksResult& result, const std::string& candidate,
                                     bool baseline, int block_steps) {
  std::vector<double> leads;
  for (const StepBlock& block : result.blocks) {
    if (IsSideOf(block, candidate, baseline, block_steps) && block.host_lead_ms) {
      leads.push_back(*block.host_lead_ms);
    }
  }
  if (leads.empty()) return std::nullopt;
  return MedianOf(std::move(leads));
}

std::optional<double> SideMedianStepMs(const BlocksResult& result, const std::string& candidate,
                                       bool baseline, int block_steps) {
  std::vector<double> steps;
  for (const StepBlock& block : result.blocks) {
    if (IsSideOf(block, candidate, baseline, block_steps)) {
      steps.insert(steps.end(), block.step_ms.begin(), block.step_ms.end());
    }
  }
  if (steps.empty()) return std::nullopt;
  return MedianOf(std::move(steps));
}

std::optional<EpochStart> EpochStartOf(const BlocksResult& result) {
  if (!result.epoch_batches || result.epoch_start_waits_ms.empty()) return std::nullopt;
  std::vector<double> waits;  // of the timed steps that began no epoch
  for (const StepBlock& block : result.blocks) {
    if (block.loader_wait_ms.size() != block.step_ms.size() ||
        block.epoch_starts.size() == block.step_ms.size()) {
      continue;
    }
    for (const std::size_t step : StepsBesideEpochStarts(block)) {
      waits.push_back(block.loader_wait_ms[step]);
    }
  }
  const double usual_ms = waits.empty() ? 0.0 : MeanOf(waits);
  EpochStart start;
  start.extra_wait_ms = std::max(0.0, MeanOf(result.epoch_start_waits_ms) - usual_ms);
  start.starts = static_cast<int>(result.epoch_start_waits_ms.size());
  start.epoch_batches = *result.epoch_batches;
  return start;
}

EpochStartShares EpochStartSharesOf(const EpochStart& start, const BlocksResult& result,
                                    const std::string& candidate, int block_steps) {
  EpochStartShares shares;
  shares.baseline = SideEpochStartOf(start, result, candidate, /*baseline=*/true, block_steps);
  shares.candidate = SideEpochStartOf(start, result, candidate, /*baseline=*/false, block_steps);
  shares.epoch_batches = start.epoch_batches;
  return shares;
}

std::vector<AbRound> CandidateRounds(const BlocksResult& result, const std::string& candidate,
                                     int block_steps,
                                     const std::optional<EpochStartShares>& shares) {
  std::map<int, AbRound> by_cycle;
  for (const StepBlock& block : result.blocks) {
    if (block.candidate != candidate || !IsFull(block, block_steps)) continue;
    std::vector<double> steps = block.step_ms;
    // A block of nothing but starts pays one a step already.
    if (shares && block.epoch_starts.size() < block.step_ms.size()) {
      const double added_ms = shares->PerStepMs(block.baseline);
      steps.clear();
      for (const std::size_t step : StepsBesideEpochStarts(block)) {
        steps.push_back(block.step_ms[step] + added_ms);
      }
    }
    AbRound& round = by_cycle[block.cycle];
    (block.baseline ? round.baseline_ms : round.candidate_ms) = std::move(steps);
  }
  std::vector<AbRound> rounds;
  for (auto& [cycle, round] : by_cycle) {
    if (!round.baseline_ms.empty() && !round.candidate_ms.empty()) {
      rounds.push_back(std::move(round));
    }
  }
  return rounds;
}

int DrainedBlocks(const BlocksResult& result, int settle_steps) {
  return static_cast<int>(
      std::count_if(result.blocks.begin(), result.blocks.end(), [&](const StepBlock& block) {
        return static_cast<int>(block.settle_ms.size()) > settle_steps;
      }));
}

BlocksRunCost CostOfBlocksRun(const BlocksResult& result, double wall_s) {
  double blocks_ms = 0;
  for (const StepBlock& block : result.blocks) {
    for (const double ms : block.settle_ms) blocks_ms += ms;
    for (const double ms : block.step_ms) blocks_ms += ms;
  }
  BlocksRunCost cost;
  if (result.blocks.empty()) {
    cost.outside_blocks_s = wall_s;
    return cost;
  }
  // The probe times the steps, the process's clock the run: where the two disagree, the blocks
  // never cost more than the whole run.
  const double blocks_s = std::min(blocks_ms / 1000.0, wall_s);
  cost.outside_blocks_s = wall_s - blocks_s;
  cost.mean_block_s = blocks_s / static_cast<double>(result.blocks.size());
  return cost;
}

std::optional<double> FirstSettleS(const BlocksResult& result, const std::string& candidate,
                                   int settle_steps) {
  const StepBlock* first = nullptr;
  for (const StepBlock& block : result.blocks) {
    if (block.candidate == candidate && !block.baseline && (!first || block.cycle < first->cycle)) {
      first = &block;
    }
  }
  if (!first || first->settle_ms.empty()) return std::nullopt;
  const std::size_t counted =
      std::min(first->settle_ms.size(), static_cast<std::size_t>(std::max(settle_steps, 0)));
  double total_ms = 0;
  for (std::size_t step = 0; step < counted; ++step) total_ms += first->settle_ms[step];
  return total_ms / 1000.0;
}

std::optional<double> SideLoaderWaitMs(const BlocksResult& result, const std::string& candidate,
                                       bool baseline, int block_steps) {
  double total_ms = 0;
  std::size_t steps = 0;
  for (const StepBlock& block : result.blocks) {
    if (!IsSideOf(block, candidate, baseline, block_steps) || block.loader_wait_ms.empty()) {
      continue;
    }
    for (const std::size_t step : StepsBesideEpochStarts(block)) {
      total_ms += block.loader_wait_ms[step];
      ++steps;
    }
  }
  if (steps == 0) return std::nullopt;
  return total_ms / static_cast<double>(steps);
}

EpochStartWaits SideEpochStartWaits(const BlocksResult& result, const std::string& candidate,
                                    bool baseline, int block_steps) {
  double total_ms = 0;
  EpochStartWaits waits;
  for (const StepBlock& block : result.blocks) {
    if (!IsSideOf(block, candidate, baseline, block_steps)) continue;
    for (const int step : block.epoch_starts) {
      total_ms += block.loader_wait_ms[step];
      ++waits.steps;
    }
  }
  if (waits.steps > 0) waits.mean_ms = total_ms / waits.steps;
  return waits;
}

void AppendBlocksOf(const BlocksResult& more, const std::string& candidate, BlocksResult& into) {
  int next_cycle = 0;
  for (const StepBlock& block : into.blocks) next_cycle = std::max(next_cycle, block.cycle + 1);
  for (const StepBlock& block : more.blocks) {
    if (block.candidate != candidate) continue;
    into.blocks.push_back(block);
    into.blocks.back().cycle += next_cycle;
  }
}

std::optional<double> SidePeakMemoryMb(const BlocksResult& result, const std::string& candidate,
                                       bool baseline) {
  std::optional<double> peak;
  for (const StepBlock& block : result.blocks) {
    if (block.candidate == candidate && block.baseline == baseline && block.peak_memory_mb) {
      peak = std::max(peak.value_or(0.0), *block.peak_memory_mb);
    }
  }
  return peak;
}

}  // namespace advisor
