// `advisor analyze --verbose`: how long each stage of the analysis took and what memory the
// process held after it, so that a slow or large run shows where its time and memory went.
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace advisor {

class StageClock {
 public:
  // `print` gets one line per stage; a clock without one measures nothing.
  explicit StageClock(std::function<void(const std::string&)> print);

  // Ends the stage that began at the last call (or at construction): "records: 812 ms;
  // resident 402 MB, peak 655 MB".
  void Done(const std::string& stage);

 private:
  std::function<void(const std::string&)> print_;
  std::chrono::steady_clock::time_point since_;
};

}  // namespace advisor
