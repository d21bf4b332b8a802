// The file descriptor a trace's reader owns, and read(2) until a buffer is full: what the mapped
// file and the gzip inflaters share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace advisor {

// Closes its descriptor when it goes.
class FileHandle {
 public:
  explicit FileHandle(int fd) : fd_(fd) {}
  ~FileHandle();
  FileHandle(FileHandle&& other) noexcept : fd_(other.release()) {}
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  FileHandle& operator=(FileHandle&&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// read(2) until `capacity` bytes or the end of the file; throws TraceError naming `path` and the
// byte (`offset` is where the read started) on an error.
std::size_t ReadFully(int fd, char* buffer, std::size_t capacity, const std::string& path,
                      std::uint64_t offset);

}  // namespace advisor
