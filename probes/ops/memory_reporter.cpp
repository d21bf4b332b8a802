#include "probes/ops/memory_reporter.h"

#include <ATen/record_function.h>
#include <c10/util/ThreadLocalDebugInfo.h>
#include <torch/csrc/profiler/orchestration/observer.h>

#include "probes/ops/event_recorder.h"

namespace advisor {
namespace {

// The allocator's running totals are int64_t in LibTorch 1.13 and size_t in current torch: the
// override takes whichever type the base declares.
template <class>
struct TotalArgument;
template <class Base, class Pointer, class Size, class Total, class Device>
struct TotalArgument<void (Base::*)(Pointer, Size, Total, Total, Device)> {
  using type = Total;
};
using Total = TotalArgument<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::type;

}  // namespace

// A profiler state, because code reading the slot (torch.autograd._profiler_enabled, a second
// profiler's start) takes whatever is there for one: a disabled profiler's config tells them no
// profiler runs, while memoryProfilingEnabled asks the allocators for their reports.
class MemoryReporter final : public torch::profiler::impl::ProfilerStateBase {
 public:
  MemoryReporter()
      : ProfilerStateBase(
            torch::profiler::impl::ProfilerConfig(torch::profiler::impl::ProfilerState::Disabled)) {
  }

  void reportMemoryUsage(void* ptr, std::int64_t alloc_size, Total /*total_allocated*/,
                         Total /*total_reserved*/, c10::Device device) override {
    std::int32_t index = -1;
    if (device.is_cuda()) {
      index = device.index();
    } else if (!device.is_cpu()) {
      return;
    }
    EventRecorder& recorder = EventRecorder::Get();
    if (!recorder.recording()) return;
    recorder.RecordMemory(reinterpret_cast<std::uintptr_t>(ptr), alloc_size, index,
                          at::RecordFunction::currentThreadId());
  }

  bool memoryProfilingEnabled() const override { return true; }

  torch::profiler::impl::ActiveProfilerType profilerType() override {
    return torch::profiler::impl::ActiveProfilerType::NONE;
  }
};

MemoryReporting::MemoryReporting() {
  if (c10::ThreadLocalDebugInfo::get(c10::DebugInfoKind::PROFILER_STATE) != nullptr) return;
  installed_ = std::make_shared<MemoryReporter>();
  c10::ThreadLocalDebugInfo::_push(c10::DebugInfoKind::PROFILER_STATE, installed_);
}

MemoryReporting::~MemoryReporting() {
  if (installed_) c10::ThreadLocalDebugInfo::_pop(c10::DebugInfoKind::PROFILER_STATE);
}

}  // namespace advisor
