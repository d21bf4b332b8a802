#include "engine/torch/input_stage.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "engine/torch/dtype_name.h"
#include "engine/torch/training_step.h"
#include "engine/util/physical_cores.h"
#include "probes/ops/op_probe.h"

namespace advisor {

namespace {

// Like a DataLoader worker process (torch.set_num_threads(1) in each), a worker thread runs its
// ops on itself alone: N workers each opening an intra-op team as wide as the machine would
// oversubscribe the cores N times over (and OpenMP's idle team members spin). The OpenMP runtime
// is torch's own, found at run time: setting it affects only the calling thread's parallel
// regions, never the step's. Nothing to do where torch runs without OpenMP.
void RunOpsOnThisThreadAlone() {
  using SetThreads = void (*)(int);
  if (auto set = reinterpret_cast<SetThreads>(::dlsym(RTLD_DEFAULT, "omp_set_num_threads"))) {
    set(1);
  }
}

TimeNs Now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::uint64_t BatchSeed(std::uint64_t workload_seed, std::int64_t index) {
  // SplitMix64 of the pair: neighbouring seeds and indices give unrelated streams.
  std::uint64_t z = workload_seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(index) + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

InputStage::InputStage(const torch::jit::Module& module, const WorkloadSpec& spec,
                       std::vector<torch::Tensor> base, const torch::Device& device)
    : method_(module, spec),
      base_(std::move(base)),
      device_(device),
      seed_(spec.seed),
      stage_method_(spec.input_stage->method),
      pin_(spec.input_stage->pin_memory && device.is_cuda()),
      depth_(static_cast<std::int64_t>(spec.input_stage->workers) * kPrefetchPerWorker),
      in_flight_(spec.input_stage->workers) {
  for (int i = 0; i < spec.input_stage->workers; ++i)
    workers_.emplace_back([this, i] { WorkerLoop(i); });
}

InputStage::~InputStage() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  space_cv_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

InputStage::Prepared InputStage::Prepare(std::int64_t index) const {
  Prepared prepared;
  try {
    // Fresh copies, as a loader decodes each sample anew: the method may change its arguments in
    // place, and other workers read the base at the same time.
    std::vector<torch::Tensor> fresh;
    for (const torch::Tensor& tensor : base_) fresh.push_back(tensor.clone());
    prepared.tensors = method_.Run(fresh, BatchSeed(seed_, index));
    if (pin_) {
      for (torch::Tensor& tensor : prepared.tensors) tensor = tensor.pin_memory();
    }
  } catch (const std::exception& error) {
    prepared.error = SummarizeTorchError(error.what());
  }
  return prepared;
}

std::vector<torch::Tensor> InputStage::PrepareOffQueue(std::int64_t index) const {
  Prepared prepared = Prepare(index);
  if (!prepared.error.empty()) throw StepError(method_.where() + ": " + prepared.error);
  return std::move(prepared.tensors);
}

bool InputStage::IsMeasured(std::int64_t index) const {
  return index >= measured_from_ && index < measured_until_;
}

InputStage::Prepared InputStage::PrepareMeasured(std::int64_t index, int worker) {
  const TimeNs start = Now();
  bool measured = false;
  {
    std::lock_guard<std::mutex> lock(profile_mutex_);
    measured = IsMeasured(index);
    if (worker >= 0) in_flight_[worker] = start;
  }
  std::optional<StageOpRecorder> recorder;
  if (measured) recorder.emplace(/*check_inputs=*/false);
  Prepared prepared = Prepare(index);
  const TimeNs end = Now();
  {
    std::lock_guard<std::mutex> lock(profile_mutex_);
    if (worker >= 0) in_flight_[worker].reset();
    if (profiling_ && worker >= 0) busy_.push_back({start, end});
    // The window may have ended with fewer takes than the workers had begun: those are not its.
    if (!measured || !IsMeasured(index)) return prepared;
    recorded_.push_back(
        {index, !prepared.error.empty(), static_cast<double>(end - start) / 1e6, recorder->Take()});
  }
  recorded_cv_.notify_all();
  return prepared;
}

void InputStage::StartProfile() {
  std::lock_guard<std::mutex> queue_lock(mutex_);
  std::lock_guard<std::mutex> lock(profile_mutex_);
  recorded_.clear();
  busy_.clear();
  take_at_start_ = next_take_;
  // The step prepares its own batches in take order; workers prepare theirs in claim order, and
  // those claimed before now were begun unobserved.
  measured_from_ = workers_.empty() ? next_take_ : next_claim_;
  measured_until_ = std::numeric_limits<std::int64_t>::max();
  profile_start_ns_ = Now();
  last_take_ns_ = profile_start_ns_;
  profiling_ = true;
}

InputStageProfile InputStage::StopProfile() {
  std::vector<RecordedBatch> recorded;
  std::vector<BusySpan> busy;
  TimeNs last_take = 0;
  std::int64_t takes = 0;
  {
    std::lock_guard<std::mutex> queue_lock(mutex_);
    takes = next_take_ - take_at_start_;
  }
  {
    // Not under mutex_: the workers claim the batches waited for under it.
    std::unique_lock<std::mutex> lock(profile_mutex_);
    profiling_ = false;
    const TimeNs stop = Now();
    for (const std::optional<TimeNs>& start : in_flight_) {
      if (start) busy_.push_back({*start, stop});
    }
    // Each take freed a place in the queue, so the workers can claim every batch measured
    // without the step taking another: the wait ends.
    measured_until_ = measured_from_ + takes;
    recorded_.erase(
        std::remove_if(recorded_.begin(), recorded_.end(),
                       [this](const RecordedBatch& batch) { return !IsMeasured(batch.index); }),
        recorded_.end());
    const auto measured_count = static_cast<std::size_t>(measured_until_ - measured_from_);
    recorded_cv_.wait(lock, [&] { return recorded_.size() >= measured_count; });
    measured_until_ = measured_from_;
    recorded.swap(recorded_);
    busy.swap(busy_);
    last_take = last_take_ns_;
  }
  std::vector<StageBatchSample> timed;
  for (const RecordedBatch& batch : recorded) {
    if (batch.failed) continue;
    StageBatchSample sample{batch.ms, {}};
    for (const RecordedStageOp& op : batch.ops) {
      sample.ops.push_back(ResolveStageOp(op, stage_method_));
    }
    timed.push_back(std::move(sample));
  }
  // One more batch, here and unobserved by the window, its ops' inputs checked (the check's
  // own ops would slow a measured batch).
  StageBatchSample checked;
  Prepared output;
  {
    StageOpRecorder recorder(/*check_inputs=*/true);
    output = Prepare(0);
    for (const RecordedStageOp& op : recorder.Take()) {
      checked.ops.push_back(ResolveStageOp(op, stage_method_));
    }
  }
  InputStageProfile profile = SummarizeInputStage(timed, output.error.empty() ? &checked : nullptr);
  if (!output.tensors.empty()) {
    const torch::Tensor& first = output.tensors.front();
    profile.output_shape.assign(first.sizes().begin(), first.sizes().end());
    profile.output_dtype = DtypeName(first.scalar_type());
  }
  profile.cores = PhysicalCoreCount();
  // Over the steps' demand, from the start to the last batch the step took: after it, the
  // window's own bookkeeping leaves the workers idle with a full queue.
  profile.worker_busy_share =
      WorkerBusyShare(busy, profile_start_ns_, last_take, static_cast<int>(workers_.size()));
  return profile;
}

void InputStage::WorkerLoop(int worker) {
  // Workers run beside the step, not in it: the step's op probe must not record their ops,
  // which would be placed by time into the step's phases; the step's wait for them is its data
  // phase. A profile records them with an observer of their own (StageOpRecorder).
  ExcludeThisThreadFromOpProbe();
  RunOpsOnThisThreadAlone();
  for (;;) {
    std::int64_t index = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      space_cv_.wait(lock, [this] { return stopping_ || next_claim_ - next_take_ < depth_; });
      if (stopping_) return;
      index = next_claim_++;
    }
    Prepared prepared = PrepareMeasured(index, worker);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ready_[index] = std::move(prepared);
    }
    ready_cv_.notify_all();
  }
}

std::vector<torch::Tensor> InputStage::Next() {
  Prepared batch;
  if (workers_.empty()) {
    batch = PrepareMeasured(next_take_++, /*worker=*/-1);
  } else {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ready_cv_.wait(lock, [this] { return ready_.count(next_take_) > 0; });
      auto it = ready_.find(next_take_);
      batch = std::move(it->second);
      ready_.erase(it);
      ++next_take_;
    }
    space_cv_.notify_all();
  }
  if (profiling_) {
    std::lock_guard<std::mutex> lock(profile_mutex_);
    last_take_ns_ = Now();
  }
  if (!batch.error.empty()) throw StepError(method_.where() + ": " + batch.error);
  for (torch::Tensor& tensor : batch.tensors) {
    tensor = tensor.to(device_, /*non_blocking=*/pin_);
  }
  return batch.tensors;
}

}  // namespace advisor
