#include "tests/report/sample_window.h"

#include <string>

#include "engine/window/measured_window.h"
#include "tests/gpu/gpu_timeline_builders.h"

namespace advisor::testing {
namespace {

constexpr TimeNs kUs = 1000;
constexpr ThreadId kMain = 1;
constexpr ThreadId kAutograd = 2;  // a GPU run's backward thread; a CPU's runs on kMain

class WindowBuilder {
 public:
  WindowBuilder(bool gpu, bool instrumented) : gpu_(gpu), instrumented_(instrumented) {}

  // Step `index`, starting at `t`; the times below are microseconds into it.
  void AddStep(int index, TimeNs t) {
    t_ = t;
    timeline_.steps.push_back(StepOfPhases(index, At(0), At(50), At(4000), At(8000), At(10000)));
    const ThreadId backward = gpu_ ? kAutograd : kMain;
    const std::int64_t seq = 100 * index;
    Launching(Op("aten::to", At(60), At(190), NextId()), kMain, "memcpy");
    Forward("encoder", 200, 2600, kMain);
    Forward("encoder.attn", 300, 1600, kMain);
    Linear(400, 1500, seq + 1);
    Launching(Op("aten::relu", At(1700), At(2400), NextId()), kMain, "relu_kernel", {seq + 2, 0});
    Forward("head", 2700, 3900, kMain);
    Linear(2800, 3800, seq + 3);

    Backward("head", 4100, 5100, backward);
    Node("AddmmBackward0", 4200, 5000, seq + 3, backward);
    Backward("encoder", 5150, 7700, backward);
    Node("ReluBackward0", 5200, 6000, seq + 2, backward);
    Backward("encoder.attn", 6100, 7600, backward);
    Node("AddmmBackward0", 6200, 7500, seq + 1, backward);

    Launching(Op("aten::zero_", At(8050), At(8150), NextId()), kMain, "memset");
    Launching(Op("aten::add_", At(8200), At(8800), NextId()), kMain, "add_kernel");
    Launching(Op("aten::add_", At(8900), At(9500), NextId()), kMain, "add_kernel");
  }

  LabelledWindow Build() {
    if (gpu_) timeline_.probes.push_back(CuptiRecorded());
    MeasuredWindow measured = MeasureWindow(timeline_);
    return {instrumented_ ? "the children of the root" : "no module instrumented",
            std::move(measured.timeline), std::move(measured.placements)};
  }

 private:
  std::uint64_t NextId() { return next_id_++; }

  void Forward(const std::string& path, TimeNs enter, TimeNs exit, ThreadId thread) {
    Marker(path, MarkerKind::kForwardEnter, thread, enter);
    Marker(path, MarkerKind::kForwardExit, thread, exit);
  }
  void Backward(const std::string& path, TimeNs begin, TimeNs end, ThreadId thread) {
    Marker(path, MarkerKind::kBackwardBegin, thread, begin);
    Marker(path, MarkerKind::kBackwardEnd, thread, end);
  }
  void Marker(const std::string& path, MarkerKind kind, ThreadId thread, TimeNs at) {
    if (!instrumented_) return;
    timeline_.markers.push_back(MarkerEvent{path, kind, thread, At(at)});
  }

  // aten::linear and the aten::addmm inside it, which launches the GEMM.
  void Linear(TimeNs start, TimeNs end, std::int64_t seq) {
    AddOp(timeline_, Op("aten::linear", At(start), At(end), NextId()));
    timeline_.SetSequence(timeline_.ops.size() - 1, {seq, 0});
    Launching(Op("aten::addmm", At(start + 50), At(end - 50), NextId(), 1), kMain, "gemm");
  }

  void Node(const std::string& name, TimeNs start, TimeNs end, std::int64_t seq, ThreadId thread) {
    Launching(Op(name, At(start), At(end), NextId(), 0, thread, OpScope::kBackward), thread,
              name == "ReluBackward0" ? "relu_grad_kernel" : "gemm_grad", {seq, kMain});
  }

  // The op, and on a GPU the CUDA call it made 20 us in and the work that call launched on one
  // stream: a kernel, a memset, or the pageable copy of the batch, which the host then waits for
  // (cudaStreamSynchronize and CUPTI's record of the wait).
  void Launching(TestOp launching, ThreadId thread, const std::string& work,
                 const OpSequence& sequence = {}) {
    launching.event.thread = thread;
    AddOp(timeline_, launching);
    timeline_.SetSequence(timeline_.ops.size() - 1, sequence);
    const OpEvent& op = launching.event;
    const std::uint64_t id = launching.correlation_id;
    if (!gpu_) return;
    const TimeNs call = op.start_ns + 20 * kUs;
    const TimeNs start = call + 30 * kUs;
    const TimeNs end = start + (op.end_ns - op.start_ns) / 2;  // done before the next op's
    const std::uint32_t correlation = Call(work == "memcpy"   ? "cudaMemcpyAsync"
                                           : work == "memset" ? "cudaMemsetAsync"
                                                              : "cudaLaunchKernel",
                                           id, thread, call, call + 10 * kUs);
    if (work == "memcpy") {
      MemcpyEvent memcpy = Memcpy(MemcpyKind::kHostToDevice, start, end, id, 1 << 20,
                                  /*pageable=*/true);
      memcpy.correlation_id = correlation;
      timeline_.memcpys.push_back(memcpy);
      SyncEvent wait = Sync(SyncKind::kStream, call + 15 * kUs, end, id);
      wait.correlation_id = Call("cudaStreamSynchronize", id, thread, call + 15 * kUs, end);
      timeline_.syncs.push_back(wait);
    } else if (work == "memset") {
      MemsetEvent memset = Memset(start, end, id);
      memset.correlation_id = correlation;
      timeline_.memsets.push_back(memset);
    } else {
      KernelEvent kernel = Kernel(start, end, id, 7, work);
      kernel.correlation_id = correlation;
      timeline_.kernels.push_back(kernel);
    }
  }

  // A CUDA runtime call the op with correlation id `op` made on its thread's OS thread; the
  // call's own correlation id.
  std::uint32_t Call(const std::string& name, std::uint64_t op, ThreadId thread, TimeNs start,
                     TimeNs end) {
    const std::uint32_t correlation = next_correlation_++;
    ApiCallEvent call = Api(name, start, end, op, false, correlation);
    call.thread = 9000 + thread;
    timeline_.api_calls.push_back(call);
    return correlation;
  }

  TimeNs At(TimeNs us) const { return t_ + us * kUs; }

  bool gpu_;
  bool instrumented_;
  Timeline timeline_;
  TimeNs t_ = 0;  // the step's start
  std::uint64_t next_id_ = 1;
  std::uint32_t next_correlation_ = 1000;
};

}  // namespace

LabelledWindow SampleWindow(bool gpu, TimeNs start, bool instrumented) {
  WindowBuilder builder(gpu, instrumented);
  for (int i = 0; i < 3; ++i) {
    const TimeNs t = start + i * 10'000 * kUs;
    builder.AddStep(i, t);
  }
  return builder.Build();
}

}  // namespace advisor::testing
