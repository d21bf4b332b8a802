#include "engine/util/file_kind.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace advisor {

std::string WhyNotARegularFile(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    const int error = errno;
    struct stat link {};
    if (error == ELOOP) return "is a symbolic link loop";
    if (error == ENOENT && lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      return "is a symbolic link to a missing file";
    }
    if (error == ENOENT) return "no such file";
    return std::strerror(error);
  }
  if (S_ISREG(info.st_mode)) return "";
  if (S_ISDIR(info.st_mode)) return "is a directory";
  if (S_ISFIFO(info.st_mode)) return "is a named pipe (FIFO), not a regular file";
  if (S_ISSOCK(info.st_mode)) return "is a socket, not a regular file";
  return "is a device, not a regular file";
}

}  // namespace advisor
