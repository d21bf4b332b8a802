#include "engine/torch/autocast_adapter.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include <stdexcept>

// LibTorch 2.4 introduced at::autocast::{is,set}_autocast_enabled(device) and
// {get,set}_autocast_dtype(device) and deprecated the per-device names 1.13 has.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define ADVISOR_AUTOCAST_BY_DEVICE_TYPE 1
#endif

namespace advisor {
namespace {

#ifdef ADVISOR_AUTOCAST_BY_DEVICE_TYPE

bool IsEnabled(c10::DeviceType device) { return at::autocast::is_autocast_enabled(device); }
void SetEnabled(c10::DeviceType device, bool on) { at::autocast::set_autocast_enabled(device, on); }
c10::ScalarType DtypeFor(c10::DeviceType device) {
  return at::autocast::get_autocast_dtype(device);
}
void SetDtype(c10::DeviceType device, c10::ScalarType dtype) {
  at::autocast::set_autocast_dtype(device, dtype);
}

#else

bool IsCpu(c10::DeviceType device) {
  if (device != c10::DeviceType::CPU && device != c10::DeviceType::CUDA) {
    throw std::invalid_argument("autocast: only CPU and CUDA are supported");
  }
  return device == c10::DeviceType::CPU;
}

bool IsEnabled(c10::DeviceType device) {
  return IsCpu(device) ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
}
void SetEnabled(c10::DeviceType device, bool on) {
  if (IsCpu(device)) {
    at::autocast::set_cpu_enabled(on);
  } else {
    at::autocast::set_enabled(on);
  }
}
c10::ScalarType DtypeFor(c10::DeviceType device) {
  return IsCpu(device) ? at::autocast::get_autocast_cpu_dtype()
                       : at::autocast::get_autocast_gpu_dtype();
}
void SetDtype(c10::DeviceType device, c10::ScalarType dtype) {
  if (IsCpu(device)) {
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
}

#endif

}  // namespace

c10::ScalarType AutocastDtypeOf(const std::string& name) {
  if (name == "bfloat16") return c10::ScalarType::BFloat16;
  if (name == "float16") return c10::ScalarType::Half;
  throw std::invalid_argument("autocast: \"" + name + "\" is not bfloat16 or float16");
}

AutocastRegion::AutocastRegion(c10::DeviceType device_type, c10::ScalarType dtype)
    : device_type_(device_type),
      previous_enabled_(IsEnabled(device_type)),
      previous_dtype_(DtypeFor(device_type)) {
  SetDtype(device_type_, dtype);
  SetEnabled(device_type_, true);
  at::autocast::increment_nesting();
}

AutocastRegion::~AutocastRegion() {
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  SetEnabled(device_type_, previous_enabled_);
  SetDtype(device_type_, previous_dtype_);
}

}  // namespace advisor
