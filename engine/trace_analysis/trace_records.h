// What the window of a trace is built from (BuildProfilerTraceWindow), read out of the store's
// events: its host events, its GPU records linked to their ops, its steps and its device memory.
// The store's chunks are read on several threads, each into records of its own, and joined in
// file order; what needs the whole trace follows the join.
#pragma once

#include <optional>

#include "engine/model/memory.h"
#include "engine/trace_analysis/gpu_records.h"
#include "engine/trace_analysis/host_events.h"
#include "engine/trace_analysis/trace_steps.h"
#include "engine/trace_import/event_store.h"

namespace advisor {

// Once it is read, the events may go. The window's own records are about as large as the events
// they come from, so a caller that lets the events go first (advisor analyze) never holds both.
struct TraceRecords {
  HostEvents host;
  GpuRecords gpu;
  TraceSteps steps;
  std::optional<MemoryStats> memory;  // of the device most GPU work ran on
};

// The CPU time of what the records stage does on one thread, whatever the threads reading the
// chunks (`advisor analyze -v`): what bounds the stage on many cores.
struct RecordsSerialTimes {
  double join_ms = 0;   // the chunks' records joined in file order, on the thread that joins them
  double host_ms = 0;   // labels placed among a legacy trace's operators, backward nodes linked
  double gpu_ms = 0;    // GPU records linked to the ops that launched them
  double steps_ms = 0;  // the steps cut, on the host's clock and the device's; device memory
};

// Each chunk of events is read on one of `threads` threads (0: one a core, as the reader's
// ReadOptions::threads), their records joined in file order: the records are the same with any
// number of threads.
TraceRecords ReadTraceRecords(const TraceStore& store, int threads = 1);

// The same, letting each chunk of events go once read (store.chunks is empty after): the records
// grow while the events shrink. `store` keeps its path, metadata, strings and stats. `serial`,
// where given, gets the times of the stage's one-thread part.
TraceRecords TakeTraceRecords(TraceStore& store, int threads = 1,
                              RecordsSerialTimes* serial = nullptr);

}  // namespace advisor
