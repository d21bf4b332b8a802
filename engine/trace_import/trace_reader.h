// Reading a torch.profiler trace file into a TraceStore at the speed of memory. A plain file is
// mapped and cut into chunks that threads scan for events (DocumentScanner) and parse (ParseEvent)
// in parallel, each from a guessed start state checked at the seams (chunk_scan.h); the pages
// read are given back as the reader goes. A .json.gz is inflated in blocks by one thread, ahead
// of another that finds the events, and a pool of threads parses them, batch by batch (with one
// thread, that one does it all). Memory holds the text in flight and the store, never the whole
// text, so files larger than memory are fine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/trace_import/event_store.h"

namespace advisor {

struct ReadOptions {
  // Threads that parse events; 0: as many as this process may run on (sched_getaffinity). With
  // 1, the reading thread parses too: the whole read runs on one core.
  int threads = 0;
  // Bytes inflated at a time from a .json.gz: a block scanned while still in the core's cache
  // (8 MiB blocks took a 260 MB trace's read on one core 0.70-0.76 s, 1 MiB 0.50-0.63 s).
  std::size_t block_bytes = 1u << 20;
  // Bytes of a plain file one thread scans and parses at a time: a chunk ends at the first
  // likely start of an event after this many bytes, or twice as many.
  std::size_t chunk_bytes = 1u << 20;
  // An event (one JSON object) larger than this is an error rather than a reason to hold
  // unbounded text.
  std::size_t max_event_bytes = 64u << 20;
  // What one trace may cost, so that a small hostile file cannot take minutes and gigabytes (a
  // 3.6 MB .json.gz of tiny events inflated to gigabytes and tens of millions of events): a
  // .json.gz that inflates to more than this many times its size on disk (torch.profiler's
  // traces inflate 15 to 30 times), and more events than this, kept or skipped (a 1.2 GB trace
  // holds 4.5 million), end the read with a TraceError.
  std::uint64_t max_inflation = 200;
  std::uint64_t max_events = 20'000'000;
};

// Throws TraceError, one line naming the file, the byte offset and the problem, for a file that
// is not a trace; malformed events are skipped and counted in TraceStore::stats.
TraceStore ReadTrace(const std::string& path, const ReadOptions& options = {});

// The threads ReadOptions{threads = 0} uses.
int DefaultReaderThreads();

}  // namespace advisor
