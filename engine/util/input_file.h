// Opening a file that someone else wrote (a trace, a rule, a recipe, a worker's result, a file of
// the report folder read back) without letting its kind hurt: open(2) on a named pipe blocks until
// a writer comes, forever if none does, and on a device it can act (rewind a tape, wait for a
// modem). So every reader of such files opens them here: the path's kind is checked before it is
// opened, the open itself cannot block, and what was opened is checked again, in case the path
// was swapped in between.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace advisor {

// "PATH: PROBLEM", one line; problem() is the part after "PATH: ".
class InputFileError : public std::runtime_error {
 public:
  InputFileError(const std::string& path, const std::string& problem)
      : std::runtime_error(path + ": " + problem), problem_(problem) {}
  const std::string& problem() const { return problem_; }

 private:
  std::string problem_;
};

// A regular file open for reading; closed with the object.
class InputFile {
 public:
  // Throws InputFileError when `path` is not a regular file (in WhyNotARegularFile's words: "is a
  // named pipe (FIFO), not a regular file", "is a symbolic link loop", ...) or cannot be opened.
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  InputFile& operator=(InputFile&&) = delete;

  int fd() const { return fd_; }
  std::uint64_t size() const { return size_; }
  // The descriptor, now the caller's to close.
  int Release();

 private:
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// The whole of `path`, opened as InputFile does. Throws InputFileError when it cannot be opened
// or read, or holds more than `max_bytes` (checked before reading, and again while reading, in
// case it grows): "N bytes is too large (at most M)".
std::string ReadInputFile(const std::string& path, std::uint64_t max_bytes);

}  // namespace advisor
