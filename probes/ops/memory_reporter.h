// The window's allocations and frees, from c10's memory reporting: the hook through which torch's
// profiler records profile_memory. The CPU allocator and the CUDA caching allocator both report
// every allocation and free (pointer, size, device) to the reporter installed in the calling
// thread's debug info; the autograd engine carries that info to its worker threads. So one
// mechanism covers CPU and CUDA, costs one virtual call and a buffer append per allocation in
// C++, and runs no Python.
#pragma once

#include <memory>

namespace advisor {

class MemoryReporter;

// Installs a reporter on the calling thread from construction to destruction; both on the thread
// that runs the steps. Where another reporter is installed there (the user's torch.profiler is
// running), it leaves that one alone and records nothing: active() is false.
class MemoryReporting {
 public:
  MemoryReporting();
  ~MemoryReporting();
  MemoryReporting(const MemoryReporting&) = delete;
  MemoryReporting& operator=(const MemoryReporting&) = delete;

  bool active() const { return installed_ != nullptr; }

 private:
  std::shared_ptr<MemoryReporter> installed_;
};

}  // namespace advisor
