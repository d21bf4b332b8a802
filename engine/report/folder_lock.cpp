#include "engine/report/folder_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace advisor {
namespace {

// The pid the holder wrote into the lock file, "" when unreadable.
std::string HolderOf(int fd) {
  char text[32] = {};
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  std::string pid(text, n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid;
}

bool SameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

FolderLock::FolderLock(const FolderHandle& folder) : folder_(folder) {
  const std::string path = folder_.PathOf(kLockFileName);
  while (true) {
    // O_NOFOLLOW: a link planted at the name must not make advisor create or lock another file.
    fd_ = folder_.OpenFile(kLockFileName, O_RDWR | O_CREAT, 0644);
    if (fd_ < 0) {
      throw std::runtime_error("cannot write to " + folder_.path() + ": " + path + ": " +
                               std::strerror(errno));
    }
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string holder = HolderOf(fd_);
      ::close(fd_);
      if (error == EWOULDBLOCK) {
        throw std::runtime_error(folder_.path() + ": another advisor run" +
                                 (holder.empty() ? "" : " (pid " + holder + ")") +
                                 " is writing its report here; wait for it or choose another "
                                 "--out");
      }
      throw std::runtime_error("cannot lock " + path + ": " + std::strerror(error));
    }
    // The previous holder removes the file as it lets go: a lock taken on the removed file would
    // exclude nobody, so take the one now at the name.
    struct stat held {};
    const std::optional<struct stat> named = folder_.Entry(kLockFileName);
    if (fstat(fd_, &held) == 0 && named && SameFile(held, *named)) break;
    ::close(fd_);
  }
  registration_.emplace(path, ScratchPath::Kind::kEntry);
  // For the message of a second run only: the lock holds whether or not the pid gets written.
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd_, 0) == 0) (void)!pwrite(fd_, pid.data(), pid.size(), 0);
}

FolderLock::~FolderLock() {
  folder_.Remove(kLockFileName);
  ::close(fd_);
}

}  // namespace advisor
