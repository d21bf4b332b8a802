#include "engine/util/scratch_paths.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

// The pid in a private folder's name "PREFIX<pid>-XXXXXX", or 0 when `name` is not one.
pid_t CreatorOf(const std::string& name, const std::string& prefix) {
  if (name.compare(0, prefix.size(), prefix) != 0) return 0;
  const std::size_t dash = name.find('-', prefix.size());
  const std::string digits = name.substr(prefix.size(), dash - prefix.size());
  if (dash == std::string::npos || digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return 0;
  }
  return static_cast<pid_t>(std::stol(digits));
}

// Private folders of this prefix that a SIGKILL left behind: this user's, made by a process that
// is gone. A pid the kernel has given to another process since keeps its folder until that one
// ends too; another user's folders, links and files are never touched.
void RemoveStaleFolders(const std::string& prefix, const std::string& root) {
  DIR* dir = opendir(root.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> stale;
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    const pid_t creator = CreatorOf(name, prefix);
    struct stat info {};
    if (creator <= 0 || lstat((root + "/" + name).c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
        info.st_uid != getuid()) {
      continue;
    }
    if (kill(creator, 0) != 0 && errno == ESRCH) stale.push_back(root + "/" + name);
  }
  closedir(dir);
  for (const std::string& path : stale) RemoveTree(path);
}

// mkdtemp, before the registration is constructed: a folder that could not be made has no path.
// The name carries advisor's pid, so that the next run can tell a folder left by a SIGKILL.
std::string MakePrivateFolder(const std::string& prefix, const std::string& root) {
  RemoveStaleFolders(prefix, root);
  std::string pattern = root + "/" + prefix + std::to_string(getpid()) + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a private folder in " + root + ": " +
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

PrivateTempDir::PrivateTempDir(const std::string& prefix, const std::string& root)
    : path_(MakePrivateFolder(prefix, root.empty() ? TemporaryRoot() : root)),
      registration_(path_, ScratchPath::Kind::kTree) {}

PrivateTempDir::~PrivateTempDir() { RemoveTree(path_); }

}  // namespace advisor
