#include "engine/script/stage_summary.h"

#include <algorithm>

#include "engine/analysis/input_stage_pieces.h"

namespace advisor {
namespace {

constexpr double kNsPerMs = 1e6;
// Lines below this share of a batch stay out of the report: a pipeline's many one-line reads
// and loops would bury the lines that matter.
constexpr double kMinLineShare = 0.01;

bool SameLine(const SourceLocation& a, const SourceLocation& b) {
  return a.file == b.file && a.line == b.line;
}

// Where the report points for a transform: the line that calls it, unless that line calls
// others too (a Compose's loop), where its own definition tells it apart.
std::optional<SourceLocation> SourceOf(const StageTransform& transform,
                                       const std::vector<StageTransform>& all) {
  if (!transform.called_at) return transform.defined_at;
  const bool shared = std::any_of(all.begin(), all.end(), [&](const StageTransform& other) {
    return &other != &transform && other.called_at &&
           SameLine(*other.called_at, *transform.called_at);
  });
  return shared && transform.defined_at ? transform.defined_at : transform.called_at;
}

// A transform's time in a batch, as the shared summary takes it: one "op" named after the
// transform, in that transform.
StageOpSample TransformSample(const StageTransform& transform, double ms,
                              const std::vector<StageTransform>& all) {
  StageOpSample sample;
  sample.op = transform.name;
  sample.ms = ms;
  sample.transform = transform.name;
  sample.transform_call = SourceOf(transform, all);
  sample.input_shape = transform.input_shape;
  sample.output_shape = transform.output_shape;
  sample.dtype = transform.dtype;
  sample.input_is_binary = transform.input_is_binary;
  return sample;
}

}  // namespace

std::optional<InputStageProfile> SummariseScriptStage(const StageRecords& records,
                                                      TimeNs window_start, TimeNs window_end) {
  std::vector<const StageBatch*> batches;
  for (const StageBatch& batch : records.batches) {
    if (batch.start_ns < window_end && batch.end_ns > window_start) batches.push_back(&batch);
  }
  if (batches.empty() || window_end <= window_start) return std::nullopt;

  // Every transform's time in every batch. Each was described (and its input checked) on its
  // first call of the window: those descriptions are the checked batch.
  std::vector<StageBatchSample> timed;
  StageBatchSample checked;
  for (const StageTransform& transform : records.transforms) {
    checked.ops.push_back(TransformSample(transform, 0, records.transforms));
  }
  // Lines only from the batches with line-traced items, each line's time scaled from those
  // items to all of the batch's by their time in __getitem__: items differ (a random radius),
  // and a line's part of its items' time varies less than its time per item.
  std::vector<StageBatchSample> traced;
  std::vector<BusySpan> busy;
  for (const StageBatch* batch : batches) {
    const double batch_ms = (batch->end_ns - batch->start_ns) / kNsPerMs;
    StageBatchSample sample{batch_ms, {}};
    for (const auto& [index, ns] : batch->transforms) {
      sample.ops.push_back(TransformSample(records.transforms[index], ns / kNsPerMs,
                                           records.transforms));
    }
    timed.push_back(std::move(sample));
    if (batch->sampled_items > 0 && batch->sampled_ns > 0) {
      StageBatchSample lines{batch_ms, {}};
      const double scale = static_cast<double>(batch->items_ns) / batch->sampled_ns;
      for (const auto& [index, ns] : batch->lines) {
        const StageLine& line = records.lines[index];
        StageOpSample op;
        op.op = line.op.empty() ? line.source.text : line.op;
        op.ms = ns / kNsPerMs * scale;
        op.line = line.source;
        lines.ops.push_back(std::move(op));
      }
      traced.push_back(std::move(lines));
    }
    if (batch->worker > 0) busy.push_back({batch->start_ns, batch->end_ns});
  }

  InputStageProfile profile = SummarizeInputStage(timed, &checked);
  if (!traced.empty()) {
    for (InputStagePiece& line : SummarizeInputStage(traced, nullptr).pieces) {
      line.share = profile.batch_ms > 0 ? line.ms / profile.batch_ms : 0.0;
      if (line.share >= kMinLineShare) profile.pieces.push_back(std::move(line));
    }
    std::stable_sort(
        profile.pieces.begin(), profile.pieces.end(),
        [](const InputStagePiece& a, const InputStagePiece& b) { return a.ms > b.ms; });
  }
  profile.cores = records.cores;
  profile.output_shape = records.output_shape;
  profile.output_dtype = records.output_dtype;
  profile.worker_busy_share = WorkerBusyShare(busy, window_start, window_end, records.workers);
  return profile;
}

}  // namespace advisor
