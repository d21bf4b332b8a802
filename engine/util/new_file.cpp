#include "engine/util/new_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace advisor {

int WriteNewFile(const std::string& path, const std::string& content, mode_t mode) {
  return WriteNewFileAt(AT_FDCWD, path, content, mode);
}

int WriteNewFileAt(int folder_fd, const std::string& path, const std::string& content,
                   mode_t mode) {
  const int fd =
      ::openat(folder_fd, path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return errno;
  const char* data = content.data();
  std::size_t left = content.size();
  int error = 0;
  while (left > 0 && error == 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno != EINTR) error = errno;
      continue;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) ::unlinkat(folder_fd, path.c_str(), 0);
  return error;
}

}  // namespace advisor
