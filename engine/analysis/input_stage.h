// The input stage's records, as a door measured them where the batches were prepared (script
// mode: the DataLoader's worker processes, or the main process with workers 0), summarised into
// the report's InputStageProfile for one window: which batches the window's steps overlapped,
// what one batch took, and each transform's and line's part of it.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/report/report.h"
#include "engine/timeline/timeline.h"

namespace advisor {

// A transform (or the collate function) as first seen in the window: where it is defined and
// where it was called from in the user's code, and the array it worked on.
struct StageTransform {
  std::string name;  // "RandomDilation", "default_collate"
  std::optional<SourceLocation> defined_at;
  std::optional<SourceLocation> called_at;
  std::vector<long long> input_shape;
  std::vector<long long> output_shape;
  std::string dtype;
  std::optional<bool> input_is_binary;
};

// A line of the user's code that ran while items were line-traced, and its heaviest call.
struct StageLine {
  SourceLocation source;
  std::string op;  // "torch.conv2d"; "" where it made no C call
};

// One batch prepared by one worker (0: the main process): the fetch of its items and collate.
struct StageBatch {
  int worker = 0;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int items = 0;
  std::vector<std::pair<int, TimeNs>> transforms;  // index into StageRecords::transforms, time
  int sampled_items = 0;                           // of its items, those line-traced
  std::vector<std::pair<int, TimeNs>> lines;       // index into StageRecords::lines, own time
};

struct StageRecords {
  int workers = 0;  // the loader's num_workers
  int cores = 0;    // CPU cores the process may run on
  std::vector<long long> output_shape;  // one item's main array
  std::string output_dtype;
  std::vector<StageTransform> transforms;
  std::vector<StageLine> lines;
  std::vector<StageBatch> batches;
};

// The profile of the batches that overlapped [window_start, window_end]; nullopt where none did.
// Transforms take the median of their time per batch; lines their mean time per line-traced
// item, times the items of a batch (only the lines of at least kMinStageLineShare of the batch, the
// kMaxStageLines heaviest).
std::optional<InputStageProfile> SummariseInputStage(const StageRecords& records,
                                                     TimeNs window_start, TimeNs window_end);

constexpr double kMinStageLineShare = 0.02;
constexpr std::size_t kMaxStageLines = 8;

}  // namespace advisor
