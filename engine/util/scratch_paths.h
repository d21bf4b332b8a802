// The paths advisor makes for one run and must not leave behind: its scratch folders (the
// autotest's worker results, the report's staging folder), the report folder's lock and the
// report folders it created. Their owners remove them as they go out of scope; the registry lets
// an interrupt or a hung step (interrupts.h), which cannot unwind the stack, remove them too.
#pragma once

#include <string>

namespace advisor {

// Registers a path for its lifetime; removing it stays its owner's job.
class ScratchPath {
 public:
  enum class Kind {
    kTree,   // a folder made for advisor alone: removed with everything in it
    kEntry,  // removed only while it is a file, a symbolic link or an empty folder
  };
  ScratchPath(std::string path, Kind kind);
  ~ScratchPath();
  ScratchPath(const ScratchPath&) = delete;
  ScratchPath& operator=(const ScratchPath&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Removes every registered path, the last registered first (a staging folder before the lock
// file, before the report folder that holds them). Symbolic links are removed, never followed.
void RemoveScratchPaths();

// A private folder (mode 0700, made with mkdtemp, so its name cannot be predicted or taken
// beforehand) under $TMPDIR or /tmp, registered as a scratch tree and removed with everything in
// it when the object goes away. Its name is PREFIX<advisor's pid>-XXXXXX: making one first removes
// the folders of the same prefix that this user's advisors, since gone (a SIGKILL), left behind.
class PrivateTempDir {
 public:
  // `prefix` names the folder, e.g. "advisor-autotest-"; `root` is the folder to make it in,
  // $TMPDIR (else /tmp) when empty. Throws std::runtime_error with one line naming the temporary
  // folder and the OS error when it cannot be made.
  explicit PrivateTempDir(const std::string& prefix, const std::string& root = "");
  ~PrivateTempDir();
  PrivateTempDir(const PrivateTempDir&) = delete;
  PrivateTempDir& operator=(const PrivateTempDir&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  ScratchPath registration_;
};

}  // namespace advisor
