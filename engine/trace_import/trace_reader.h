// Reading a torch.profiler trace file into a TraceStore at the speed of memory: the file is read
// (or inflated) in blocks by one thread that also finds the events (DocumentScanner), and the
// events are parsed by a pool of threads (ParseEvent), batch by batch. Memory holds the blocks in
// flight and the store, never the whole text, so files larger than memory are fine.
#pragma once

#include <cstddef>
#include <string>

#include "engine/trace_import/event_store.h"

namespace advisor {

struct ReadOptions {
  // Threads that parse events; 0: as many as this process may run on (sched_getaffinity). With
  // 1, the reading thread parses too: the whole read runs on one core.
  int threads = 0;
  // Bytes read (or inflated) at a time.
  std::size_t block_bytes = 8u << 20;
  // An event (one JSON object) larger than this is an error rather than a reason to hold
  // unbounded text.
  std::size_t max_event_bytes = 64u << 20;
};

// Throws TraceError, one line naming the file, the byte offset and the problem, for a file that
// is not a trace; malformed events are skipped and counted in TraceStore::stats.
TraceStore ReadTrace(const std::string& path, const ReadOptions& options = {});

// The threads ReadOptions{threads = 0} uses.
int DefaultReaderThreads();

}  // namespace advisor
