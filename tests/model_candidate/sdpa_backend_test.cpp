// The sdpa_backend knob: where the worker declines it, and (GPU only) that SDPA then runs on the
// one backend left enabled, as the op probe records it.
#include <ATen/core/dispatch/Dispatcher.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/cuda.h>

#include <set>
#include <stdexcept>

#include "engine/autotest/applicability.h"
#include "engine/model_candidate/knobs.h"
#include "engine/torch/device_info.h"
#include "engine/torch/model_archive.h"
#include "engine/torch/sdpa_backends.h"
#include "probes/ops/event_recorder.h"
#include "probes/ops/op_probe.h"
#include "tests/model_candidate/worker_models.h"

namespace advisor {
namespace {

using ::testing::AnyOf;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

RecipeOverrides OnlyBackend(const std::string& backend) {
  RecipeOverrides overrides;
  overrides.sdpa_backend = backend;
  return overrides;
}

// Only read: the knobs are checked against the spec, nothing runs.
WorkloadSpec CudaWorkload() {
  WorkloadSpec spec = ReadWorkload(testing::Models().plain);
  spec.device = "cuda";
  return spec;
}

TEST(SdpaBackendKnob, ActsOnCudaOnly) {
  const WorkloadSpec cpu = ReadWorkload(testing::Models().plain);
  for (const std::string& backend : SdpaBackendNames()) {
    EXPECT_EQ(WhyKnobsDoNotApply(OnlyBackend(backend), cpu),
              "not applicable: sdpa_backend acts on CUDA only");
  }
}

// flash, efficient and math switch from LibTorch 2.0 (aten::scaled_dot_product_attention), cuDNN
// from 2.5 (its backward without TORCH_CUDNN_SDPA_ENABLED).
TEST(SdpaBackendKnob, SaysWhichBackendsThisLibTorchCanSwitch) {
  const std::string version = TorchVersion();
  for (const std::string& backend : SdpaBackendNames()) {
    const std::string reason = WhyKnobsDoNotApply(OnlyBackend(backend), CudaWorkload());
    EXPECT_EQ(reason, SdpaBackendUnavailableReason(backend)) << backend;
    const bool available = VersionAtLeast(version, backend == "cudnn" ? "2.5" : "2.0");
    if (available) {
      EXPECT_EQ(reason, "") << backend;
    } else {
      EXPECT_THAT(reason, StartsWith("not applicable: LibTorch " + version + " ")) << backend;
    }
  }
  EXPECT_THROW(SdpaBackendUnavailableReason("fastest"), std::invalid_argument);
}

TEST(SdpaBackendKnob, CudnnDeclinesADeterministicWorkload) {
  WorkloadSpec deterministic = CudaWorkload();
  deterministic.deterministic = true;
  EXPECT_EQ(WhyKnobsDoNotApply(OnlyBackend("cudnn"), deterministic),
            "not applicable: cuDNN attention refuses deterministic algorithms, which the workload "
            "runs with");
  RecipeOverrides with_determinism_off = OnlyBackend("cudnn");
  with_determinism_off.deterministic = false;
  EXPECT_EQ(WhyKnobsDoNotApply(with_determinism_off, deterministic),
            SdpaBackendUnavailableReason("cudnn"));
  EXPECT_EQ(WhyKnobsDoNotApply(OnlyBackend("flash"), deterministic),
            SdpaBackendUnavailableReason("flash"));
}

// aten::scaled_dot_product_attention(q, k, v) with its other arguments at their defaults, through
// the dispatcher: LibTorch 1.13 has no at:: function of that name to compile against.
torch::Tensor Attention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v) {
  const c10::OperatorHandle op =
      c10::Dispatcher::singleton().findSchemaOrThrow("aten::scaled_dot_product_attention", "");
  torch::jit::Stack stack{q, k, v};
  const std::vector<c10::Argument>& arguments = op.schema().arguments();
  for (std::size_t i = stack.size(); i < arguments.size(); ++i) {
    stack.push_back(*arguments[i].default_value());
  }
  op.callBoxed(&stack);
  return stack.front().toTensor();
}

// The ops and autograd nodes one forward and backward of attention ran, as the op probe saw them.
std::set<std::string> OpsOfOneAttentionStep(torch::ScalarType dtype) {
  const auto options = torch::TensorOptions().device(torch::kCUDA).dtype(dtype);
  const torch::Tensor q = torch::randn({2, 4, 256, 64}, options).requires_grad_();
  const torch::Tensor k = torch::randn({2, 4, 256, 64}, options).requires_grad_();
  const torch::Tensor v = torch::randn({2, 4, 256, 64}, options).requires_grad_();
  OpProbe probe;
  probe.Start();
  Attention(q, k, v).sum().backward();
  torch::cuda::synchronize();
  probe.Stop();
  Timeline timeline;
  EventRecorder::Get().CollectInto(timeline);
  std::set<std::string> names;
  for (const OpEvent& op : timeline.ops) names.insert(op.name.str());
  return names;
}

// GPU only. Each backend's forward op and backward node, and none of the others'.
TEST(SdpaBackendKnob, LeavesOnlyTheChosenBackendToRun) {
  if (!torch::cuda::is_available()) GTEST_SKIP() << "needs a CUDA device";
  if (!SdpaBackendUnavailableReason("flash").empty()) {
    GTEST_SKIP() << SdpaBackendUnavailableReason("flash");
  }
  const std::string flash = "aten::_scaled_dot_product_flash_attention";
  const std::string efficient = "aten::_scaled_dot_product_efficient_attention";
  const std::string math = "aten::_scaled_dot_product_attention_math";

  ApplyProcessKnobs(OnlyBackend("flash"));
  std::set<std::string> ran = OpsOfOneAttentionStep(torch::kBFloat16);
  EXPECT_THAT(ran, Contains(flash));
  EXPECT_THAT(ran, Contains("ScaledDotProductFlashAttentionBackward0"));
  EXPECT_THAT(ran, Not(Contains(efficient)));
  EXPECT_THAT(ran, Not(Contains(math)));

  ApplyProcessKnobs(OnlyBackend("efficient"));
  ran = OpsOfOneAttentionStep(torch::kBFloat16);
  EXPECT_THAT(ran, Contains(efficient));
  EXPECT_THAT(ran, Contains("ScaledDotProductEfficientAttentionBackward0"));
  EXPECT_THAT(ran, Not(Contains(flash)));

  // Flash attention takes no float32: the step fails rather than run another backend. The words
  // depend on the version: "No available kernel" (2.x), "Invalid backend" (2.11, measured).
  ApplyProcessKnobs(OnlyBackend("flash"));
  try {
    OpsOfOneAttentionStep(torch::kFloat32);
    ADD_FAILURE() << "flash-only attention ran on float32 inputs";
  } catch (const c10::Error& error) {
    EXPECT_THAT(error.what(),
                AnyOf(HasSubstr("No available kernel"), HasSubstr("Invalid backend")));
  }

  // Last, so that later tests in this process can still run attention: math takes every input.
  ApplyProcessKnobs(OnlyBackend("math"));
  ran = OpsOfOneAttentionStep(torch::kBFloat16);
  EXPECT_THAT(ran, Contains(math));
  EXPECT_THAT(ran, Not(Contains(flash)));
  EXPECT_THAT(ran, Not(Contains(efficient)));
}

}  // namespace
}  // namespace advisor
