// Counts over every event of a store, a chunk at a time on several threads: the rooms the
// records stage makes before its chunks are read (HostEventReader, GpuRecordReader) were counted
// on one thread, in front of every chunk's reading.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/trace_import/event_store.h"
#include "engine/util/parallel_for.h"

namespace advisor {

// The sum (Counts' +=) of count(chunk) over the chunks of `store`, each chunk counted on one of
// `threads` threads.
template <typename Counts, typename CountChunk>
Counts CountOverChunks(const TraceStore& store, int threads, const CountChunk& count) {
  std::vector<Counts> of_chunk(store.chunks.size());
  ParallelFor(store.chunks.size(), threads,
              [&](std::size_t k) { of_chunk[k] = count(store.chunks[k]); });
  Counts total{};
  for (const Counts& counts : of_chunk) total += counts;
  return total;
}

}  // namespace advisor
