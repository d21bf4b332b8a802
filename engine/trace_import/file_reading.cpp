#include "engine/trace_import/file_reading.h"

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/trace_import/trace_error.h"

namespace advisor {

FileHandle::~FileHandle() {
  if (fd_ >= 0) ::close(fd_);
}

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

}  // namespace advisor
