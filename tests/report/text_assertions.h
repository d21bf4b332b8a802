// Substring assertions for the document writers' tests, without a dependency on gmock.
#pragma once

#include <gtest/gtest.h>

#include <string>

namespace advisor::testing {

inline ::testing::AssertionResult Contains(const std::string& text, const std::string& needle) {
  if (text.find(needle) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "missing: " << needle << "\nin: " << text.substr(0, 400)
                                       << (text.size() > 400 ? "..." : "");
}

inline ::testing::AssertionResult Lacks(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "unexpected: " << needle << "\nat: " << text.substr(at > 80 ? at - 80 : 0, 200);
}

// How often `needle` occurs in `text`, overlapping occurrences included.
inline std::size_t Occurrences(const std::string& text, const std::string& needle) {
  std::size_t count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

}  // namespace advisor::testing
