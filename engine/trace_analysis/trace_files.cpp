#include "engine/trace_analysis/trace_files.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "engine/util/file_kind.h"

namespace advisor {

bool IsTraceFileName(const std::string& name) {
  const auto ends_with = [&](const std::string& suffix) {
    return name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".json") || ends_with(".json.gz");
}

std::vector<std::string> TraceFilesOf(const std::vector<std::string>& paths) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code error;
    if (!fs::is_directory(path, error)) {
      // A file, or what it is not ("is a symbolic link loop", "is a named pipe (FIFO), ..."):
      // the reader's open refuses the same, but a folder's name should not wait for it.
      if (const std::string why = WhyNotARegularFile(path); !why.empty()) {
        throw std::runtime_error(path + ": " +
                                 (why == "no such file" ? "no such file or folder" : why));
      }
      files.push_back(path);
      continue;
    }
    std::vector<std::string> inside;
    for (const fs::directory_entry& entry : fs::directory_iterator(path, error)) {
      if (!IsTraceFileName(entry.path().filename().string())) continue;
      // A trace's name on a FIFO, a socket, a device or a dangling link is refused by name, not
      // dropped: the report would silently lack a rank.
      if (const std::string why = WhyNotARegularFile(entry.path().string()); !why.empty()) {
        throw std::runtime_error(entry.path().string() + ": " + why);
      }
      inside.push_back(entry.path().string());
    }
    if (error) throw std::runtime_error(path + ": cannot list the folder: " + error.message());
    if (inside.empty()) {
      throw std::runtime_error(path + ": the folder holds no trace (*.json or *.json.gz)");
    }
    std::sort(inside.begin(), inside.end());
    files.insert(files.end(), inside.begin(), inside.end());
  }
  return files;
}

}  // namespace advisor
