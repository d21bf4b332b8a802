#include "engine/util/scratch_paths.h"

#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/util/remove_tree.h"

namespace advisor {
namespace {

std::mutex g_mutex;
std::vector<std::pair<std::string, ScratchPath::Kind>> g_paths;  // guarded by g_mutex

std::string TemporaryRoot() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

// mkdtemp, before the registration is constructed: a folder that could not be made has no path.
std::string MakePrivateFolder(const std::string& prefix) {
  std::string pattern = TemporaryRoot() + "/" + prefix + "XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a private folder in " + TemporaryRoot() + ": " +
                             std::strerror(errno));
  }
  return pattern;
}

}  // namespace

ScratchPath::ScratchPath(std::string path, Kind kind) : path_(std::move(path)) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_paths.emplace_back(path_, kind);
}

ScratchPath::~ScratchPath() {
  std::lock_guard<std::mutex> lock(g_mutex);
  const auto it = std::find_if(g_paths.rbegin(), g_paths.rend(),
                               [&](const auto& entry) { return entry.first == path_; });
  if (it != g_paths.rend()) g_paths.erase(std::next(it).base());
}

void RemoveScratchPaths() {
  std::vector<std::pair<std::string, ScratchPath::Kind>> paths;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    paths = g_paths;
  }
  for (auto it = paths.rbegin(); it != paths.rend(); ++it) {
    if (it->second == ScratchPath::Kind::kTree) {
      RemoveTree(it->first);
    } else {
      std::remove(it->first.c_str());  // unlink or rmdir; a folder that is not empty stays
    }
  }
}

PrivateTempDir::PrivateTempDir(const std::string& prefix)
    : path_(MakePrivateFolder(prefix)), registration_(path_, ScratchPath::Kind::kTree) {}

PrivateTempDir::~PrivateTempDir() { RemoveTree(path_); }

}  // namespace advisor
