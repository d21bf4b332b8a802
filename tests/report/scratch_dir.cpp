#include "tests/report/scratch_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>

#include "engine/util/remove_tree.h"

namespace advisor::testing {

ScratchDir::ScratchDir() {
  std::string pattern =
      (std::filesystem::path(::testing::TempDir()) / "advisor-report-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + pattern);
  path_ = pattern;
}

ScratchDir::~ScratchDir() { RemoveTree(path_); }

}  // namespace advisor::testing
