// Eager autocast around a region of the step. LibTorch changed the autocast API in 2.4 (one
// function per device type replaced the per-device function names); this file is the only place
// that knows, so the rest of the engine just opens a region.
#pragma once

#include <c10/core/DeviceType.h>
#include <c10/core/ScalarType.h>

#include <string>

namespace advisor {

// The workload's autocast name ("bfloat16", "float16") as a dtype.
c10::ScalarType AutocastDtypeOf(const std::string& name);

// Enables autocast for `device_type` with `dtype` on this thread for the object's lifetime, the
// way Python's `with torch.autocast(...)` does: the previous state comes back afterwards, and the
// cache of casted weights is cleared when the outermost region ends (a cached cast must not
// outlive the step whose parameters it copied). Scripted modules called inside see the eager
// autocast state through the dispatcher, on LibTorch 1.13 and 2.x alike.
class AutocastRegion {
 public:
  AutocastRegion(c10::DeviceType device_type, c10::ScalarType dtype);
  ~AutocastRegion();
  AutocastRegion(const AutocastRegion&) = delete;
  AutocastRegion& operator=(const AutocastRegion&) = delete;

 private:
  c10::DeviceType device_type_;
  bool previous_enabled_;
  c10::ScalarType previous_dtype_;
};

}  // namespace advisor
