#include "engine/torch/input_stage.h"

#include <ATen/record_function.h>

#include "engine/torch/training_step.h"

namespace advisor {

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
      pin_(spec.input_stage->pin_memory && device.is_cuda()),
      depth_(static_cast<std::int64_t>(spec.input_stage->workers) * kPrefetchPerWorker) {
  for (int i = 0; i < spec.input_stage->workers; ++i)
    workers_.emplace_back([this] { WorkerLoop(); });
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

void InputStage::WorkerLoop() {
  // Workers run beside the step, not in it: the op probe must not record their ops, which would
  // be placed by time into the step's phases. The step's wait for them is its data phase.
  at::RecordFunctionGuard not_recorded(/*is_enabled=*/false);
  for (;;) {
    std::int64_t index = 0;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      space_cv_.wait(lock, [this] { return stopping_ || next_claim_ - next_take_ < depth_; });
      if (stopping_) return;
      index = next_claim_++;
    }
    Prepared prepared = Prepare(index);
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
    batch = Prepare(next_take_++);
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
  if (!batch.error.empty()) throw StepError(method_.where() + ": " + batch.error);
  for (torch::Tensor& tensor : batch.tensors) {
    tensor = tensor.to(device_, /*non_blocking=*/pin_);
  }
  return batch.tensors;
}

}  // namespace advisor
