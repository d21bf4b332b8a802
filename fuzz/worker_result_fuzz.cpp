// A worker's result file, written by a process that may have crashed: any bytes parse into a
// WorkerResult or fail with a WorkerResultError naming the field.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/autotest/worker_result.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    advisor::ParseWorkerResult(text, "result.json");
  } catch (const advisor::WorkerResultError&) {
  }
  return 0;
}
