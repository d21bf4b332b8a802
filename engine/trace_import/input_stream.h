// The bytes of a trace file in order, inflated when it is gzip-compressed (.json.gz, or any file
// that starts with gzip's magic bytes), read in blocks so that memory stays bounded whatever the
// file's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace advisor {

class InputStream {
 public:
  // Throws TraceError (one line naming the file) when it cannot be opened or read.
  static std::unique_ptr<InputStream> Open(const std::string& path);
  virtual ~InputStream() = default;

  // Up to `capacity` bytes of JSON text; 0 at the end. Throws TraceError on a read error or
  // corrupt compressed data.
  virtual std::size_t Read(char* buffer, std::size_t capacity) = 0;

  virtual bool compressed() const = 0;
  std::uint64_t file_bytes() const { return file_bytes_; }

 protected:
  std::uint64_t file_bytes_ = 0;
};

}  // namespace advisor
