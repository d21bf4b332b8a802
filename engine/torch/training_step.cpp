#include "engine/torch/training_step.h"

#include <torch/cuda.h>

#include <optional>

#include "engine/torch/autocast_adapter.h"
#include "engine/torch/foreach_sgd.h"
#include "engine/util/watchdog.h"
#include "probes/ops/event_recorder.h"

namespace advisor {
namespace {

torch::Dtype DtypeOf(const std::string& name) {
  if (name == "float16") return torch::kFloat16;
  if (name == "bfloat16") return torch::kBFloat16;
  if (name == "int64") return torch::kInt64;
  if (name == "int32") return torch::kInt32;
  if (name == "bool") return torch::kBool;
  return torch::kFloat32;
}

torch::Tensor MakeTensor(const TensorSpec& spec, const torch::Device& device) {
  const auto options = torch::TensorOptions().dtype(DtypeOf(spec.dtype)).device(device);
  if (spec.init == "zeros") return torch::zeros(spec.shape, options);
  if (spec.init == "ones") return torch::ones(spec.shape, options);
  if (spec.init == "randint") return torch::randint(spec.low, spec.high, spec.shape, options);
  // Random floats are drawn in float32 and cast, so every dtype gets the same distribution.
  const auto float_options = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  torch::Tensor values = spec.init == "rand" ? torch::rand(spec.shape, float_options)
                                             : torch::randn(spec.shape, float_options);
  return values.to(DtypeOf(spec.dtype));
}

// MakeTensor with the field named when the allocation fails (a shape within the workload's limit
// can still be more than the machine has).
torch::Tensor MakeWorkloadTensor(const TensorSpec& spec, const torch::Device& device,
                                 const std::string& source, const std::string& field) {
  try {
    return MakeTensor(spec, device);
  } catch (const std::exception& error) {
    std::string shape;
    for (std::int64_t dim : spec.shape) shape += (shape.empty() ? "" : " x ") + std::to_string(dim);
    throw StepError(source + ": " + field + ": cannot make the " + shape + " " + spec.dtype +
                    " tensor on " + device.str() + ": " + SummarizeTorchError(error.what()));
  }
}

std::unique_ptr<torch::optim::Optimizer> MakeOptimizer(const OptimizerSpec& spec,
                                                       std::vector<torch::Tensor> parameters) {
  if (spec.name == "adamw") {
    return std::make_unique<torch::optim::AdamW>(
        parameters, torch::optim::AdamWOptions(spec.lr)
                        .betas({spec.beta1, spec.beta2})
                        .weight_decay(spec.weight_decay));
  }
  if (spec.foreach) {
    return std::make_unique<ForeachSgd>(parameters, spec.lr, spec.momentum, spec.weight_decay);
  }
  return std::make_unique<torch::optim::SGD>(
      parameters,
      torch::optim::SGDOptions(spec.lr).momentum(spec.momentum).weight_decay(spec.weight_decay));
}

}  // namespace

void ApplyGlobalSettings(const WorkloadSpec& spec) {
  torch::manual_seed(spec.seed);
  at::globalContext().setDeterministicAlgorithms(spec.deterministic, /*warn_only=*/false);
}

std::string SummarizeTorchError(const std::string& what) {
  // TorchScript interpreter errors open with "The following operation failed in the TorchScript
  // interpreter." and a traceback; the cause is the last "...Error: ..." line.
  std::string cause;
  std::size_t begin = 0;
  while (begin < what.size()) {
    std::size_t end = what.find('\n', begin);
    if (end == std::string::npos) end = what.size();
    const std::string line = what.substr(begin, end - begin);
    const std::size_t colon = line.find("Error: ");
    if (colon != std::string::npos && line.find(' ') > colon) cause = line;
    begin = end + 1;
  }
  if (!cause.empty()) return cause;
  return what.substr(0, what.find('\n'));
}

TrainingStep::TrainingStep(torch::jit::Module module, const WorkloadSpec& spec)
    : module_(std::move(module)), spec_(spec),
      device_(spec.device == "cuda" ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU)) {
  // A spec changed in code (the worker's knobs, tests) gets the same check as workload.json.
  const std::string misfit = WhyStepOptionsDoNotFit(spec);
  if (!misfit.empty()) throw StepError(misfit);
  module_.to(device_);
  module_.train();
  torch::manual_seed(spec.seed);
  // An input stage's base tensors stay on the host: the stage prepares batches from them there.
  const torch::Device drawn_on = spec.input_stage ? torch::Device(torch::kCPU) : device_;
  for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
    inputs_.emplace_back(MakeWorkloadTensor(spec.inputs[i], drawn_on, spec.source,
                                            "inputs[" + std::to_string(i) + "]"));
  }
  target_ = MakeWorkloadTensor(spec.target, drawn_on, spec.source, "target");
  if (spec.input_stage) {
    std::vector<torch::Tensor> base;
    for (const torch::jit::IValue& input : inputs_) base.push_back(input.toTensor());
    base.push_back(target_);
    input_stage_ = std::make_unique<InputStage>(module_, spec, std::move(base), device_);
  }
  for (const torch::Tensor& parameter : module_.parameters()) {
    if (parameter.requires_grad()) parameters_.push_back(parameter);
  }
  if (parameters_.empty()) throw StepError("the model has no trainable parameters");
  optimizer_ = MakeOptimizer(spec.optimizer, parameters_);
  if (spec.cuda_graphs) {
    graph_ = std::make_unique<CudaGraphStep>([this] { return WholeStep(); }, parameters_,
                                             *optimizer_);
  }
}

torch::Tensor TrainingStep::Forward() {
  // Parameters and the optimizer stay float32; autocast picks the dtype of each op inside.
  std::optional<AutocastRegion> autocast;
  if (!spec_.autocast.empty()) autocast.emplace(device_.type(), AutocastDtypeOf(spec_.autocast));
  torch::jit::IValue output = module_.forward(inputs_);
  if (output.isTuple() && !output.toTupleRef().elements().empty()) {
    output = output.toTupleRef().elements()[0];
  }
  if (!output.isTensor()) {
    throw StepError("forward returned " + output.tagKind() +
                    "; advisor needs a Tensor or a tuple whose first element is the prediction");
  }
  // As docs/workload.md says and scripts/advisor_export.py does: the loss in float32, whatever
  // the prediction's dtype (a bfloat16 model, autocast).
  const torch::Tensor prediction = output.toTensor().to(torch::kFloat32);
  if (spec_.loss == "mse") return torch::mse_loss(prediction, target_.to(torch::kFloat32));
  const bool class_indices = target_.scalar_type() == torch::kInt64;
  return torch::nn::functional::cross_entropy(
      prediction, class_indices ? target_ : target_.to(torch::kFloat32));
}

void TrainingStep::TakeBatch() {
  std::vector<torch::Tensor> batch = input_stage_->Next();
  target_ = batch.back();
  batch.pop_back();
  inputs_.assign(batch.begin(), batch.end());
}

torch::Tensor TrainingStep::WholeStep() {
  for (torch::Tensor& parameter : parameters_) parameter.mutable_grad().reset();
  torch::Tensor loss = Forward();
  loss.backward();
  optimizer_->step();
  return loss.detach();
}

StepSpan TrainingStep::ReplayGraph(int index) {
  if (!graph_->captured()) graph_->Capture();
  const TimeNs start = NowNs();
  last_loss_ = graph_->Replay();
  unchecked_losses_.push_back(last_loss_);
  Synchronize();
  const TimeNs end = NowNs();
  return StepOfPhases(index, start, start, end, end, end);
}

void TrainingStep::Synchronize() const {
  if (device_.is_cuda()) torch::cuda::synchronize();
}

StepSpan TrainingStep::Run(int index, bool sync_phases) {
  // A forward, loss, backward or input stage that never returns ends the run (--step-timeout).
  const StepTimeoutGuard timeout("a training step");
  try {
    if (graph_) return ReplayGraph(index);
    const TimeNs start = NowNs();
    TimeNs data_end = start;
    if (input_stage_) {
      TakeBatch();
      if (sync_phases) Synchronize();
      data_end = NowNs();
    }
    torch::Tensor loss = Forward();
    if (sync_phases) Synchronize();
    const TimeNs forward_end = NowNs();
    loss.backward();
    if (sync_phases) Synchronize();
    const TimeNs backward_end = NowNs();
    optimizer_->step();
    // Gradients are dropped, not zeroed: the same on every LibTorch version, and what
    // PyTorch's zero_grad() does by default since 2.0.
    for (torch::Tensor& parameter : parameters_) parameter.mutable_grad().reset();
    Synchronize();
    const TimeNs end = NowNs();
    last_loss_ = loss.detach();
    unchecked_losses_.push_back(last_loss_);
    return StepOfPhases(index, start, data_end, forward_end, backward_end, end);
  } catch (const StepError&) {
    throw;
  } catch (const std::exception& error) {
    throw StepError(SummarizeTorchError(error.what()));
  }
}

double TrainingStep::last_loss() const {
  return last_loss_.defined() ? last_loss_.item<double>() : 0.0;
}

std::vector<torch::Tensor> TrainingStep::StageBatch(std::int64_t index) const {
  if (!input_stage_) return {};
  return input_stage_->PrepareOffQueue(index);
}

void TrainingStep::StartInputStageProfile() {
  if (input_stage_) input_stage_->StartProfile();
}

std::optional<InputStageProfile> TrainingStep::StopInputStageProfile() {
  if (!input_stage_) return std::nullopt;
  return input_stage_->StopProfile();
}

TrainingStep::LossCheck TrainingStep::TakeLossCheck() {
  LossCheck check;
  check.steps = static_cast<int>(unchecked_losses_.size());
  if (!unchecked_losses_.empty()) {
    const torch::Tensor losses = torch::stack(unchecked_losses_).to(torch::kFloat32);
    check.non_finite = static_cast<int>((~torch::isfinite(losses)).sum().item<std::int64_t>());
  }
  unchecked_losses_.clear();
  return check;
}

}  // namespace advisor
