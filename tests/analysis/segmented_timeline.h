// A window whose ops OpSegments cuts into three segments: ops before the first step, the
// first step, and the second and third steps together (an op spans the third step's start, and
// encloses an op in it). Each
// step nests modules, ops inside ops, an op that encloses module boundaries (as activation
// checkpointing's does), backward nodes on a thread of their own and an optimizer step.
#pragma once

#include "tests/analysis/timeline_builder.h"

namespace advisor::testing {

inline Timeline ThreeStepsTheLastTwoSpanned() {
  TimelineBuilder b;
  b.Op("aten::zeros", 0, 1).Op("aten::empty", 0.2, 0.5);  // before every step
  for (double t : {0.0, 10.0, 20.0}) {
    b.Step(t + 2, t + 6, t + 9, t + 11)
        .Forward("encoder", t + 2.5, t + 5.5)
        .Forward("encoder.layer", t + 3, t + 5)
        .Op("CheckpointFunction", t + 2.6, t + 5.4)
        .Op("aten::linear", t + 3.1, t + 4.5)
        .Op("aten::addmm", t + 3.2, t + 4.4)
        .Op("aten::relu", t + 5.0, t + 5.2)
        .Backward("encoder", t + 6.5, t + 8.5, 2)
        .Op("AddmmBackward0", t + 6.6, t + 7.0 + t / 100, 2, OpScope::kBackward)
        .Op("aten::mm", t + 6.7, t + 6.9, 2)
        .Op("Optimizer.step#SGD.step", t + 9.2, t + 10.8)
        .Op("aten::add_", t + 9.5, t + 9.6 + t / 50);
    if (t == 10.0) {  // from the second step into the third, with an op inside it in the third
      b.Op("aten::copy_", 20.9, 22.5).Op("aten::empty", 22.1, 22.2);
    }
  }
  b.Op("aten::item", 32, 33);  // after every step
  return b.Build();
}

}  // namespace advisor::testing
