#include "engine/memory_snapshot/frame_attribution.h"

namespace advisor {
namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool Contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

bool IsTorchFile(const std::string& filename) {
  return filename.rfind("torch/", 0) == 0 || Contains(filename, "/torch/");
}

std::string FrameText(const SnapshotFrame& frame) {
  return frame.filename + ":" + std::to_string(frame.line) + " in " + frame.name;
}

std::vector<StackFacts> FactsOfStacks(const MemorySnapshot& snapshot) {
  std::vector<StackFacts> facts(snapshot.stacks.size());
  for (std::size_t s = 0; s < snapshot.stacks.size(); ++s) {
    bool optimizer = false, backward = false, forward = false;
    for (const std::uint32_t index : snapshot.stacks[s]) {
      const SnapshotFrame& frame = snapshot.frames[index];
      const bool python = EndsWith(frame.filename, ".py");
      const bool torch = IsTorchFile(frame.filename);
      if (python && !torch && !facts[s].user_frame) facts[s].user_frame = index;
      optimizer = optimizer || (torch && Contains(frame.filename, "torch/optim/"));
      backward = backward || (torch && python && frame.name == "backward");
      forward = forward || frame.name == "forward";
    }
    facts[s].phase = optimizer  ? MemoryPhase::kOptimizer
                     : backward ? MemoryPhase::kBackward
                     : forward  ? MemoryPhase::kForward
                                : MemoryPhase::kNone;
  }
  return facts;
}

}  // namespace advisor
