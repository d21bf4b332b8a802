// The workload's host-side input stage (docs/workload.md, "input_stage"): each step's batch is the
// input-stage method applied to the workload's base host tensors, then copied to the device.
// With 0 workers the step prepares its batch itself; with N, N threads prepare batches ahead into
// a bounded queue (kPrefetchPerWorker per worker, like DataLoader's prefetch_factor) and the step
// only waits when the queue is empty.
#pragma once

#include <torch/script.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/analysis/input_stage_pieces.h"
#include "engine/torch/seeded_method.h"
#include "engine/torch/stage_op_recorder.h"
#include "engine/workload/workload_spec.h"

namespace advisor {

// The seed of batch `index`'s random ops: a function of the workload's seed and the index only.
std::uint64_t BatchSeed(std::uint64_t workload_seed, std::int64_t index);

class InputStage {
 public:
  // `base`: the inputs, then the target, on the host. Starts the workers, if any.
  InputStage(const torch::jit::Module& module, const WorkloadSpec& spec,
             std::vector<torch::Tensor> base, const torch::Device& device);
  ~InputStage();
  InputStage(const InputStage&) = delete;
  InputStage& operator=(const InputStage&) = delete;

  // The next batch (inputs, then target) on the device; batches come in index order 0, 1, ...
  // Throws StepError when the method failed on it.
  std::vector<torch::Tensor> Next();

  // Batch `index` (inputs, then target) as the stage prepares it, on the host, off the queue and
  // unmeasured: the numerics check compares a candidate's batches with the baseline's. Throws
  // StepError when the method failed on it.
  std::vector<torch::Tensor> PrepareOffQueue(std::int64_t index) const;

  // Measures the stage from now on (docs/facts.md, facts.data.stage): as many batches as the
  // step takes until StopProfile, the first ones claimed from now, are recorded op by op where
  // they are prepared (a worker, or the step with 0 workers), and the workers' busy time is
  // counted.
  void StartProfile();
  // Stops measuring, after waiting for the measured batches still being prepared: workers that
  // are ahead of the step make the window's batches before it, and a short window would
  // otherwise end before any batch begun in it is done (none measured on a busy machine). The
  // profile of the batches measured, with the inputs checked on one more batch prepared here,
  // off the clock; the workers' busy share of the window.
  InputStageProfile StopProfile();

 private:
  struct Prepared {
    std::vector<torch::Tensor> tensors;
    std::string error;
  };
  struct RecordedBatch {
    std::int64_t index = 0;
    bool failed = false;  // the method threw: counted as made, not measured
    double ms = 0;
    std::vector<RecordedStageOp> ops;
  };

  Prepared Prepare(std::int64_t index) const;  // the host batch, pinned where asked
  // Prepare, recorded while a profile runs; `worker` is the worker's number, -1 for the step.
  Prepared PrepareMeasured(std::int64_t index, int worker);
  bool IsMeasured(std::int64_t index) const;  // under profile_mutex_
  void WorkerLoop(int worker);

  const SeededMethod method_;
  const std::vector<torch::Tensor> base_;
  const torch::Device device_;
  const std::uint64_t seed_;
  const std::string stage_method_;  // input_stage.method, the root of each op's call stack
  const bool pin_;            // pin_memory on a CUDA device (pinning means nothing on the CPU)
  const std::int64_t depth_;  // batches prepared ahead at most

  // Shared with the workers, under mutex_.
  std::mutex mutex_;
  std::int64_t next_take_ = 0;        // the step's next batch
  std::condition_variable ready_cv_;  // a batch was added to ready_
  std::condition_variable space_cv_;  // the step took one, or stopping_
  std::int64_t next_claim_ = 0;       // the next batch a worker prepares
  std::map<std::int64_t, Prepared> ready_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;

  // The profile, under profile_mutex_ (profiling_ is read unlocked by the step); taken after
  // mutex_ where both are held.
  std::atomic<bool> profiling_{false};
  std::mutex profile_mutex_;
  std::condition_variable recorded_cv_;  // a measured batch was added to recorded_
  TimeNs profile_start_ns_ = 0;
  TimeNs last_take_ns_ = 0;  // when the step last took a batch
  // The batches measured: [measured_from_, measured_until_), open-ended while profiling.
  std::int64_t take_at_start_ = 0;
  std::int64_t measured_from_ = 0;
  std::int64_t measured_until_ = 0;
  std::vector<RecordedBatch> recorded_;
  std::vector<BusySpan> busy_;
  std::vector<std::optional<TimeNs>> in_flight_;  // per worker: when its current batch began
};

}  // namespace advisor
