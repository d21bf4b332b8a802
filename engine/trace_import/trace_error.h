// The one error a trace file can raise: one line naming the file, the byte offset and the problem.
// Traces are untrusted input; everything the reader cannot use ends here or in a counted skip.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace advisor {

class TraceError : public std::runtime_error {
 public:
  TraceError(const std::string& path, std::uint64_t byte, const std::string& problem)
      : std::runtime_error(path + ": byte " + std::to_string(byte) + ": " + problem) {}
  // For problems that have no position (the file cannot be opened).
  TraceError(const std::string& path, const std::string& problem)
      : std::runtime_error(path + ": " + problem) {}
};

}  // namespace advisor
