// The report's memory from a bisection's own windows (engine/analysis/window_memory): the peak
// and what held it, narrowed level by level as the time is, memory per module instance, and
// whether memory climbed from step to step. docs/memory.md ("The bisection's memory").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/window_memory.h"
#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"
#include "engine/window/window_source.h"

namespace advisor {

class BisectionMemory {
 public:
  explicit BisectionMemory(const std::optional<TrainingState>& training_state);

  void AddBaseline(const Timeline& timeline);
  // A window with the children of `parent` instrumented (and the parent's own call): a level of
  // the descent, or one that follows the memory's holder where the time led elsewhere.
  void AddLevel(const std::string& parent, const Timeline& timeline);

  // The instance holding the most at the peak whose children no window has instrumented yet:
  // the next window to narrow the holder. None where the holder is narrowed as far as the windows
  // go, holds the bytes itself, or no window recorded memory.
  std::optional<std::string> NextParent() const;

  // Where memory climbs from step to step, the code to read line by line for the line keeping it:
  // the loss where the loss made most of the kept bytes, else the deepest instrumented instance
  // whose forward did. None without growth, or where neither made them (the optimizer, the data).
  std::optional<LabelScope> GrowthScope() const;

  // Sets report.memory's peak, modules and growth (making the section on a CPU run, where the
  // door has no allocator statistics); nothing where no window recorded an allocation.
  void Fill(RunReport& report) const;

 private:
  struct Level {
    std::string parent;
    WindowMemory memory;
  };
  // The holder narrowed through the levels: each instruments the children of the holder before.
  struct Holder {
    const WindowMemory* window = nullptr;  // the window that named `path`, else the baseline
    std::string path;
    bool narrowed_fully = true;          // no window left to record: a leaf, or the holder keeps it
    std::vector<std::string> tied_with;  // each chosen instance's ties, outermost first
  };
  Holder NarrowedHolder() const;

  ResidentMemory resident_;
  WindowMemory baseline_;
  std::vector<Level> levels_;
};

}  // namespace advisor
