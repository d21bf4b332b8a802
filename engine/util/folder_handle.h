// A folder held open, so that every entry advisor creates, writes, renames or deletes in it is
// named relative to the folder itself (the *at system calls), never through a path: a link at
// the name of a folder advisor made (OUT/nodes, a staging folder), or that folder renamed and a
// link put in its place by anyone who can write to the report folder, cannot redirect a write or
// a deletion into another folder, and no link inside the folder is ever followed
// (docs/security.md: the report folder and the folder the nodes share).
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

namespace advisor {

class FolderHandle {
 public:
  // Opens the folder at `path`, which the user named: links on the way to it are the user's
  // choice and are followed. Throws std::runtime_error ("cannot open folder PATH: REASON").
  static FolderHandle Open(const std::string& path);

  FolderHandle(FolderHandle&& other) noexcept;
  FolderHandle& operator=(FolderHandle&& other) noexcept;
  FolderHandle(const FolderHandle&) = delete;
  FolderHandle& operator=(const FolderHandle&) = delete;
  ~FolderHandle();

  // The folder `name` inside this one, made (mode 0755) when it is missing. A symbolic link or
  // anything but a folder at the name is refused: std::runtime_error naming the path.
  FolderHandle Subfolder(const std::string& name) const;
  // A new folder (mode 0700) named `prefix` and six random letters, which nobody can prepare
  // beforehand; returns its name. Throws std::runtime_error naming this folder.
  std::string MakeUniqueFolder(const std::string& prefix) const;

  // The entry at `name` as lstat(2) sees it (a link is a link); nullopt when there is none.
  std::optional<struct stat> Entry(const std::string& name) const;
  // openat(2) with O_NOFOLLOW and O_CLOEXEC added: a link at `name` fails with ELOOP.
  int OpenFile(const std::string& name, int flags, mode_t mode = 0) const;
  // Creates `name` (O_EXCL: nothing may be there, not even a link), writes `content` whole and
  // fsyncs it. Returns 0 or the errno of the first call that failed; a file it created and could
  // not fill is removed again.
  int WriteNewFile(const std::string& name, const std::string& content, mode_t mode = 0644) const;
  // The regular file `name` whole; nullopt when there is none. Opened without following a link
  // and without blocking (a FIFO is refused, not waited on). Throws std::runtime_error
  // ("PATH: REASON") for a link, anything but a regular file, or one larger than `limit` bytes.
  std::optional<std::string> ReadFile(const std::string& name, std::size_t limit) const;

  // These return 0 or errno; none follows a link at either name.
  int Rename(const std::string& from, const FolderHandle& to_folder, const std::string& to) const;
  int Link(const std::string& from, const FolderHandle& to_folder, const std::string& to) const;
  int Remove(const std::string& name) const;  // a file or a link; ENOENT when there is none

  // For messages and for the interrupt handler's registry (scratch_paths.h), which removes by
  // path without following links.
  const std::string& path() const { return path_; }
  std::string PathOf(const std::string& name) const { return path_ + "/" + name; }
  int fd() const { return fd_; }

 private:
  FolderHandle(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

  int fd_ = -1;
  std::string path_;
};

}  // namespace advisor
