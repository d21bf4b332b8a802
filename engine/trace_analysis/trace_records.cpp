#include "engine/trace_analysis/trace_records.h"

#include <time.h>

#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "engine/trace_analysis/device_clock_steps.h"
#include "engine/trace_analysis/host_chunk_records.h"
#include "engine/trace_analysis/trace_memory.h"
#include "engine/trace_import/trace_reader.h"
#include "engine/util/freed_memory.h"
#include "engine/util/ordered_pool.h"

namespace advisor {
namespace {

// What one chunk of events says, read on any thread.
struct ChunkRecords {
  HostChunkRecords host;
  GpuChunkRecords gpu;
  std::vector<DeviceMemoryRecord> memory;
};

// Adds the calling thread's CPU time since it was made, or since the last AddTo, to a time: what
// the work cost, whatever else runs beside it (a busy machine's wall time waits for a core).
class ThreadStopwatch {
 public:
  void AddTo(double& ms) {
    const double now = ThreadCpuMs();
    ms += now - since_;
    since_ = now;
  }

 private:
  static double ThreadCpuMs() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
  }

  double since_ = ThreadCpuMs();
};

// Reads every chunk of `store` once, on `threads` threads (0: DefaultReaderThreads()), and joins
// what each says in chunk order, so the records are those one thread reading each chunk in turn
// makes. `done(k)` is called on the thread that read chunk k once it is read: nothing of it is
// needed after. At most twice as many chunks' records as threads wait for the join (OrderedPool).
TraceRecords ReadRecords(const TraceStore& store, int threads,
                         const std::function<void(std::size_t)>& done, RecordsSerialTimes& serial) {
  const std::size_t chunks = store.chunks.size();
  std::vector<std::uint32_t> first_order(chunks);  // the events before each chunk
  for (std::size_t k = 1; k < chunks; ++k) {
    first_order[k] = first_order[k - 1] + static_cast<std::uint32_t>(store.chunks[k - 1].size());
  }
  if (threads <= 0) threads = DefaultReaderThreads();
  threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), chunks));
  const HostChunkReader host_chunks(store);
  HostEventReader host(store, threads);
  const auto read = [&](std::size_t& k) {
    const EventChunk& chunk = store.chunks[k];
    ChunkRecords records;
    try {
      records.host = host_chunks.Read(chunk, first_order[k]);
    } catch (...) {
      HostChunkRecords none;  // the chunks after it are not left waiting for their places
      host.Place(k, none);
      throw;
    }
    host.Place(k, records.host);
    records.gpu = ReadGpuChunk(store, chunk);
    AddDeviceMemoryRecords(chunk, records.memory);
    if (done) done(k);
    return records;
  };
  GpuRecordReader gpu(store, threads);
  std::vector<DeviceMemoryRecord> memory;
  const auto join = [&](ChunkRecords&& records) {
    ThreadStopwatch joining;
    host.Add(std::move(records.host));
    gpu.Add(std::move(records.gpu));
    memory.insert(memory.end(), records.memory.begin(), records.memory.end());
    joining.AddTo(serial.join_ms);
  };
  if (threads <= 1) {
    for (std::size_t k = 0; k < chunks; ++k) join(read(k));
  } else {
    OrderedPool<std::size_t, ChunkRecords> pool(threads, read);
    for (std::size_t k = 0; k < chunks; ++k) pool.Submit(k, join);
    ChunkRecords records;
    while (pool.TakeNext(records, /*wait=*/true)) join(std::move(records));
  }

  ThreadStopwatch whole_trace;
  TraceRecords records;
  records.host = host.Finish(threads);
  whole_trace.AddTo(serial.host_ms);
  records.gpu = gpu.Finish(records.host, threads);
  whole_trace.AddTo(serial.gpu_ms);
  records.steps = StepsOf(records.host);
  if (!records.gpu.launched_work.empty()) {
    records.steps.on_device = DeviceClockSteps(records.steps.steps, records.gpu.launched_work);
  }
  if (records.gpu.any_device_work) {
    const DeviceProperties* device = DeviceOf(store.metadata, records.gpu.device);
    records.memory = DeviceMemoryOf(memory, records.gpu.device,
                                    device ? device->total_memory_bytes : 0, records.steps.steps);
  }
  whole_trace.AddTo(serial.steps_ms);
  return records;
}

}  // namespace

TraceRecords ReadTraceRecords(const TraceStore& store, int threads) {
  RecordsSerialTimes serial;
  return ReadRecords(store, threads, nullptr, serial);
}

TraceRecords TakeTraceRecords(TraceStore& store, int threads, RecordsSerialTimes* serial) {
  // Each chunk's pages go back to the system as its reader lets it go (FreeReturningPages), so
  // that the records grow into memory the events held rather than beside it: with the window
  // placed a segment at a time, this stage's peak is the run's (docs/benchmarks.md). What that
  // leaves resident, each column's first and last page, is returned every 32 chunks
  // (ReturnFreedMemory, which walks every thread's arena under its lock): returned that way every
  // 4 chunks instead, a 250 MB legacy list on 2 threads made 11,474 madvise calls over 4.4 GB of
  // free memory, 3,234 now, at the same peak (105-110 MB).
  constexpr std::size_t kChunksPerTrim = 32;
  RecordsSerialTimes unused;
  TraceRecords records = ReadRecords(
      store, threads,
      [&store](std::size_t k) {
        store.chunks[k].FreeReturningPages();
        if ((k + 1) % kChunksPerTrim == 0) ReturnFreedMemory();
      },
      serial ? *serial : unused);
  store.chunks.clear();
  ReturnFreedMemory();
  return records;
}

}  // namespace advisor
