#include "engine/report/report_dir.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "engine/object_store/object_url.h"
#include "engine/util/remove_tree.h"

namespace advisor {

namespace fs = std::filesystem;

namespace {

// Tools poll for report.json; renaming it last means its presence implies the rest is in place.
constexpr char kContractFile[] = "report.json";
// What advisors before the staging folder wrote beside the report: ".report.json.tmp.<pid>".
constexpr const char* kOldTemporaryNames[] = {"report.json", "report.md", "report.html",
                                              "trace.json"};
// In the staging folder, beside the new files: the previous ones, kept until the new are in.
constexpr char kPreviousPrefix[] = ".previous.";

[[noreturn]] void Fail(const std::string& what, const std::string& path,
                       const std::string& reason) {
  throw std::runtime_error("cannot " + what + " " + path + ": " + reason);
}

void CheckPlainName(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    throw std::invalid_argument("report file name must be a plain file name, got \"" + name + "\"");
  }
}

// Lexically: "out/" and "out" are one folder, and "a/../a/./sub/.." is "a" (creating the folders
// on the way would leave an empty "a/sub" behind). An empty path names no folder: taken as the
// current one (`--out "$UNSET_VARIABLE"`), it wrote the report where nobody asked.
std::string FolderPath(const std::string& dir) {
  if (dir.empty()) {
    throw std::runtime_error(
        "--out: the path is empty; name a folder (--out . for the current one)");
  }
  // "s3://bucket/run" made as the local folders "s3:/bucket/run" would hide the mistake. Only
  // advisor analyze writes to object storage (engine/cli/report_destination.h).
  if (IsObjectUrl(dir)) {
    throw std::runtime_error("--out " + dir +
                             ": this command writes its report to a local folder (advisor analyze "
                             "writes to s3:// too)");
  }
  std::string path = fs::path(dir).lexically_normal().string();
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path.empty() ? "." : path;
}

// The missing folders on the way to `dir`, outermost first, after refusing a `dir` that exists
// as something other than a folder.
std::vector<fs::path> MissingFolders(const fs::path& dir) {
  std::vector<fs::path> missing;
  for (fs::path path = dir; !path.empty(); path = path.parent_path()) {
    std::error_code error;
    const fs::file_status status = fs::status(path, error);
    if (fs::exists(status)) {
      if (path == dir && !fs::is_directory(status)) {
        Fail("use", dir.string(), "it exists and is not a folder");
      }
      break;
    }
    missing.push_back(path);
    if (path == path.parent_path()) break;
  }
  std::reverse(missing.begin(), missing.end());
  return missing;
}

bool IsDebris(const std::string& name) {
  if (name.rfind(kStagingPrefix, 0) == 0) return true;
  for (const char* file : kOldTemporaryNames) {
    const std::string prefix = std::string(".") + file + ".tmp.";
    if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        std::all_of(name.begin() + prefix.size(), name.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      return true;
    }
  }
  return false;
}

// What runs killed while writing left in `dir`: with the folder's lock held, no live run owns it.
void RemoveDebris(const std::string& dir) {
  DIR* listing = opendir(dir.c_str());
  if (listing == nullptr) return;
  std::vector<std::string> debris;
  while (const dirent* entry = readdir(listing)) {
    if (IsDebris(entry->d_name)) debris.push_back(dir + "/" + entry->d_name);
  }
  closedir(listing);
  for (const std::string& path : debris) RemoveTree(path);  // links removed, never followed
}

// Keeps the file now at `name` in `folder` as `previous` in `staging`: a second name for it where
// the file system allows, so that the report stays readable until the new file replaces it; else
// moved aside. False when there is nothing at `name`.
bool KeepPrevious(const FolderHandle& folder, const std::string& name, const FolderHandle& staging,
                  const std::string& previous) {
  const int error = folder.Link(name, staging, previous);
  return error == 0 || (error != ENOENT && folder.Rename(name, staging, previous) == 0);
}

}  // namespace

ReportDir::ReportDir(const std::string& dir) : path_(FolderPath(dir)) {
  try {
    for (const fs::path& folder : MissingFolders(path_)) {
      std::error_code error;
      const bool made = fs::create_directory(folder, error);
      if (error) Fail("create folder", folder.string(), error.message());
      if (made) {
        created_.push_back(
            std::make_unique<ScratchPath>(folder.string(), ScratchPath::Kind::kEntry));
      }
    }
    folder_.emplace(FolderHandle::Open(path_));
    lock_ = std::make_unique<FolderLock>(*folder_);
    RemoveDebris(path_);
    const std::string staging = folder_->MakeUniqueFolder(kStagingPrefix);
    staging_ = std::make_unique<ScratchPath>(folder_->PathOf(staging), ScratchPath::Kind::kTree);
    staging_folder_.emplace(folder_->Subfolder(staging));
  } catch (...) {
    staging_folder_.reset();
    if (staging_) RemoveTree(staging_->path());
    staging_.reset();
    lock_.reset();
    for (auto folder = created_.rbegin(); folder != created_.rend(); ++folder) {
      ::rmdir((*folder)->path().c_str());
    }
    throw;
  }
}

ReportDir::~ReportDir() {
  RemoveTree(staging_->path());
  lock_.reset();
  if (written_) return;
  for (auto folder = created_.rbegin(); folder != created_.rend(); ++folder) {
    ::rmdir((*folder)->path().c_str());  // only an empty one goes
  }
}

void ReportDir::Write(const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [name, content] : files) CheckPlainName(name);
  std::vector<const std::pair<std::string, std::string>*> ordered;
  for (const auto& file : files) ordered.push_back(&file);
  std::stable_partition(ordered.begin(), ordered.end(),
                        [](const auto* file) { return file->first != kContractFile; });

  const FolderHandle& staging = *staging_folder_;
  for (const auto* file : ordered) {
    // A folder in the way would fail its rename after others were replaced.
    if (const auto entry = folder_->Entry(file->first); entry && S_ISDIR(entry->st_mode)) {
      Fail("write", folder_->PathOf(file->first), std::strerror(EISDIR));
    }
    if (const int error = staging.WriteNewFile(file->first, file->second)) {
      Fail("write", folder_->PathOf(file->first), std::strerror(error));
    }
  }
  std::vector<bool> kept;
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    const std::string& name = ordered[i]->first;
    kept.push_back(KeepPrevious(*folder_, name, staging, kPreviousPrefix + name));
    if (const int error = staging.Rename(name, *folder_, name); error != 0) {
      // Puts the previous report back as it was, this file's included.
      for (std::size_t j = i + 1; j-- > 0;) {
        const std::string& put_back = ordered[j]->first;
        if (kept[j]) {
          staging.Rename(kPreviousPrefix + put_back, *folder_, put_back);
        } else if (j < i) {
          folder_->Remove(put_back);
        }
      }
      Fail("write", folder_->PathOf(name), std::strerror(error));
    }
  }
  written_ = true;
  created_.clear();  // the folders hold a report now: an interrupt must not try to remove them
}

}  // namespace advisor
