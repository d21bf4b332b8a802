#include "engine/trace_import/input_stream.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "engine/trace_import/file_reading.h"
#include "engine/trace_import/gzip_members.h"
#include "engine/trace_import/trace_error.h"
#include "engine/util/input_file.h"

namespace advisor {
namespace {

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
  return OpenInflater(path, std::move(open.file), open.size);
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
