#include "engine/report/report_dir.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace advisor {

namespace fs = std::filesystem;

namespace {

// Tools poll for report.json; renaming it last means its presence implies the rest is in place.
constexpr char kContractFile[] = "report.json";

[[noreturn]] void Fail(const std::string& what, const fs::path& path, const std::string& reason) {
  throw std::runtime_error("cannot " + what + " " + path.string() + ": " + reason);
}

void CheckPlainName(const std::string& name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos) {
    throw std::invalid_argument("report file name must be a plain file name, got \"" + name + "\"");
  }
}

// "out/" names the same folder as "out", but status() and parent_path() see them differently.
fs::path FolderPath(const std::string& dir) {
  std::string path = dir;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
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
        Fail("use", dir, "it exists and is not a folder");
      }
      break;
    }
    missing.push_back(path);
    if (path == path.parent_path()) break;
  }
  std::reverse(missing.begin(), missing.end());
  return missing;
}

// Creates the folders one by one, recording each, so that a failure can undo exactly them.
void CreateFolders(const std::vector<fs::path>& folders, std::vector<fs::path>& created) {
  for (const fs::path& folder : folders) {
    std::error_code error;
    const bool made = fs::create_directory(folder, error);
    if (error) Fail("create folder", folder, error.message());
    if (made) created.push_back(folder);
  }
}

// Returns 0 or the errno of the first failing call. fsync before the rename, so that after a
// crash the final name holds either the old or the complete new content.
int WriteWholeFile(const fs::path& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  const char* data = content.data();
  std::size_t left = content.size();
  int error = 0;
  while (left > 0 && error == 0) {
    const ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno != EINTR) error = errno;
      continue;
    }
    data += written;
    left -= static_cast<std::size_t>(written);
  }
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  return error;
}

// Undoes one WriteReportDir call: its temporary files, the files it renamed into place and the
// folders it created (innermost first; only empty ones can go).
struct Undo {
  std::vector<fs::path> files;
  std::vector<fs::path> folders;

  void Run() const {
    std::error_code ignored;
    for (const fs::path& file : files) fs::remove(file, ignored);
    for (auto folder = folders.rbegin(); folder != folders.rend(); ++folder) {
      fs::remove(*folder, ignored);
    }
  }
};

}  // namespace

ReportDirReservation::ReportDirReservation(const std::string& dir) {
  CreateFolders(MissingFolders(FolderPath(dir)), created_);
}

ReportDirReservation::~ReportDirReservation() { Undo{{}, created_}.Run(); }

void WriteReportDir(const std::string& dir,
                    const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [name, content] : files) CheckPlainName(name);
  std::vector<const std::pair<std::string, std::string>*> ordered;
  for (const auto& file : files) ordered.push_back(&file);
  std::stable_partition(ordered.begin(), ordered.end(),
                        [](const auto* file) { return file->first != kContractFile; });

  const fs::path folder = FolderPath(dir);
  const std::string temp_suffix = ".tmp." + std::to_string(::getpid());
  Undo undo;
  try {
    CreateFolders(MissingFolders(folder), undo.folders);
    // Write everything under temporary names first: a failure here leaves the old report intact.
    std::vector<fs::path> temps;
    for (const auto* file : ordered) {
      const fs::path temp = folder / ("." + file->first + temp_suffix);
      undo.files.push_back(temp);
      if (const int error = WriteWholeFile(temp, file->second)) {
        Fail("write", folder / file->first, std::strerror(error));
      }
      temps.push_back(temp);
    }
    for (std::size_t i = 0; i < ordered.size(); ++i) {
      const fs::path target = folder / ordered[i]->first;
      if (::rename(temps[i].c_str(), target.c_str()) != 0) {
        Fail("write", target, std::strerror(errno));
      }
      undo.files.push_back(target);
    }
  } catch (...) {
    undo.Run();
    throw;
  }
}

}  // namespace advisor
