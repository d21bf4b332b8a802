// What the training holds in each process and how it synchronises gradients.
// RunReport::training_state (engine/model/run_report.h).
#pragma once

#include <string>

namespace advisor {

// What the training holds in each process and how it synchronises gradients, measured by the
// script probe in the first step (after its optimizer step, while the gradients are there):
// the tensors' own bytes, so under FSDP this rank's shards.
struct TrainingState {
  double parameter_mb = 0;        // the parameters the optimizers train
  double gradient_mb = 0;         // their gradients
  double optimizer_state_mb = 0;  // the optimizers' state (AdamW: two moments per parameter)
  std::string wrapper;            // "DistributedDataParallel", "FullyShardedDataParallel", ""
  std::string sharding_strategy;  // FSDP's ("FULL_SHARD", "SHARD_GRAD_OP", ...); "" otherwise
  int micro_steps = 0;            // the wrapper's forward passes in the step; 0 without a wrapper
  int synced_micro_steps = 0;     // of them, those whose backward all-reduced the gradients
};

}  // namespace advisor
