// A trace file's bytes, two ways, memory bounded whatever the file's size: a plain file mapped
// whole (MappedFile), a gzip-compressed one (.json.gz, or any file that starts with gzip's magic
// bytes) inflated block by block (GzipStream: gzip_members.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace advisor {

class GzipStream {
 public:
  // Throws TraceError (one line naming the file) when it cannot be opened.
  static std::unique_ptr<GzipStream> Open(const std::string& path);
  virtual ~GzipStream() = default;

  // Up to `capacity` bytes of JSON text; 0 at the end. Throws TraceError on a read error or
  // corrupt compressed data.
  virtual std::size_t Read(char* buffer, std::size_t capacity) = 0;

  std::uint64_t file_bytes() const { return file_bytes_; }

 protected:
  std::uint64_t file_bytes_ = 0;
};

// A file that is not gzip-compressed, mapped whole and read-only: the parallel reader cuts it into
// chunks where it likes, with no copy. Pages it is done with are dropped from the process's
// memory as it goes (Release), so that its resident size stays that of the text in flight.
class MappedFile {
 public:
  // nullptr for a gzip-compressed file (GzipStream inflates those). Throws TraceError (one line
  // naming the file) when it cannot be opened or mapped.
  static std::unique_ptr<MappedFile> Open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return data_; }
  std::uint64_t size() const { return size_; }
  // Drops the whole pages before `offset` that are still mapped in. They stay in the page cache;
  // reading them again maps them back.
  void Release(std::uint64_t offset);

 private:
  MappedFile(const char* data, std::uint64_t size) : data_(data), size_(size) {}
  const char* data_;
  std::uint64_t size_;
  std::uint64_t released_ = 0;
};

}  // namespace advisor
