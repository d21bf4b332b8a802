// Small constructors for hand-built timelines in the GPU and trace tests.
#pragma once

#include <initializer_list>
#include <string>

#include "engine/analysis/placement.h"
#include "engine/timeline/timeline.h"

namespace advisor::testing {

// An op and the correlation id its GPU work carries, which the timeline holds beside its ops
// (Timeline::CorrelationOf).
struct TestOp {
  OpEvent event;
  std::uint64_t correlation_id = 0;
};

inline TestOp Op(std::string name, TimeNs start, TimeNs end, std::uint64_t correlation_id,
                 std::int16_t depth = 0, ThreadId thread = 1, OpScope scope = OpScope::kForward) {
  TestOp op;
  op.event.name = std::move(name);
  op.event.scope = scope;
  op.event.thread = thread;
  op.event.start_ns = start;
  op.event.end_ns = end;
  op.event.depth = depth;
  op.correlation_id = correlation_id;
  return op;
}

// Appends `op` to the timeline's ops, its correlation id beside it.
inline void AddOp(Timeline& timeline, const TestOp& op) {
  timeline.ops.push_back(op.event);
  timeline.SetCorrelation(timeline.ops.size() - 1, op.correlation_id);
}

// The timeline's ops are `ops`, in order.
inline void SetOps(Timeline& timeline, std::initializer_list<TestOp> ops) {
  timeline.ops.clear();
  timeline.op_correlation_ids.clear();
  for (const TestOp& op : ops) AddOp(timeline, op);
}

inline KernelEvent Kernel(TimeNs start, TimeNs end, std::uint64_t external_id,
                          std::uint32_t stream = 7, std::string name = "kernel") {
  KernelEvent kernel;
  kernel.name = std::move(name);
  kernel.stream = stream;
  kernel.start_ns = start;
  kernel.end_ns = end;
  kernel.grid[0] = kernel.grid[1] = kernel.grid[2] = 1;
  kernel.block[0] = 128;
  kernel.block[1] = kernel.block[2] = 1;
  kernel.external_id = external_id;
  return kernel;
}

inline MemcpyEvent Memcpy(MemcpyKind kind, TimeNs start, TimeNs end, std::uint64_t external_id,
                          std::uint64_t bytes = 1024, bool pageable = false) {
  MemcpyEvent copy;
  copy.kind = kind;
  copy.bytes = bytes;
  copy.pageable_host = pageable;
  copy.stream = 7;
  copy.start_ns = start;
  copy.end_ns = end;
  copy.external_id = external_id;
  return copy;
}

inline MemsetEvent Memset(TimeNs start, TimeNs end, std::uint64_t external_id) {
  MemsetEvent memset;
  memset.bytes = 256;
  memset.stream = 7;
  memset.start_ns = start;
  memset.end_ns = end;
  memset.external_id = external_id;
  return memset;
}

inline ApiCallEvent Api(std::string name, TimeNs start, TimeNs end, std::uint64_t external_id,
                        bool driver = false, std::uint32_t correlation_id = 0) {
  ApiCallEvent call;
  call.name = std::move(name);
  call.driver = driver;
  call.thread = 9001;
  call.start_ns = start;
  call.end_ns = end;
  call.external_id = external_id;
  call.correlation_id = correlation_id;
  return call;
}

inline SyncEvent Sync(SyncKind kind, TimeNs start, TimeNs end, std::uint64_t external_id) {
  SyncEvent sync;
  sync.kind = kind;
  sync.stream = 7;
  sync.start_ns = start;
  sync.end_ns = end;
  sync.external_id = external_id;
  return sync;
}

// Forward is the first half of the step, backward the next quarter, the optimizer the rest.
inline StepSpan Step(int index, TimeNs start, TimeNs end) {
  const TimeNs length = end - start;
  return StepOfPhases(index, start, start, start + length / 2, start + length * 3 / 4, end);
}

inline PlacedOp Placed(int step, Phase phase, const std::string& module = "") {
  OpPlacement placement;
  placement.step = step;
  placement.phase = phase;
  return {placement, module};
}

inline ProbeStatus CuptiRecorded() { return ProbeStatus{"cupti", true, "test", 0}; }

}  // namespace advisor::testing
