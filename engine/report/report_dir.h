// The report folder of one run, held from before the first profiled window to the end. A reader
// never sees a half-written or mixed report, and a failure never costs the previous one:
//
//  - every file is written whole into a private staging folder inside the report folder (made
//    with mkdtemp, so nobody can place a file or a link at its names), then renamed into place,
//    report.json last: a report.json newer than a run's start means that run's set is complete;
//  - a name in the way that is a folder fails before anything is replaced, and a rename that
//    fails midway puts the previous files back (they were hard-linked into the staging folder);
//  - a symbolic link inside the report folder is never followed: renaming replaces the link, and
//    every file is named relative to the folder and the staging folder held open
//    (folder_handle.h), so a link put in the staging folder's place redirects nothing;
//  - one run at a time (folder_lock.h), and the next run removes what a killed one left.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/report/folder_lock.h"
#include "engine/util/folder_handle.h"
#include "engine/util/scratch_paths.h"

namespace advisor {

inline constexpr char kStagingPrefix[] = ".advisor-staging-";

class ReportDir {
 public:
  // Readies `dir` for a run, in a second rather than after the profiling: takes the path
  // lexically ("a/../a/./sub/.." is "a"), creates the folder and its missing parents, takes its
  // lock, removes the debris of dead runs (their staging folders, the ".report.json.tmp.<pid>"
  // files of older advisors) and makes this run's staging folder, which proves the folder
  // writable. Throws std::runtime_error with one line naming the path and the reason.
  explicit ReportDir(const std::string& dir);
  // Removes the staging folder and the lock, and the folders it created unless a report was
  // written into them (they go on an interrupt too: scratch_paths.h).
  ~ReportDir();
  ReportDir(const ReportDir&) = delete;
  ReportDir& operator=(const ReportDir&) = delete;

  // Writes (name, content) pairs; names must be plain file names (std::invalid_argument
  // otherwise). On failure the folder holds what it held before and std::runtime_error says,
  // e.g., "cannot write advisor-report/report.json: Is a directory".
  void Write(const std::vector<std::pair<std::string, std::string>>& files);

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::unique_ptr<ScratchPath>> created_;  // outermost first
  std::optional<FolderHandle> folder_;
  std::unique_ptr<FolderLock> lock_;  // made and removed through folder_
  std::unique_ptr<ScratchPath> staging_;
  std::optional<FolderHandle> staging_folder_;
  bool written_ = false;
};

}  // namespace advisor
