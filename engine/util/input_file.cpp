#include "engine/util/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "engine/util/file_kind.h"

namespace advisor {
namespace {

std::string TooLarge(std::uint64_t size, std::uint64_t max_bytes) {
  return std::to_string(size) + " bytes is too large (at most " + std::to_string(max_bytes) + ")";
}

}  // namespace

InputFile::InputFile(const std::string& path) {
  // The kind first: a FIFO or a device is refused by name before anything opens it.
  if (const std::string why = WhyNotARegularFile(path); !why.empty()) {
    throw InputFileError(path, why);
  }
  // O_NONBLOCK: a FIFO swapped in after the check opens at once instead of waiting for a writer;
  // fstat below refuses it. O_NOCTTY: a terminal never becomes advisor's.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd_ < 0) throw InputFileError(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd_);
    throw InputFileError(path, "is no longer a regular file");
  }
  // Reads of a regular file never block anyway; the flag goes so that nothing sees EAGAIN.
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  size_ = static_cast<std::uint64_t>(info.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

InputFile::InputFile(InputFile&& other) noexcept : fd_(other.Release()), size_(other.size_) {}

int InputFile::Release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

std::string ReadInputFile(const std::string& path, std::uint64_t max_bytes) {
  const InputFile file(path);
  if (file.size() > max_bytes) throw InputFileError(path, TooLarge(file.size(), max_bytes));
  std::string text;
  // One byte more than the limit shows a file that grew past it after the check.
  text.resize(static_cast<std::size_t>(file.size() < max_bytes ? file.size() + 1 : max_bytes + 1));
  std::size_t done = 0;
  while (true) {
    if (done == text.size()) {
      if (text.size() > max_bytes) throw InputFileError(path, TooLarge(text.size(), max_bytes));
      text.resize(std::min<std::uint64_t>(text.size() * 2, max_bytes + 1));
    }
    const ssize_t got = ::read(file.fd(), text.data() + done, text.size() - done);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputFileError(path, std::string("cannot read: ") + std::strerror(errno));
    }
    done += static_cast<std::size_t>(got);
  }
  text.resize(done);
  return text;
}

}  // namespace advisor
