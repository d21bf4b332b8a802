#include "engine/cli/report_destination.h"

#include <dirent.h>

#include <algorithm>
#include <vector>

#include "engine/object_store/report_upload.h"
#include "engine/util/printable_text.h"

namespace advisor {
namespace {

// The report files in `folder`: every entry but the dot-files (its lock, its staging folder).
std::vector<std::string> ReportFiles(const std::string& folder) {
  std::vector<std::string> names;
  DIR* listing = opendir(folder.c_str());
  if (listing == nullptr) return names;
  while (const dirent* entry = readdir(listing)) {
    if (entry->d_name[0] != '.') names.emplace_back(entry->d_name);
  }
  closedir(listing);
  std::sort(names.begin(), names.end());  // the same upload order every run
  return names;
}

}  // namespace

ReportDestination::ReportDestination(const std::string& out) {
  if (!IsObjectUrl(out)) {
    folder_ = std::make_unique<ReportDir>(out);
    shown_path_ = folder_->path();
    return;
  }
  prefix_ = ParseObjectUrl(out);
  if (!prefix_->IsPrefix()) prefix_->key += '/';  // --out names a folder, with or without '/'
  shown_path_ = prefix_->ToString();
  shown_path_.pop_back();
  try {
    store_ = OpenS3Store();
  } catch (const std::exception& error) {
    throw std::runtime_error(PrintableLine(out) + ": " + error.what());
  }
  store_->List(*prefix_);
  staging_ = std::make_unique<PrivateTempDir>("advisor-upload-");
  folder_ = std::make_unique<ReportDir>(staging_->path() + "/report");
}

void ReportDestination::Publish() {
  if (!prefix_) return;
  UploadReport(*store_, folder_->path(), ReportFiles(folder_->path()), *prefix_);
}

}  // namespace advisor
