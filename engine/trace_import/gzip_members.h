// A gzip file inflated member after member (concatenated .gz files are one stream to gunzip too)
// by the inflater the build has: ISA-L's where CMake found it (about three times zlib's speed on
// a trace, docs/benchmarks.md), else zlib's. Reading the file, the members and the errors are
// GzipMembers'; each inflater's few steps are its subclass's (isal_inflater.cpp,
// zlib_inflater.cpp: the build compiles one of them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/trace_import/file_reading.h"
#include "engine/trace_import/input_stream.h"

namespace advisor {

class GzipMembers : public GzipStream {
 public:
  std::size_t Read(char* buffer, std::size_t capacity) final;

 protected:
  GzipMembers(std::string path, FileHandle file, std::uint64_t size);

  const std::string& path() const { return path_; }

  // What one call of the inflater came to.
  enum class Inflated {
    kMore,       // it wants more input or more room
    kMemberEnd,  // the member's data and trailer are read
    kCorrupt,    // Problem() says why
  };
  // Gives the inflater `size` bytes of compressed input, once it has used what it had.
  virtual void Feed(const char* data, std::size_t size) = 0;
  virtual std::size_t InputLeft() const = 0;
  // Makes ready for the next member's header.
  virtual void Restart() = 0;
  // Inflates into `out` (at most `capacity` bytes, which fits in 32 bits) and adds what it wrote
  // to `written`.
  virtual Inflated Inflate(char* out, std::size_t capacity, std::size_t& written) = 0;
  virtual std::string Problem() const = 0;

 private:
  std::string path_;
  FileHandle file_;
  std::vector<char> input_;
  std::uint64_t compressed_offset_ = 0;
  bool member_done_ = false;
  bool finished_ = false;
};

// The build's inflater over `file` (open at its start); throws TraceError when it cannot start.
std::unique_ptr<GzipStream> OpenInflater(std::string path, FileHandle file, std::uint64_t size);

// Which inflater the build has: "ISA-L", or "zlib" and the version of the zlib it runs with.
std::string InflaterName();

}  // namespace advisor
