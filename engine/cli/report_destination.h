// Where `advisor analyze --out` puts the report: a local folder (ReportDir), or an s3:// prefix.
// For a prefix the files are written whole into a local folder first, then uploaded in the order
// that keeps report.json an honest marker (engine/object_store/report_upload.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/object_store/object_store.h"
#include "engine/report/report_dir.h"
#include "engine/util/scratch_paths.h"

namespace advisor {

class ReportDestination {
 public:
  // For a prefix: opens the store and lists the prefix now, so that a missing bucket or refused
  // credentials end the run before any trace is read. Throws std::runtime_error, one line.
  explicit ReportDestination(const std::string& out);

  // The folder WriteReportFiles writes into.
  ReportDir& folder() { return *folder_; }
  // Uploads the files written into folder() where the destination is a prefix; nothing to do
  // for a local folder.
  void Publish();
  // The folder or the prefix as the user named it, without a trailing '/'.
  const std::string& shown_path() const { return shown_path_; }

 private:
  std::optional<ObjectUrl> prefix_;
  std::unique_ptr<ObjectStore> store_;
  std::unique_ptr<PrivateTempDir> staging_;  // before folder_: it holds it
  std::unique_ptr<ReportDir> folder_;
  std::string shown_path_;
};

}  // namespace advisor
