// The op probe: an ATen RecordFunction observer that records every operator call, autograd node
// and user scope into the EventRecorder while a window runs. No callback is registered outside
// a window, so the probe costs nothing when off.
#pragma once

#include <cstdint>

namespace advisor {

class GpuActivityProbe;

// Leaves the ops of the calling thread out of every OpProbe from now on, for the thread's
// lifetime: a thread that works beside the step (an input stage's worker) and whose ops must
// not be placed by time into the step's phases. Other observers on the thread (the input
// stage's own) still see them.
void ExcludeThisThreadFromOpProbe();

class OpProbe {
 public:
  // `gpu` (may be null) receives an external correlation id for each op, so kernels map to the
  // op that launched them.
  explicit OpProbe(GpuActivityProbe* gpu = nullptr);
  ~OpProbe();
  OpProbe(const OpProbe&) = delete;
  OpProbe& operator=(const OpProbe&) = delete;

  // `count_page_faults`: see EventRecorder::Start.
  void Start(bool count_page_faults = false);
  void Stop();

 private:
  std::uint64_t handle_ = 0;
  std::uint64_t inputs_handle_ = 0;  // the forward ops' inputs callback
  bool active_ = false;
};

}  // namespace advisor
