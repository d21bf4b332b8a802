// The input stage as a window's reply carries it ("stage", docs/script-mode.md "The protocol"):
// the batch records of the DataLoader's worker processes (or of the main process with workers 0),
// merged by the probe into tables of transforms and lines. Read like every probe message: checked
// field by field, indices and times in range, ProbeMessageError naming the first problem.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/json_input/json_field.h"
#include "engine/model/run_report.h"
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
  TimeNs items_ns = 0;                             // in the Dataset's __getitem__, all items
  std::vector<std::pair<int, TimeNs>> transforms;  // index into StageRecords::transforms, time
  int sampled_items = 0;                           // of its items, those line-traced
  TimeNs sampled_ns = 0;                           // in __getitem__, the line-traced items
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

// `stage`: the window message's "stage" field.
StageRecords ReadStageRecords(const JsonField& stage);

}  // namespace advisor
