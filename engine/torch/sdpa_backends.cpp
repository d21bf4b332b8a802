#include "engine/torch/sdpa_backends.h"

#include <ATen/Context.h>
#include <torch/version.h>

#include <stdexcept>

#include "engine/torch/device_info.h"

// The public aten::scaled_dot_product_attention and the memory-efficient switch came with 2.0;
// 1.13 has only a private operator (with flash and math switches), which models do not call.
#if TORCH_VERSION_MAJOR >= 2
#define ADVISOR_SDPA_SWITCHES 1
#endif

// Context::setSDPUseCuDNN came with cuDNN attention in 2.3 (pytorch#115663: forward only, and only
// with TORCH_CUDNN_SDPA_ENABLED=1); its backward followed in 2.4 (pytorch#122510), still behind the
// variable, which 2.5 dropped. Training needs the backward, so cuDNN is offered from 2.5; before
// that the backend is off by default, and leaving its switch alone keeps it off.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
#define ADVISOR_SDPA_CUDNN_SWITCH 1
#endif

namespace advisor {
namespace {

void CheckName(const std::string& backend) {
  if (backend != "flash" && backend != "efficient" && backend != "cudnn" && backend != "math") {
    throw std::invalid_argument("sdpa_backend: \"" + backend +
                                "\" is not flash, efficient, cudnn or math");
  }
}

}  // namespace

std::string SdpaBackendUnavailableReason(const std::string& backend) {
  CheckName(backend);
#if !defined(ADVISOR_SDPA_SWITCHES)
  return "not applicable: LibTorch " + TorchVersion() +
         " has no aten::scaled_dot_product_attention (added in 2.0)";
#elif !defined(ADVISOR_SDPA_CUDNN_SWITCH)
  if (backend != "cudnn") return "";
  return "not applicable: LibTorch " + TorchVersion() +
         " cannot train with cuDNN attention (2.5 and later can)";
#else
  return "";
#endif
}

void EnableOnlySdpaBackend(const std::string& backend) {
  const std::string unavailable = SdpaBackendUnavailableReason(backend);
  if (!unavailable.empty()) throw std::invalid_argument(unavailable);
  [[maybe_unused]] at::Context& context = at::globalContext();
#ifdef ADVISOR_SDPA_SWITCHES
  context.setSDPUseFlash(backend == "flash");
  context.setSDPUseMemEfficient(backend == "efficient");
  context.setSDPUseMath(backend == "math");
#endif
#ifdef ADVISOR_SDPA_CUDNN_SWITCH
  context.setSDPUseCuDNN(backend == "cudnn");
#endif
}

}  // namespace advisor
