// What an allocation's recorded frames tell: the user's line that made it and, where no range
// says, its phase.
//
// The user's frame is the innermost Python frame (a .py file) outside torch's own files (a path
// with a folder named `torch`): for `self.fc(x)` that is the model's line, not
// torch/nn/modules/linear.py. C++ frames (stacks="all") and frames of other packages are not
// skipped but for torch's (transformers' modeling code is the user's as far as a snapshot tells).
//
// The phase by frames, where no record_function range gives one: optimizer where a frame is in
// torch/optim/, backward where a frame is torch's own `backward` (a backward on the caller's
// thread: a CPU tensor's, or a custom Function's), forward where a frame is named `forward`.
// The autograd engine's device threads run CUDA backward without Python frames: those
// allocations say nothing, and are "unknown" unless a range holds them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/memory_snapshot/annotation_context.h"
#include "engine/memory_snapshot/snapshot.h"

namespace advisor {

bool IsTorchFile(const std::string& filename);

// "/home/me/model.py:21 in forward".
std::string FrameText(const SnapshotFrame& frame);

struct StackFacts {
  std::optional<std::uint32_t> user_frame;  // index into MemorySnapshot::frames
  MemoryPhase phase = MemoryPhase::kNone;
};

// For each of snapshot.stacks.
std::vector<StackFacts> FactsOfStacks(const MemorySnapshot& snapshot);

}  // namespace advisor
