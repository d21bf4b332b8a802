// One advisor run at a time in a report folder: two runs into one --out mixed their files (once
// in 20, report.html of one run beside report.json of the other). The lock is flock(2) on
// FOLDER/.advisor.lock, which the kernel releases when the process ends however it ends, so a
// killed run never leaves the folder locked.
#pragma once

#include <optional>
#include <string>

#include "engine/util/folder_handle.h"
#include "engine/util/scratch_paths.h"

namespace advisor {

inline constexpr char kLockFileName[] = ".advisor.lock";

class FolderLock {
 public:
  // Takes the lock of `folder` without waiting. Throws std::runtime_error with one line when
  // another run holds it ("out: another advisor run (pid 4242) is writing its report here; wait
  // for it or choose another --out") or when the lock file cannot be made (the OS error: a
  // read-only folder says so here, before any profiling).
  // `folder` must outlive the lock: the lock file is made and removed relative to it.
  explicit FolderLock(const FolderHandle& folder);
  // Removes the lock file, then releases the lock.
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  const FolderHandle& folder_;
  int fd_ = -1;
  // From the moment the lock is held: an interrupted run removes the lock file too.
  std::optional<ScratchPath> registration_;
};

}  // namespace advisor
