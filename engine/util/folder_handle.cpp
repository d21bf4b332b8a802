#include "engine/util/folder_handle.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "engine/util/new_file.h"

namespace advisor {
namespace {

constexpr int kFolderFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;

// "a symbolic link" rather than ELOOP's "Too many levels of symbolic links".
std::string Reason(int error) {
  return error == ELOOP ? "it is a symbolic link, which advisor does not follow"
                        : std::strerror(error);
}

std::string RandomLetters(std::size_t count) {
  static constexpr char kLetters[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned char bytes[16] = {};
  std::size_t got = 0;
  while (got < count) {
    const ssize_t n = getrandom(bytes + got, count - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  std::string letters;
  for (std::size_t i = 0; i < count; ++i) letters += kLetters[bytes[i] % (sizeof kLetters - 1)];
  return letters;
}

}  // namespace

FolderHandle FolderHandle::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), kFolderFlags);
  if (fd < 0) throw std::runtime_error("cannot open folder " + path + ": " + std::strerror(errno));
  return FolderHandle(fd, path);
}

FolderHandle::FolderHandle(FolderHandle&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

FolderHandle& FolderHandle::operator=(FolderHandle&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

FolderHandle::~FolderHandle() {
  if (fd_ >= 0) ::close(fd_);
}

FolderHandle FolderHandle::Subfolder(const std::string& name) const {
  if (::mkdirat(fd_, name.c_str(), 0755) != 0 && errno != EEXIST) {
    throw std::runtime_error("cannot create folder " + PathOf(name) + ": " + Reason(errno));
  }
  const int fd = ::openat(fd_, name.c_str(), kFolderFlags | O_NOFOLLOW);
  if (fd < 0) {
    const int error = errno;
    // O_DIRECTORY with O_NOFOLLOW fails on a link with ENOTDIR, as on a file.
    const std::optional<struct stat> entry = Entry(name);
    const bool link = error == ELOOP || (entry && S_ISLNK(entry->st_mode));
    throw std::runtime_error("cannot use " + PathOf(name) + ": " +
                             (link               ? Reason(ELOOP)
                              : error == ENOTDIR ? std::string("it is not a folder")
                                                 : Reason(error)));
  }
  return FolderHandle(fd, PathOf(name));
}

std::string FolderHandle::MakeUniqueFolder(const std::string& prefix) const {
  constexpr int kAttempts = 100;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const std::string name = prefix + RandomLetters(6);
    if (::mkdirat(fd_, name.c_str(), 0700) == 0) return name;
    if (errno != EEXIST) {
      throw std::runtime_error("cannot write to " + path_ + ": " + std::strerror(errno));
    }
  }
  throw std::runtime_error("cannot write to " + path_ + ": " + std::strerror(EEXIST));
}

std::optional<struct stat> FolderHandle::Entry(const std::string& name) const {
  struct stat info {};
  if (::fstatat(fd_, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  return info;
}

int FolderHandle::OpenFile(const std::string& name, int flags, mode_t mode) const {
  return ::openat(fd_, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
}

int FolderHandle::WriteNewFile(const std::string& name, const std::string& content,
                               mode_t mode) const {
  return WriteNewFileAt(fd_, name, content, mode);
}

std::optional<std::string> FolderHandle::ReadFile(const std::string& name,
                                                  std::size_t limit) const {
  const std::string path = PathOf(name);
  const int fd = OpenFile(name, O_RDONLY | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw std::runtime_error(path + ": " + Reason(errno));
  }
  std::string text;
  const auto fail = [&](const std::string& reason) {
    ::close(fd);
    throw std::runtime_error(path + ": " + reason);
  };
  struct stat info {};
  if (::fstat(fd, &info) != 0) fail(std::strerror(errno));
  if (!S_ISREG(info.st_mode)) fail("not a regular file");
  if (static_cast<std::size_t>(info.st_size) > limit) {
    fail("larger than " + std::to_string(limit) + " bytes");
  }
  char buffer[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot be read: " + std::string(std::strerror(errno)));
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > limit) fail("grew while it was read");
  }
  ::close(fd);
  return text;
}

int FolderHandle::Rename(const std::string& from, const FolderHandle& to_folder,
                         const std::string& to) const {
  return ::renameat(fd_, from.c_str(), to_folder.fd_, to.c_str()) == 0 ? 0 : errno;
}

int FolderHandle::Link(const std::string& from, const FolderHandle& to_folder,
                       const std::string& to) const {
  // No AT_SYMLINK_FOLLOW: a link at `from` gets a second name, its target is not touched.
  return ::linkat(fd_, from.c_str(), to_folder.fd_, to.c_str(), 0) == 0 ? 0 : errno;
}

int FolderHandle::Remove(const std::string& name) const {
  return ::unlinkat(fd_, name.c_str(), 0) == 0 ? 0 : errno;
}

}  // namespace advisor
