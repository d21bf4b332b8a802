// Fuzz target for the trace reader: any bytes, plain or gzip, must give a TraceStore or one
// TraceError line, never a crash, a hang, a leak or another exception. The input goes through a
// memory file so that the real paths run: gzip detection, block reading (gzip) or mapping (plain),
// the parallel split with its seam checks, scanning and the parser threads. A store read is then
// built into the window `advisor analyze` measures (module ranges nested, steps cut), which ends
// the same two ways, and into its report (the module table, paths shown within their bound).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_analysis/trace_report.h"
#include "engine/trace_import/trace_error.h"
#include "engine/trace_import/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int fd = memfd_create("trace", 0);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ftruncate(fd, 0) != 0) return 0;
  if (size > 0 && pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) return 0;

  advisor::ReadOptions options;
  // Small blocks put events across block boundaries; odd sizes also run the parser threads.
  options.block_bytes = 61 + size % 4096;
  // Small chunks cut a plain file in many places, most of them guesses that fail.
  options.chunk_bytes = 1 + size % 509;
  options.max_event_bytes = 1u << 20;
  options.threads = 1 + static_cast<int>(size % 3);
  // Bounds as a real read has them, smaller, so that a tiny-events input meets them quickly.
  options.max_events = 1u << 18;
  try {
    const advisor::TraceStore store = advisor::ReadTrace(path, options);
    advisor::ReportOfTrace(store, advisor::BuildProfilerTraceWindow(store));
  } catch (const advisor::TraceError&) {
    // A refused file is a correct outcome.
  }
  return 0;
}
