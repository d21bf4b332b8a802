#include "tests/report/scratch_dir.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace advisor::testing {

ScratchDir::ScratchDir() {
  std::string pattern =
      (std::filesystem::path(::testing::TempDir()) / "advisor-report-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed: " + pattern);
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace advisor::testing
