#include "engine/model_candidate/step_capture.h"

#include <torch/csrc/jit/ir/ir.h>

#include <limits>
#include <memory>

namespace advisor {
namespace {

constexpr const char* kOutputAttribute = "__advisor_step_output";
// Batches of the input stage compared, from index 0: enough that random crop offsets, flips and
// radii take several values, few enough that the check stays a fraction of a benchmark round.
constexpr std::int64_t kStageBatches = 4;

// The tensors inside a forward output (a tensor, or tuples and lists of them), depth first.
void CollectTensors(const c10::IValue& value, const std::string& name,
                    std::vector<NamedTensor>& out) {
  if (value.isTensor()) {
    out.push_back({name, value.toTensor().detach()});
  } else if (value.isTuple()) {
    const auto& elements = value.toTupleRef().elements();
    for (std::size_t i = 0; i < elements.size(); ++i) {
      CollectTensors(elements[i], name + "[" + std::to_string(i) + "]", out);
    }
  } else if (value.isList()) {
    const c10::List<c10::IValue> elements = value.toList();
    for (std::size_t i = 0; i < elements.size(); ++i) {
      CollectTensors(elements.get(i), name + "[" + std::to_string(i) + "]", out);
    }
  }
}

double EpsilonOf(torch::ScalarType dtype) {
  switch (dtype) {
    case torch::kFloat64:
      return std::numeric_limits<double>::epsilon();
    case torch::kFloat32:
      return std::numeric_limits<float>::epsilon();
    case torch::kFloat16:
      return 0x1p-10;
    case torch::kBFloat16:
      return 0x1p-7;
    default:
      return 0;
  }
}

// `after` minus `before` (exact where the update is small against the parameter), with its
// resolution (see CaptureStep).
NamedTensor UpdateOf(const std::string& name, const torch::Tensor& before,
                     const torch::Tensor& after) {
  NamedTensor update{"update of " + name, after.detach() - before};
  if (update.value.numel() == 0) return update;
  const double largest_update = update.value.abs().max().item<double>();
  if (largest_update > 0) {
    update.resolution = EpsilonOf(before.scalar_type()) *
                        before.abs().max().item<double>() / largest_update;
  }
  return update;
}

}  // namespace

void KeepForwardOutput(torch::jit::Module& module) {
  module.register_attribute(kOutputAttribute, c10::AnyType::get(), c10::IValue());
  std::shared_ptr<torch::jit::Graph> graph = module.get_method("forward").graph();
  torch::jit::WithInsertPoint before_return(graph->return_node());
  torch::jit::Node* keep =
      graph->create(torch::jit::prim::SetAttr, {graph->inputs()[0], graph->outputs()[0]}, 0);
  keep->s_(torch::jit::attr::name, kOutputAttribute);
  graph->insertNode(keep);
}

StepSnapshot CaptureStep(TrainingStep& step, bool record_updates) {
  // Gradients are caught by hooks as backward delivers them: the step drops them after the
  // optimizer has used them.
  std::vector<std::pair<std::string, torch::Tensor>> parameters;
  for (const auto& named : step.module().named_parameters()) {
    if (named.value.requires_grad()) parameters.emplace_back(named.name, named.value);
  }
  auto gradients = std::make_shared<std::vector<torch::Tensor>>(parameters.size());
  std::vector<unsigned> hooks;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    hooks.push_back(
        parameters[i].second.register_hook([gradients, i](const torch::Tensor& gradient) {
          (*gradients)[i] = gradient.detach().clone();
        }));
  }
  std::vector<torch::Tensor> before;
  if (record_updates) {
    for (const auto& parameter : parameters) before.push_back(parameter.second.detach().clone());
  }
  step.Run(0, false);
  for (std::size_t i = 0; i < parameters.size(); ++i) parameters[i].second.remove_hook(hooks[i]);

  StepSnapshot snapshot;
  std::vector<NamedTensor> outputs;
  CollectTensors(step.module().attr(kOutputAttribute), "output", outputs);
  // The loss is computed in float32 from the prediction, whose precision it carries: compare it
  // at the prediction dtype's tolerance.
  const bool floating_prediction =
      !outputs.empty() && c10::isFloatingType(outputs.front().value.scalar_type());
  const torch::Dtype loss_dtype =
      floating_prediction ? outputs.front().value.scalar_type() : torch::kFloat32;
  snapshot.tensors.push_back(
      {"loss", torch::scalar_tensor(step.last_loss(), torch::kFloat64).to(loss_dtype)});
  for (NamedTensor& output : outputs) snapshot.tensors.push_back(std::move(output));
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    snapshot.tensors.push_back({"grad of " + parameters[i].first, (*gradients)[i]});
  }
  for (std::size_t i = 0; i < before.size(); ++i) {
    snapshot.tensors.push_back(UpdateOf(parameters[i].first, before[i], parameters[i].second));
  }
  for (std::int64_t index = 0; index < kStageBatches; ++index) {
    const std::vector<torch::Tensor> batch = step.StageBatch(index);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const std::string part =
          i + 1 == batch.size() ? "target" : "input[" + std::to_string(i) + "]";
      snapshot.tensors.push_back({"batch " + std::to_string(index) + " " + part, batch[i]});
    }
  }
  return snapshot;
}

}  // namespace advisor
