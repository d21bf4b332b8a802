#include "probes/ops/event_recorder.h"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <unordered_map>

#include "probes/ops/page_faults.h"

namespace advisor {

TimeNs NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A marker as the marker op saw it: its path stays the op's string until collection, so that
// recording one costs a string copy, as it did before paths were ModulePaths.
struct RecordedMarker {
  std::string path;
  MarkerKind kind;
  ThreadId thread;
  TimeNs time_ns;
};

namespace {

// `name` interned without the name table's lock, on the path every recorded op takes: each
// recording thread keeps the names it met by the address it met them at (torch hands an
// operator's name from its schema, the same address every call). An address may come back with
// other text (a user label's string freed and another made there), so a hit is trusted only
// once its text is checked.
OpName CachedOpName(const char* name) {
  constexpr std::size_t kMostCached = 4096;  // labels made on the fly come and go
  thread_local std::unordered_map<const char*, OpName> by_address;
  const auto found = by_address.find(name);
  if (found != by_address.end() && found->second.str() == name) return found->second;
  if (by_address.size() >= kMostCached) by_address.clear();
  const OpName interned(name);
  by_address[name] = interned;
  return interned;
}

}  // namespace

struct EventRecorder::ThreadBuffer {
  std::uint64_t generation = 0;  // the window these events belong to
  int open_ops = 0;
  std::vector<OpEvent> ops;
  std::vector<OpCounts> counts;                // ops[i]'s
  std::vector<OpSequence> sequences;           // ops[i]'s
  std::vector<std::uint64_t> correlation_ids;  // ops[i]'s
  std::vector<RecordedMarker> markers;
  std::vector<MemoryEvent> memory;
};

EventRecorder& EventRecorder::Get() {
  static EventRecorder recorder;
  return recorder;
}

void EventRecorder::Start(bool count_page_faults) {
  count_page_faults_.store(count_page_faults, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  recording_.store(true, std::memory_order_release);
}

void EventRecorder::Stop() { recording_.store(false, std::memory_order_release); }

EventRecorder::ThreadBuffer& EventRecorder::CurrentThreadBuffer() {
  // shared_ptr: the registry keeps a buffer alive after its thread exits, so collection can
  // still read what an exited autograd worker recorded.
  thread_local std::shared_ptr<ThreadBuffer> buffer;
  if (!buffer) {
    buffer = std::make_shared<ThreadBuffer>();
    std::lock_guard<std::mutex> lock(registry_mutex_);
    buffers_.push_back(buffer);
  }
  const std::uint64_t generation = generation_.load(std::memory_order_acquire);
  if (buffer->generation != generation) {
    buffer->generation = generation;
    buffer->open_ops = 0;
    buffer->ops.clear();
    buffer->counts.clear();
    buffer->sequences.clear();
    buffer->correlation_ids.clear();
    buffer->markers.clear();
    buffer->memory.clear();
  }
  return *buffer;
}

EventRecorder::OpHandle EventRecorder::BeginOp(const char* name, OpScope scope, ThreadId thread,
                                               std::int64_t seq_nr, ThreadId forward_thread,
                                               std::uint64_t correlation_id) {
  ThreadBuffer& buffer = CurrentThreadBuffer();
  OpEvent& op = buffer.ops.emplace_back();
  buffer.counts.emplace_back();
  buffer.sequences.push_back({seq_nr, forward_thread});
  buffer.correlation_ids.push_back(correlation_id);
  op.name = CachedOpName(name);
  op.scope = scope;
  op.thread = thread;
  op.depth = static_cast<std::int16_t>(std::min(buffer.open_ops++, OpEvent::kMaxDepth));
  const std::int64_t faults = op.depth == 0 && count_page_faults_.load(std::memory_order_relaxed)
                                  ? ThreadMinorFaults()
                                  : -1;
  op.start_ns = NowNs();
  return {&buffer, buffer.ops.size() - 1, faults, op.depth};
}

void EventRecorder::SetInputElements(const OpHandle& handle, std::int64_t largest,
                                     std::int64_t broadcast) {
  auto* buffer = static_cast<ThreadBuffer*>(handle.buffer);
  if (handle.index >= buffer->ops.size()) return;
  OpCounts& counts = buffer->counts[handle.index];
  counts.input_elements = largest;
  counts.broadcast_elements = broadcast;
}

void EventRecorder::EndOp(const OpHandle& handle) {
  const TimeNs now = NowNs();
  auto* buffer = static_cast<ThreadBuffer*>(handle.buffer);
  // A window that started in between cleared the buffer: the op belongs to no window.
  if (handle.index >= buffer->ops.size()) return;
  OpEvent& op = buffer->ops[handle.index];
  op.end_ns = now;
  if (handle.faults_at_start >= 0) {
    const std::int64_t faults = ThreadMinorFaults();
    if (faults >= handle.faults_at_start) {
      buffer->counts[handle.index].page_faults = faults - handle.faults_at_start;
    }
  }
  if (buffer->open_ops > 0) --buffer->open_ops;
}

void EventRecorder::RecordMarker(const std::string& path, MarkerKind kind, ThreadId thread) {
  ThreadBuffer& buffer = CurrentThreadBuffer();
  buffer.markers.push_back(RecordedMarker{path, kind, thread, NowNs()});
}

void EventRecorder::RecordMemory(std::uint64_t address, std::int64_t bytes, std::int32_t device,
                                 ThreadId thread) {
  ThreadBuffer& buffer = CurrentThreadBuffer();
  buffer.memory.push_back(MemoryEvent{address, bytes, device, thread, NowNs()});
}

void EventRecorder::CollectInto(Timeline& out) {
  const std::uint64_t generation = generation_.load(std::memory_order_acquire);
  std::lock_guard<std::mutex> lock(registry_mutex_);
  ModulePathsByName paths;
  for (const std::shared_ptr<ThreadBuffer>& buffer : buffers_) {
    if (buffer->generation != generation) continue;
    for (std::size_t i = 0; i < buffer->ops.size(); ++i) {
      if (buffer->ops[i].end_ns == 0) continue;  // still open when the window stopped
      out.ops.push_back(buffer->ops[i]);
      out.SetCounts(out.ops.size() - 1, buffer->counts[i]);
      out.SetSequence(out.ops.size() - 1, buffer->sequences[i]);
      out.SetCorrelation(out.ops.size() - 1, buffer->correlation_ids[i]);
    }
    for (const RecordedMarker& marker : buffer->markers) {
      out.markers.push_back(
          MarkerEvent{paths.Of(marker.path), marker.kind, marker.thread, marker.time_ns});
    }
    out.memory.insert(out.memory.end(), buffer->memory.begin(), buffer->memory.end());
    buffer->ops.clear();
    buffer->counts.clear();
    buffer->sequences.clear();
    buffer->correlation_ids.clear();
    buffer->markers.clear();
    buffer->memory.clear();
  }
}

}  // namespace advisor
