// Writes the report folder so that a reader never sees a half-written report: every file is
// written under a temporary name and renamed into place, report.json last, so a report.json
// newer than a run's start means the whole set is complete.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace advisor {

// Creates `dir` if needed. Throws std::runtime_error when it exists but is not a folder (e.g. a
// regular file), or when it cannot be created: one line naming the path and the reason. Call it
// before a long run, so that a bad --out fails in a second rather than after profiling.
void PrepareReportDir(const std::string& dir);

// Writes (name, content) pairs into `dir`, creating it if needed; names must be plain file names
// (std::invalid_argument otherwise). All files are written under temporary names before the
// first rename, so a failed write leaves an earlier report untouched. On any failure this call
// removes every file and folder it created (a rename that fails midway removes the files it had
// already renamed) and throws std::runtime_error with one line naming the path and the OS error,
// e.g. "cannot write advisor-report/report.json: Permission denied".
void WriteReportDir(const std::string& dir,
                    const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace advisor
