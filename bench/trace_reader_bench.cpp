// Times advisor's trace reader on one file: `trace_reader_bench FILE [--threads N]` reads FILE
// into a TraceStore (ReadTrace: map or inflate, scan, parse, intern) and prints one JSON line
// with the JSON bytes, events, seconds, MB/s (10^6 bytes of JSON text per second), the
// process's peak resident memory, and a plain file's chunks and how many of them had to be
// scanned again (their guessed start state was wrong). scripts/bench_trace_reader.sh runs it
// beside Python's json.load.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/trace_import/trace_error.h"
#include "engine/trace_import/trace_reader.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: trace_reader_bench FILE [--threads N]\n");
    return 2;
  }
  advisor::ReadOptions options;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--threads") == 0) options.threads = std::atoi(argv[i + 1]);
  }
  const int threads = options.threads > 0 ? options.threads : advisor::DefaultReaderThreads();
  try {
    const auto start = std::chrono::steady_clock::now();
    const advisor::TraceStore store = advisor::ReadTrace(argv[1], options);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf(
        "{\"file\": \"%s\", \"threads\": %d, \"compressed\": %s, \"file_bytes\": %llu, "
        "\"json_bytes\": %llu, \"events\": %llu, \"skipped\": %llu, \"seconds\": %.3f, "
        "\"json_mb_per_s\": %.1f, \"peak_rss_mb\": %.1f, \"chunks\": %llu, "
        "\"chunks_scanned_again\": %llu}\n",
        argv[1], threads, store.stats.compressed ? "true" : "false",
        static_cast<unsigned long long>(store.stats.file_bytes),
        static_cast<unsigned long long>(store.stats.json_bytes),
        static_cast<unsigned long long>(store.stats.events),
        static_cast<unsigned long long>(store.stats.skipped_events), seconds,
        store.stats.json_bytes / 1e6 / seconds, usage.ru_maxrss / 1024.0,
        static_cast<unsigned long long>(store.stats.chunks),
        static_cast<unsigned long long>(store.stats.chunks_scanned_again));
  } catch (const advisor::TraceError& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
