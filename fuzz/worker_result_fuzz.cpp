// A worker's result file, written by a process that may have crashed: any bytes parse into a
// CandidateResult or fail with a CandidateResultError naming the field.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/autotest/candidate_result.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    advisor::ParseCandidateResult(text, "result.json");
  } catch (const advisor::CandidateResultError&) {
  }
  return 0;
}
