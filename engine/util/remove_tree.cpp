#include "engine/util/remove_tree.h"

#include <ftw.h>

#include <cstdio>

namespace advisor {
namespace {

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) {
  std::remove(path);  // files, links and (visited last, FTW_DEPTH) the emptied folders
  return 0;
}

}  // namespace

void RemoveTree(const std::string& path) {
  constexpr int kOpenFolders = 16;
  nftw(path.c_str(), &RemoveEntry, kOpenFolders, FTW_DEPTH | FTW_PHYS);
}

}  // namespace advisor
