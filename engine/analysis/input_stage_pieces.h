// The input stage's pieces (docs/facts.md, facts.data.stage) from what a door recorded on the
// threads or processes that prepared the batches: each batch's top-level ops with the transform
// and line they ran in. Torch-free, so that both doors (a model's worker threads, a script's
// DataLoader workers) summarise the same way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"

namespace advisor {

// One top-level op the stage ran on one batch, its places already resolved by the door.
struct StageOpSample {
  std::string op;  // "aten::conv2d"
  double ms = 0;
  // The method or function of the model author's code the stage called the op through
  // ("random_dilation"); "" for an op of the stage's own code.
  std::string transform;
  std::optional<SourceLocation> transform_call;  // where the stage calls that transform
  std::optional<SourceLocation> line;            // the op's line in the model author's code
  std::vector<long long> input_shape;            // of its largest tensor input
  std::vector<long long> output_shape;           // of its largest tensor output
  std::string dtype;                             // of that input; "" where it had none
  std::optional<bool> input_is_binary;           // set on a checked batch only
};

struct StageBatchSample {
  double ms = 0;  // the whole batch, as the worker that prepared it measured it
  std::vector<StageOpSample> ops;
};

// Pieces shown per kind ("transform", "line"): the heaviest; the rest stay in batch_ms.
inline constexpr std::size_t kInputStagePiecesPerKind = 12;

// batch_ms, batches and pieces (heaviest first, at most kInputStagePiecesPerKind of each kind)
// from `timed` batches: each piece's ms is the median over the batches of its ops' sum (0 in a
// batch that did not run it), its shapes and dtype its heaviest op's. `checked`, where given, is
// a batch run apart with its inputs checked: a piece's input_is_binary is its heaviest op's there
// (every call of it binary). The door fills the output, cores and worker_busy_share.
InputStageProfile SummarizeInputStage(const std::vector<StageBatchSample>& timed,
                                      const StageBatchSample* checked);

// A time span during which a worker prepared a batch.
struct BusySpan {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
};

// Busy time of `workers` workers over (workers x the window [start_ns, end_ns)), each span
// clipped to the window; nullopt without workers or with an empty window.
std::optional<double> WorkerBusyShare(const std::vector<BusySpan>& spans, TimeNs start_ns,
                                      TimeNs end_ns, int workers);

}  // namespace advisor
