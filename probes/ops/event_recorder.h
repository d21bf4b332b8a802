// Per-thread buffers that the op probe and the marker ops append to while a window records.
// Appending takes no lock: each thread owns its buffer; the registry lock is taken once per thread
// per process and when a window is collected. Torch-free, so it is unit-testable.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor {

TimeNs NowNs();  // the one host clock of every timeline (steady_clock)

class EventRecorder {
 public:
  static EventRecorder& Get();

  // Discards what an earlier window recorded and starts recording. With `count_page_faults`,
  // each top-level op also records the minor page faults its thread took (two getrusage calls,
  // 0.2 us each, outside the op's timed span): on a CPU, first touches of fresh memory land in
  // whichever op writes a new buffer first and can double its time.
  void Start(bool count_page_faults = false);
  void Stop();
  bool recording() const { return recording_.load(std::memory_order_acquire); }

  struct OpHandle {
    void* buffer = nullptr;
    std::size_t index = 0;
    std::int64_t faults_at_start = -1;  // -1: the op's faults are not counted
    int depth = 0;                      // the op's (OpEvent::depth)
  };
  // Appends an op that starts now on the calling thread; its depth is the calling thread's
  // count of open ops.
  OpHandle BeginOp(const char* name, OpScope scope, ThreadId thread, std::int64_t seq_nr,
                   ThreadId forward_thread, std::uint64_t correlation_id);
  // Sets what a top-level op's inputs hold (OpCounts::input_elements, broadcast_elements).
  void SetInputElements(const OpHandle& handle, std::int64_t largest, std::int64_t broadcast);
  // Closes an op opened by BeginOp on the same thread.
  void EndOp(const OpHandle& handle);
  void RecordMarker(const std::string& path, MarkerKind kind, ThreadId thread);
  // An allocation (bytes > 0) or free (bytes < 0) made now on the calling thread.
  void RecordMemory(std::uint64_t address, std::int64_t bytes, std::int32_t device,
                    ThreadId thread);

  // Moves everything recorded since Start() into `out`, ops of each thread in start order.
  void CollectInto(Timeline& out);

 private:
  struct ThreadBuffer;
  ThreadBuffer& CurrentThreadBuffer();

  std::atomic<bool> recording_{false};
  std::atomic<bool> count_page_faults_{false};
  std::atomic<std::uint64_t> generation_{0};
  std::mutex registry_mutex_;
  std::vector<std::shared_ptr<ThreadBuffer>> buffers_;
};

}  // namespace advisor
