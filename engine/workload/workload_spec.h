// The training workload that travels inside model.pt as advisor/workload.json (docs/workload.md),
// parsed and validated without LibTorch so that bad files get clear errors and tests need no model.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/workload/input_stage_spec.h"

namespace advisor {

// One positional input of forward(), or the target.
struct TensorSpec {
  std::vector<std::int64_t> shape;  // dim 0 is the batch dimension
  std::string dtype = "float32";    // float32 | float16 | bfloat16 | int64 | int32 | bool
  std::string init = "randn";       // randn | rand | randint | zeros | ones
  std::int64_t low = 0;             // randint only
  std::int64_t high = 0;            // randint only: exclusive upper bound
};

struct OptimizerSpec {
  std::string name = "sgd";  // sgd | adamw
  double lr = 1e-3;
  double momentum = 0.0;
  double weight_decay = 0.0;
  double beta1 = 0.9;
  double beta2 = 0.999;
  bool foreach = false;  // sgd only: the multi-tensor update (engine/torch/foreach_sgd.h)
};

// Most elements one input or target tensor may have: 2^31 (8 GiB of float32), far beyond any
// batch advisor is meant for, so that a typo in a shape fails with the field named instead of an
// allocator's error.
inline constexpr std::int64_t kMaxTensorElements = std::int64_t{1} << 31;

struct WorkloadSpec {
  std::string source;  // where it was read, for messages: "model.pt:advisor/workload.json"
  std::vector<TensorSpec> inputs;
  TensorSpec target;
  std::string loss = "cross_entropy";  // cross_entropy | mse
  OptimizerSpec optimizer;
  bool deterministic = false;
  std::uint64_t seed = 0;
  std::string device = "cpu";  // cpu | cuda
  std::string description;
  std::optional<InputStageSpec> input_stage;  // absent: one device-resident batch feeds every step
  std::string autocast;      // "" (none) | bfloat16 | float16: forward and loss under CUDA autocast
  bool cuda_graphs = false;  // capture the whole step in a CUDA graph once, replay it every step

  std::int64_t batch_size() const { return inputs.empty() ? 0 : inputs.front().shape.front(); }
};

// Command-line values that override the archive's workload; unset fields keep it.
struct WorkloadOverrides {
  std::optional<std::int64_t> batch_size;
  std::optional<std::string> device;
  std::optional<bool> deterministic;
  std::optional<std::uint64_t> seed;
};

// A workload.json that cannot be used. what() is one line that names the source and the field.
class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `source` names the file in error messages, e.g. "model.pt:advisor/workload.json".
WorkloadSpec ParseWorkload(const std::string& json_text, const std::string& source);

// Applies overrides; a new batch size rescales dim 0 of every input and of the target (and must
// keep each within kMaxTensorElements).
WorkloadSpec ApplyOverrides(WorkloadSpec spec, const WorkloadOverrides& overrides);

// "" when the step options (autocast, cuda_graphs, optimizer.foreach) fit the rest of the workload;
// otherwise the problem, starting with the field, e.g. `cuda_graphs: needs "device": "cuda"`.
std::string WhyStepOptionsDoNotFit(const WorkloadSpec& spec);

}  // namespace advisor
