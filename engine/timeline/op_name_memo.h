// A test of op names, answered once for each name: a trace's millions of ops have a few hundred
// names, and looking an answer up by the name's id costs less than testing its text again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/timeline/op_name.h"

namespace advisor {

template <typename Test>  // bool(const std::string&)
class OpNameMemo {
 public:
  explicit OpNameMemo(Test test) : test_(std::move(test)) {}

  bool operator()(OpName name) {
    if (answers_.size() <= name.id()) answers_.resize(std::size_t{name.id()} + 1, kUnknown);
    std::uint8_t& answer = answers_[name.id()];
    if (answer == kUnknown) answer = test_(name.str()) ? 1 : 0;
    return answer == 1;
  }

 private:
  static constexpr std::uint8_t kUnknown = 2;
  Test test_;
  std::vector<std::uint8_t> answers_;  // by name id, up to the largest asked
};

}  // namespace advisor
