// `advisor analyze --verbose`: how long each stage of the analysis took, the CPU time its threads
// spent, and what memory the process held after it, so that a slow or large run shows where its
// time and memory went (and, on a busy machine or on several threads, what the stage itself cost).
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace advisor {

class StageClock {
 public:
  // `print` gets one line per stage; a clock without one measures nothing.
  explicit StageClock(std::function<void(const std::string&)> print);

  // Ends the stage that began at the last call (or at construction): "records: 812 ms (CPU 1603
  // ms); resident 402 MB, peak 655 MB".
  void Done(const std::string& stage);

  // A line of its own between the stages' ("inflater: ISA-L").
  void Note(const std::string& line);

 private:
  std::function<void(const std::string&)> print_;
  std::chrono::steady_clock::time_point since_;
  double cpu_since_ms_ = 0;  // the process's CPU time, every thread's, at the last call
};

}  // namespace advisor
