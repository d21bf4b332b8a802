#include "engine/trace_analysis/trace_files.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <system_error>

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
    const fs::file_status status = fs::status(path, error);
    if (error || !fs::exists(status)) {
      throw std::runtime_error(path + ": no such file or folder");
    }
    if (!fs::is_directory(status)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> inside;
    for (const fs::directory_entry& entry : fs::directory_iterator(path, error)) {
      if (entry.is_regular_file(error) && IsTraceFileName(entry.path().filename().string())) {
        inside.push_back(entry.path().string());
      }
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
