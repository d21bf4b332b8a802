#include "engine/trace_import/input_stream.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "engine/trace_import/trace_error.h"
#include "engine/util/input_file.h"

namespace advisor {
namespace {

class FileHandle {
 public:
  explicit FileHandle(int fd) : fd_(fd) {}
  ~FileHandle() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileHandle(FileHandle&& other) noexcept : fd_(other.release()) {}
  FileHandle(const FileHandle&) = delete;
  FileHandle& operator=(const FileHandle&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// read(2) until `capacity` bytes or the end of the file.
std::size_t ReadFully(int fd, char* buffer, std::size_t capacity, const std::string& path,
                      std::uint64_t offset) {
  std::size_t total = 0;
  while (total < capacity) {
    const ssize_t got = ::read(fd, buffer + total, capacity - total);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw TraceError(path, offset + total, std::string("read failed: ") + std::strerror(errno));
    }
    total += static_cast<std::size_t>(got);
  }
  return total;
}

// zlib's inflater, member after member (concatenated .gz files are one stream to gunzip too).
class ZlibStream : public GzipStream {
 public:
  ZlibStream(std::string path, int fd, std::uint64_t size)
      : path_(std::move(path)), file_(fd), input_(1 << 20) {
    file_bytes_ = size;
    std::memset(&zlib_, 0, sizeof zlib_);
    if (inflateInit2(&zlib_, 16 + MAX_WBITS) != Z_OK) {
      throw TraceError(path_, "cannot start the gzip inflater");
    }
  }
  ~ZlibStream() override { inflateEnd(&zlib_); }

  std::size_t Read(char* buffer, std::size_t capacity) override {
    zlib_.next_out = reinterpret_cast<Bytef*>(buffer);
    zlib_.avail_out = static_cast<uInt>(std::min<std::size_t>(capacity, UINT32_MAX));
    while (zlib_.avail_out > 0 && !finished_) {
      if (zlib_.avail_in == 0) {
        const std::size_t got = ReadFully(file_.get(), input_.data(), input_.size(), path_,
                                          compressed_offset_);
        compressed_offset_ += got;
        if (got == 0) {
          if (!member_done_) {
            throw TraceError(path_, compressed_offset_,
                             "the gzip data ends early (the file is cut off)");
          }
          finished_ = true;
          break;
        }
        zlib_.next_in = reinterpret_cast<Bytef*>(input_.data());
        zlib_.avail_in = static_cast<uInt>(got);
      }
      if (member_done_) {
        // More bytes after a complete member: the next member of a concatenated file.
        if (inflateReset(&zlib_) != Z_OK) throw TraceError(path_, "cannot restart the inflater");
        member_done_ = false;
      }
      const int status = inflate(&zlib_, Z_NO_FLUSH);
      if (status == Z_STREAM_END) {
        member_done_ = true;
      } else if (status != Z_OK && status != Z_BUF_ERROR) {
        const std::uint64_t at = compressed_offset_ - zlib_.avail_in;
        throw TraceError(path_, at,
                         std::string("corrupt gzip data: ") +
                             (zlib_.msg ? zlib_.msg : "inflate failed") +
                             " (offset in the compressed file)");
      }
    }
    return capacity - zlib_.avail_out;
  }

 private:
  std::string path_;
  FileHandle file_;
  std::vector<char> input_;
  z_stream zlib_;
  std::uint64_t compressed_offset_ = 0;
  bool member_done_ = false;
  bool finished_ = false;
};

// An open trace file: a regular file, its size, and whether it starts with gzip's magic bytes.
struct OpenFile {
  FileHandle file;
  std::uint64_t size = 0;
  bool gzip = false;
};

OpenFile OpenTraceFile(const std::string& path) {
  // The shared check of untrusted files: a FIFO is refused, not waited on.
  const auto checked = [&] {
    try {
      return InputFile(path);
    } catch (const InputFileError& error) {
      throw TraceError(path, error.problem());
    }
  };
  InputFile file = checked();
  OpenFile open{FileHandle(file.Release()), file.size()};
  unsigned char magic[2] = {0, 0};
  const ssize_t got = ::pread(open.file.get(), magic, sizeof magic, 0);
  open.gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  return open;
}

}  // namespace

std::unique_ptr<GzipStream> GzipStream::Open(const std::string& path) {
  OpenFile open = OpenTraceFile(path);
  ::posix_fadvise(open.file.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::make_unique<ZlibStream>(path, open.file.release(), open.size);
}

std::unique_ptr<MappedFile> MappedFile::Open(const std::string& path) {
  OpenFile open = OpenTraceFile(path);
  if (open.gzip) return nullptr;
  if (open.size == 0) return std::unique_ptr<MappedFile>(new MappedFile(nullptr, 0));
  void* data = ::mmap(nullptr, open.size, PROT_READ, MAP_PRIVATE, open.file.get(), 0);
  if (data == MAP_FAILED) {
    throw TraceError(path, std::string("cannot map: ") + std::strerror(errno));
  }
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<const char*>(data), open.size));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
}

void MappedFile::Release(std::uint64_t offset) {
  static const std::uint64_t kPage = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t end = std::min(offset, size_) / kPage * kPage;
  if (data_ == nullptr || end <= released_) return;
  ::madvise(const_cast<char*>(data_) + released_, end - released_, MADV_DONTNEED);
  released_ = end;
}

}  // namespace advisor
