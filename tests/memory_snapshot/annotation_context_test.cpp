// record_function ranges against a history: which names are phases and which module instances,
// and what is open around each event of hand_step.pickle.
#include "engine/memory_snapshot/annotation_context.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/memory_snapshot/snapshot_reader.h"

namespace advisor {
namespace {

const std::string kSnapshots = ADVISOR_TEST_SNAPSHOTS_DIR;

RangeKind Kind(const std::string& name, MemoryPhase expected_phase = MemoryPhase::kNone) {
  MemoryPhase phase = MemoryPhase::kNone;
  const RangeKind kind = KindOfRange(name, &phase);
  EXPECT_EQ(phase, expected_phase) << name;
  return kind;
}

TEST(AnnotationContext, RangesAreReadByTheirNames) {
  EXPECT_EQ(Kind("## forward ##", MemoryPhase::kForward), RangeKind::kPhase);
  EXPECT_EQ(Kind("## forward_pass ##", MemoryPhase::kForward), RangeKind::kPhase);
  EXPECT_EQ(Kind("DistributedDataParallel.forward", MemoryPhase::kForward), RangeKind::kPhase);
  EXPECT_EQ(Kind("## backward ##", MemoryPhase::kBackward), RangeKind::kPhase);
  EXPECT_EQ(Kind("Optimizer.step#Adam.step", MemoryPhase::kOptimizer), RangeKind::kPhase);
  EXPECT_EQ(Kind("Optimizer.zero_grad#Adam.zero_grad", MemoryPhase::kOptimizer), RangeKind::kPhase);
  EXPECT_EQ(Kind("encoder"), RangeKind::kModule);
  EXPECT_EQ(Kind("blocks.3.attn"), RangeKind::kModule);
  EXPECT_EQ(Kind("_orig_mod.layer1"), RangeKind::kModule);
  EXPECT_EQ(Kind("forwarder"), RangeKind::kModule);  // a word, not part of one
  EXPECT_EQ(Kind("ProfilerStep#3"), RangeKind::kOther);
  EXPECT_EQ(Kind("data loading"), RangeKind::kOther);
  EXPECT_EQ(Kind("3rd.block"), RangeKind::kOther);
  EXPECT_EQ(Kind("blocks..attn"), RangeKind::kOther);
  EXPECT_EQ(Kind(""), RangeKind::kOther);
}

TEST(AnnotationContext, EachEventGetsThePhaseAndInstanceAroundIt) {
  const MemorySnapshot snapshot = ReadMemorySnapshot(kSnapshots + "/hand_step.pickle");
  const EventContext context = ContextOfEvents(snapshot, 0);
  ASSERT_TRUE(context.annotated);
  const auto path = [&](std::size_t event) { return context.paths[context.path[event]]; };
  EXPECT_EQ(context.phase[0], MemoryPhase::kForward);
  EXPECT_EQ(path(0), "encoder");
  EXPECT_EQ(path(1), "decoder");
  EXPECT_EQ(context.phase[4], MemoryPhase::kBackward);
  EXPECT_EQ(path(4), "");
  EXPECT_EQ(context.phase[8], MemoryPhase::kOptimizer);
  EXPECT_EQ(context.phase[11], MemoryPhase::kNone);  // the OOM, after the optimizer's range

  // Spans: the two modules and three phases; ProfilerStep#0 is neither.
  ASSERT_EQ(context.spans.size(), 5u);
  EXPECT_EQ(context.spans[0].kind, MemorySpan::Kind::kModule);
  EXPECT_EQ(context.spans[0].start_us, 1005);
  EXPECT_EQ(context.spans[0].end_us, 1015);
}

TEST(AnnotationContext, NestedModuleRangesSpellTheirPaths) {
  MemorySnapshot snapshot;
  snapshot.device_traces = {{TraceEntry{TraceAction::kAlloc, 1, 512, 20, 0},
                             TraceEntry{TraceAction::kAlloc, 2, 512, 30, 0},
                             TraceEntry{TraceAction::kAlloc, 3, 512, 40, 0}}};
  snapshot.annotations = {{0, "encoder", true, 10},       {0, "attn", true, 20},
                          {0, "attn", false, 25},         {0, "encoder.mlp", true, 26},
                          {-1, "encoder.mlp", false, 35}, {0, "encoder", false, 50},
                          {1, "another_device", true, 0}};
  const EventContext context = ContextOfEvents(snapshot, 0);
  const auto path = [&](std::size_t event) { return context.paths[context.path[event]]; };
  EXPECT_EQ(path(0), "encoder.attn");  // starts at the event's microsecond: holds it
  EXPECT_EQ(path(1), "encoder.mlp");   // already spells its parent's path
  EXPECT_EQ(path(2), "encoder");
  EXPECT_EQ(context.paths.size(), 4u);  // "", encoder, encoder.attn, encoder.mlp
}

TEST(AnnotationContext, AHistoryWithoutTimesCannotPlaceRanges) {
  MemorySnapshot snapshot;
  snapshot.timed = false;
  snapshot.device_traces = {{TraceEntry{TraceAction::kAlloc, 1, 512, 0, 0}}};
  snapshot.annotations = {{0, "encoder", true, 0}};
  const EventContext context = ContextOfEvents(snapshot, 0);
  EXPECT_FALSE(context.annotated);
  EXPECT_EQ(context.path[0], 0u);
}

TEST(AnnotationContext, RangesOpenPastTheBoundAreRefused) {
  MemorySnapshot snapshot;
  snapshot.path = "s.pickle";
  snapshot.device_traces = {{TraceEntry{TraceAction::kAlloc, 1, 512, 1000, 0}}};
  for (int i = 0; i < 129; ++i) snapshot.annotations.push_back({0, "m", true, i});
  try {
    ContextOfEvents(snapshot, 0);
    FAIL() << "129 ranges open at once";
  } catch (const SnapshotError& error) {
    EXPECT_EQ(std::string(error.what()),
              "s.pickle: more than 128 record_function ranges open at once (at time_us 128)");
  }
}

}  // namespace
}  // namespace advisor
