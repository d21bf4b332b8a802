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

FolderLock::FolderLock(const std::string& folder) : path_(folder + "/" + kLockFileName) {
  while (true) {
    // O_NOFOLLOW: a link planted at the name must not make advisor create or lock another file.
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      throw std::runtime_error("cannot write to " + folder + ": " + path_ + ": " +
                               std::strerror(errno));
    }
    if (flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      const std::string holder = HolderOf(fd_);
      ::close(fd_);
      if (error == EWOULDBLOCK) {
        throw std::runtime_error(folder + ": another advisor run" +
                                 (holder.empty() ? "" : " (pid " + holder + ")") +
                                 " is writing its report here; wait for it or choose another "
                                 "--out");
      }
      throw std::runtime_error("cannot lock " + path_ + ": " + std::strerror(error));
    }
    // The previous holder removes the file as it lets go: a lock taken on the removed file would
    // exclude nobody, so take the one now at the name.
    struct stat held {};
    struct stat named {};
    if (fstat(fd_, &held) == 0 && lstat(path_.c_str(), &named) == 0 && SameFile(held, named)) {
      break;
    }
    ::close(fd_);
  }
  registration_.emplace(path_, ScratchPath::Kind::kEntry);
  // For the message of a second run only: the lock holds whether or not the pid gets written.
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd_, 0) == 0) (void)!pwrite(fd_, pid.data(), pid.size(), 0);
}

FolderLock::~FolderLock() {
  ::unlink(path_.c_str());
  ::close(fd_);
}

}  // namespace advisor
