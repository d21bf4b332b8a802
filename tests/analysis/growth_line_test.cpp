#include "engine/analysis/growth_line.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace advisor {
namespace {

constexpr std::int64_t kMiB = 1 << 20;

OpEvent Range(TimeNs start, TimeNs end, ThreadId thread = 1) {
  OpEvent op;
  op.name = "advisor.source@train.py:1";
  op.scope = OpScope::kUser;
  op.thread = thread;
  op.start_ns = start;
  op.end_ns = end;
  return op;
}

// Three labelled steps of 100 ns. In each, line 20 (inside line 10's range, as a call's line is
// inside its caller's) makes 2 MiB it keeps and line 30 makes 4 MiB it frees at once; another
// thread keeps 8 MiB at a time line 20's range is open on the first.
LabelledSteps ThreeSteps() {
  LabelledSteps labelled;
  Timeline& timeline = labelled.timeline;
  std::uint64_t address = 1;
  for (int i = 0; i < 3; ++i) {
    const TimeNs start = 100 * i;
    timeline.steps.push_back(StepOfPhases(i, start, start, start + 50, start + 90, start + 100));
    labelled.labels[timeline.ops.size()] = {"train.py", 10, "keep(x)"};
    timeline.ops.push_back(Range(start + 60, start + 70));
    labelled.labels[timeline.ops.size()] = {"train.py", 20, "kept.append(x * 2)"};
    timeline.ops.push_back(Range(start + 61, start + 65));
    labelled.labels[timeline.ops.size()] = {"train.py", 30, "y = x * 4"};
    timeline.ops.push_back(Range(start + 70, start + 80));
    timeline.memory.push_back({address, 2 * kMiB, -1, 1, start + 62});
    timeline.memory.push_back({address + 1, 4 * kMiB, -1, 1, start + 71});
    timeline.memory.push_back({address + 1, -4 * kMiB, -1, 1, start + 75});
    timeline.memory.push_back({address + 2, 8 * kMiB, -1, 2, start + 63});
    address += 3;
  }
  return labelled;
}

TEST(GrowthLine, NamesTheInnermostLineWhoseAllocationsOutliveTheirStep) {
  const std::optional<LineKeepingMemory> line = LineKeepingTheMost(ThreeSteps());
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->source.line, 20);
  EXPECT_EQ(line->source.text, "kept.append(x * 2)");
  EXPECT_DOUBLE_EQ(line->mb_per_step, 2.0) << "the last step's are not yet known to be kept";
}

TEST(GrowthLine, NoneWhereNothingIsKeptAcrossSteps) {
  LabelledSteps labelled = ThreeSteps();
  std::vector<MemoryEvent> freed;
  for (const MemoryEvent& event : labelled.timeline.memory) {
    freed.push_back(event);
    if (event.bytes > 0) {
      freed.push_back({event.address, -event.bytes, event.device, event.thread, event.time_ns + 1});
    }
  }
  labelled.timeline.memory = freed;
  EXPECT_FALSE(LineKeepingTheMost(labelled).has_value());
}

}  // namespace
}  // namespace advisor
