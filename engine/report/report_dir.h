// Writes the report folder so that a reader never sees a half-written report: every file is
// written under a temporary name and renamed into place, report.json last, so a report.json
// newer than a run's start means the whole set is complete.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace advisor {

// Made before a long run, so that a bad --out fails in a second rather than after profiling:
// creates `dir` if needed, and throws std::runtime_error when it exists but is not a folder (e.g.
// a regular file) or cannot be created, with one line naming the path and the reason. Until
// Keep(), destruction removes the folders it created if they are still empty, so a run that fails
// later leaves no empty report folder behind.
class ReportDirReservation {
 public:
  explicit ReportDirReservation(const std::string& dir);
  ~ReportDirReservation();
  ReportDirReservation(const ReportDirReservation&) = delete;
  ReportDirReservation& operator=(const ReportDirReservation&) = delete;

  void Keep() { created_.clear(); }

 private:
  std::vector<std::filesystem::path> created_;
};

// Writes (name, content) pairs into `dir`, creating it if needed; names must be plain file names
// (std::invalid_argument otherwise). All files are written under temporary names before the
// first rename, so a failed write leaves an earlier report untouched. On any failure this call
// removes every file and folder it created (a rename that fails midway removes the files it had
// already renamed) and throws std::runtime_error with one line naming the path and the OS error,
// e.g. "cannot write advisor-report/report.json: Permission denied".
void WriteReportDir(const std::string& dir,
                    const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace advisor
