// CountOverChunks sums each chunk's counts, whatever the threads counting them.
#include "engine/trace_analysis/chunk_counts.h"

#include <gtest/gtest.h>

#include <cstddef>

namespace advisor {
namespace {

struct Counts {
  std::size_t complete = 0;  // events of phase 'X'
  std::size_t events = 0;

  Counts& operator+=(const Counts& other) {
    complete += other.complete;
    events += other.events;
    return *this;
  }
};

TEST(CountOverChunks, SumsEveryChunksCountsOnAnyNumberOfThreads) {
  TraceStore store;
  std::size_t complete = 0, events = 0;
  for (std::size_t k = 0; k < 40; ++k) {
    EventChunk& chunk = store.chunks.emplace_back();
    for (std::size_t i = 0; i < 3 * k + 1; ++i) {  // chunks of different sizes
      const char phase = (i + k) % 3 == 0 ? 'i' : 'X';
      chunk.phase.push_back(phase);
      chunk.name.push_back(0);
      complete += phase == 'X';
      ++events;
    }
  }
  for (int threads : {1, 2, 3, 8}) {
    SCOPED_TRACE(threads);
    const Counts counts = CountOverChunks<Counts>(store, threads, [](const EventChunk& chunk) {
      Counts of_chunk;
      for (std::size_t i = 0; i < chunk.size(); ++i) of_chunk.complete += chunk.phase[i] == 'X';
      of_chunk.events = chunk.size();
      return of_chunk;
    });
    EXPECT_EQ(counts.complete, complete);
    EXPECT_EQ(counts.events, events);
  }
  EXPECT_EQ(CountOverChunks<Counts>(TraceStore{}, 4,
                                    [](const EventChunk&) {
                                      return Counts{1, 1};
                                    })
                .events,
            0u);
}

}  // namespace
}  // namespace advisor
