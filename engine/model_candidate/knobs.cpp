#include "engine/model_candidate/knobs.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <torch/csrc/jit/ir/ir.h>

#include <algorithm>

#include "engine/model_candidate/input_stage_knobs.h"
#include "engine/torch/sdpa_backends.h"
#include "engine/util/physical_cores.h"

namespace advisor {
namespace {

bool IsFloating(const TensorSpec& tensor) {
  return tensor.dtype == "float32" || tensor.dtype == "float16" || tensor.dtype == "bfloat16";
}

bool IsImage(const TensorSpec& tensor) { return tensor.shape.size() == 4 && IsFloating(tensor); }

// Converts the root forward's 4-D floating inputs to channels-last as its first nodes.
void ConvertImageInputs(torch::jit::Module& module, const WorkloadSpec& spec) {
  std::shared_ptr<torch::jit::Graph> graph = module.get_method("forward").graph();
  torch::jit::WithInsertPoint at_start(graph->block()->nodes().front());
  torch::jit::Value* channels_last =
      graph->insertConstant(static_cast<int64_t>(c10::MemoryFormat::ChannelsLast));
  for (std::size_t i = 0; i < spec.inputs.size() && i + 1 < graph->inputs().size(); ++i) {
    torch::jit::Value* input = graph->inputs()[i + 1];  // input 0 is self
    if (!IsImage(spec.inputs[i]) || input->type()->kind() != c10::TypeKind::TensorType) continue;
    torch::jit::Node* convert =
        graph->insertNode(graph->create(torch::jit::aten::contiguous, {input, channels_last}));
    convert->output()->setType(input->type());
    input->replaceAllUsesAfterNodeWith(convert, convert->output());
  }
}

// The overrides that become workload step options (autocast, CUDA graphs, the foreach optimizer):
// declined where the workload already has the setting, or where the changed workload would fail
// the workload's own check (WhyStepOptionsDoNotFit), whose words say why.
std::string WhyStepOptionsDoNotApply(const RecipeOverrides& overrides, const WorkloadSpec& spec) {
  if (overrides.autocast_dtype && *overrides.autocast_dtype == spec.autocast) {
    return "not applicable: the workload already runs under " + spec.autocast + " autocast";
  }
  if (overrides.cuda_graphs && *overrides.cuda_graphs == spec.cuda_graphs) {
    return std::string("not applicable: the workload already runs ") +
           (spec.cuda_graphs ? "with" : "without") + " CUDA graphs";
  }
  if (overrides.fused_optimizer && *overrides.fused_optimizer == spec.optimizer.foreach) {
    return std::string("not applicable: the workload's optimizer already runs the ") +
           (spec.optimizer.foreach ? "foreach" : "per-parameter") + " update";
  }
  const std::string misfit = WhyStepOptionsDoNotFit(ApplySpecKnobs(spec, overrides));
  return misfit.empty() ? "" : "not applicable: " + misfit;
}

// sdpa_backend: a CUDA setting that this LibTorch must be able to switch; cuDNN attention refuses
// deterministic algorithms (PyTorch's check_cudnn_deterministic), so it would only fail there.
std::string WhySdpaBackendDoesNotApply(const RecipeOverrides& overrides, const WorkloadSpec& spec) {
  if (spec.device != "cuda") return "not applicable: sdpa_backend acts on CUDA only";
  if (*overrides.sdpa_backend == "cudnn" && overrides.deterministic.value_or(spec.deterministic)) {
    return "not applicable: cuDNN attention refuses deterministic algorithms, which the workload "
           "runs with";
  }
  return SdpaBackendUnavailableReason(*overrides.sdpa_backend);
}

}  // namespace

int ResolveThreadCount(const ThreadCount& threads) {
  return threads.count == ThreadCount::kOnePerPhysicalCore ? PhysicalCoreCount() : threads.count;
}

std::string WhyKnobsDoNotApply(const RecipeOverrides& overrides, const WorkloadSpec& spec) {
  const std::string input_stage = WhyInputStageKnobsDoNotApply(overrides, spec);
  if (!input_stage.empty()) return input_stage;

  const bool cuda = spec.device == "cuda";
  if (overrides.allow_tf32 && !cuda) return "not applicable: allow_tf32 acts on CUDA only";
  if (overrides.cudnn_benchmark && !cuda) {
    return "not applicable: cudnn_benchmark acts on CUDA only";
  }
  if (overrides.sdpa_backend) {
    const std::string sdpa = WhySdpaBackendDoesNotApply(overrides, spec);
    if (!sdpa.empty()) return sdpa;
  }
  if (overrides.deterministic && *overrides.deterministic == spec.deterministic) {
    return std::string("not applicable: the workload already runs with deterministic algorithms ") +
           (spec.deterministic ? "on" : "off");
  }
  if (overrides.channels_last) {
    if (!*overrides.channels_last) {
      return "not applicable: channels_last false is the layout the workload already uses";
    }
    if (std::none_of(spec.inputs.begin(), spec.inputs.end(), IsImage)) {
      return "not applicable: the workload has no 4-D floating input to put in channels-last";
    }
  }
  const std::string step_options = WhyStepOptionsDoNotApply(overrides, spec);
  if (!step_options.empty()) return step_options;
  if (overrides.intra_op_threads) {
    const int threads = ResolveThreadCount(*overrides.intra_op_threads);
    if (threads == at::get_num_threads()) {
      return "not applicable: the workload already runs " + std::to_string(threads) +
             " intra-op thread(s)";
    }
  }
  return "";
}

WorkloadSpec ApplySpecKnobs(WorkloadSpec spec, const RecipeOverrides& overrides) {
  if (overrides.deterministic) spec.deterministic = *overrides.deterministic;
  ApplyInputStageKnobs(spec, overrides);
  if (overrides.autocast_dtype) spec.autocast = *overrides.autocast_dtype;
  if (overrides.cuda_graphs) spec.cuda_graphs = *overrides.cuda_graphs;
  if (overrides.fused_optimizer) spec.optimizer.foreach = *overrides.fused_optimizer;
  if (overrides.batch_scale) {
    WorkloadOverrides batch;
    batch.batch_size = spec.batch_size() * *overrides.batch_scale;
    spec = ApplyOverrides(spec, batch);
  }
  return spec;
}

void ApplyModuleKnobs(torch::jit::Module& module, const WorkloadSpec& spec,
                      const RecipeOverrides& overrides) {
  if (!overrides.channels_last.value_or(false)) return;
  {
    torch::NoGradGuard no_grad;  // set_data keeps each parameter the same leaf tensor
    for (torch::Tensor parameter : module.parameters()) {
      if (parameter.dim() == 4) {
        parameter.set_data(parameter.contiguous(c10::MemoryFormat::ChannelsLast));
      }
    }
  }
  ConvertImageInputs(module, spec);
}

void ApplyProcessKnobs(const RecipeOverrides& overrides) {
  if (overrides.intra_op_threads) {
    at::set_num_threads(ResolveThreadCount(*overrides.intra_op_threads));
  }
  if (overrides.allow_tf32) {
    at::globalContext().setAllowTF32CuBLAS(*overrides.allow_tf32);
    at::globalContext().setAllowTF32CuDNN(*overrides.allow_tf32);
  }
  if (overrides.cudnn_benchmark) at::globalContext().setBenchmarkCuDNN(*overrides.cudnn_benchmark);
  if (overrides.sdpa_backend) EnableOnlySdpaBackend(*overrides.sdpa_backend);
}

}  // namespace advisor
