#include "engine/report/module_spans.h"

#include <gtest/gtest.h>

#include "engine/analysis/placement.h"
#include "tests/analysis/timeline_builder.h"

namespace advisor {
namespace {

MarkerEvent Marker(const char* path, MarkerKind kind, TimeNs time, ThreadId thread = 1) {
  return MarkerEvent{path, kind, thread, time};
}

TEST(ModuleSpans, PairsForwardAndBackwardMarkersPerThread) {
  Timeline timeline;
  timeline.markers = {
      Marker("blocks.0", MarkerKind::kForwardEnter, 100),
      Marker("blocks.0.mlp", MarkerKind::kForwardEnter, 150),
      Marker("blocks.0.mlp", MarkerKind::kForwardExit, 250),
      Marker("blocks.0", MarkerKind::kForwardExit, 300),
      Marker("blocks.0", MarkerKind::kBackwardBegin, 1'000, 2),
      Marker("blocks.0", MarkerKind::kBackwardEnd, 1'400, 2),
  };
  const auto spans = RebuildModuleSpans(timeline);
  ASSERT_EQ(spans.size(), 3u);
  EXPECT_EQ(spans[0].path, "blocks.0");
  EXPECT_FALSE(spans[0].backward);
  EXPECT_EQ(spans[0].start_ns, 100);
  EXPECT_EQ(spans[0].end_ns, 300);
  EXPECT_EQ(spans[1].path, "blocks.0.mlp");
  EXPECT_EQ(spans[1].start_ns, 150);
  EXPECT_EQ(spans[1].end_ns, 250);
  EXPECT_EQ(spans[2].thread, 2u);
  EXPECT_TRUE(spans[2].backward);
  EXPECT_EQ(spans[2].end_ns, 1'400);
  for (const auto& span : spans) EXPECT_FALSE(span.end_inferred);
}

TEST(ModuleSpans, ABackwardWithoutEndStopsWhereTheNextOtherModuleBegins) {
  // patch_embed's input (the images) needs no gradient: no kBackwardEnd ever comes for it.
  Timeline timeline;
  timeline.markers = {
      Marker("head", MarkerKind::kBackwardBegin, 100),
      Marker("head", MarkerKind::kBackwardEnd, 200),
      Marker("patch_embed", MarkerKind::kBackwardBegin, 300),
      Marker("patch_embed.proj", MarkerKind::kBackwardBegin, 320),
      Marker("patch_embed.proj", MarkerKind::kBackwardEnd, 380),
      Marker("pos_drop", MarkerKind::kBackwardBegin, 500),
      Marker("pos_drop", MarkerKind::kBackwardEnd, 600),
  };
  const auto spans = RebuildModuleSpans(timeline);
  ASSERT_EQ(spans.size(), 4u);
  EXPECT_EQ(spans[1].path, "patch_embed");
  EXPECT_EQ(spans[1].end_ns, 500) << "its descendant did not end it; pos_drop did";
  EXPECT_TRUE(spans[1].end_inferred);
  EXPECT_EQ(spans[2].end_ns, 380);
  EXPECT_FALSE(spans[2].end_inferred);
}

TEST(ModuleSpans, AnInferredBackwardEndIsTheEndOfItsLastOp) {
  // An embedding fed integer ids; the users tower, not instrumented, runs its backward next.
  using testing::Ms;
  testing::TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Forward("items.emb", 1, 3)
      .Op("aten::embedding", 1.5, 2.5, 1, OpScope::kForward, 5)
      .Op("aten::mean", 4, 5, 1, OpScope::kForward, 3)
      .Mark("items.emb", MarkerKind::kBackwardBegin, 11)
      .Op("EmbeddingBackward0", 12, 14, 1, OpScope::kBackward, 5, 1)
      .Op("torch::autograd::AccumulateGrad", 14.5, 15, 1, OpScope::kBackward)
      .Op("MeanBackward1", 16, 27, 1, OpScope::kBackward, 3, 1);
  const Timeline& timeline = b.Build();
  std::vector<ModuleSpan> spans = RebuildModuleSpans(timeline);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[1].end_ns, Ms(27)) << "the thread's last event";
  EndInferredBackwardSpansWithTheirOps(timeline, PlaceOps(timeline), spans);
  EXPECT_EQ(spans[1].start_ns, Ms(11));
  EXPECT_EQ(spans[1].end_ns, Ms(15)) << "where its AccumulateGrad ends";
  EXPECT_TRUE(spans[1].end_inferred);
  EXPECT_EQ(spans[0].end_ns, Ms(3)) << "a forward span keeps its end";
}

TEST(ModuleSpans, AnInferredBackwardEndIsInTheStretchItBeganIn) {
  // "users", the parent of a level, gets no kBackwardEnd and no other module's marker ends it:
  // without a stretch its span ran on through the next step's forward.
  using testing::Ms;
  testing::TimelineBuilder b;
  b.Step(0, 10, 30, 40)
      .Step(40, 50, 70, 80)
      .Mark("users", MarkerKind::kBackwardBegin, 11)
      .Op("MeanBackward1", 12, 14, 1, OpScope::kBackward)
      .Forward("users", 41, 49)
      .Op("aten::mean", 42, 48);
  const Timeline& timeline = b.Build();
  std::vector<ModuleSpan> spans = RebuildModuleSpans(timeline);
  ASSERT_EQ(spans.size(), 2u);
  EndInferredBackwardSpansWithTheirOps(timeline, PlaceOps(timeline), spans);
  EXPECT_TRUE(spans[0].backward);
  EXPECT_EQ(spans[0].end_ns, Ms(14));
}

TEST(ModuleSpans, AnUnclosedSpanEndsAtItsThreadsLastEvent) {
  Timeline timeline;
  timeline.markers = {Marker("stem", MarkerKind::kBackwardBegin, 100)};
  OpEvent op;
  op.thread = 1;
  op.start_ns = 120;
  op.end_ns = 900;
  timeline.ops = {op};
  const auto spans = RebuildModuleSpans(timeline);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].end_ns, 900);
  EXPECT_TRUE(spans[0].end_inferred);
}

TEST(ModuleSpans, AChildLeftOpenEndsWithItsParent) {
  Timeline timeline;
  timeline.markers = {
      Marker("encoder", MarkerKind::kForwardEnter, 100),
      Marker("encoder.layer", MarkerKind::kForwardEnter, 200),
      Marker("encoder", MarkerKind::kForwardExit, 400),
  };
  const auto spans = RebuildModuleSpans(timeline);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[1].end_ns, 400);
  EXPECT_TRUE(spans[1].end_inferred);
  EXPECT_FALSE(spans[0].end_inferred);
}

TEST(ModuleSpans, ACloseWithoutItsOpenMakesNoSpan) {
  Timeline timeline;
  timeline.markers = {Marker("blocks.3", MarkerKind::kForwardExit, 50),
                      Marker("blocks.4", MarkerKind::kForwardEnter, 60),
                      Marker("blocks.4", MarkerKind::kForwardExit, 90)};
  const auto spans = RebuildModuleSpans(timeline);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].path, "blocks.4");
}

TEST(ModuleSpans, AModuleCalledTwicePairsEachCall) {
  Timeline timeline;
  timeline.markers = {Marker("shared", MarkerKind::kForwardEnter, 10),
                      Marker("shared", MarkerKind::kForwardExit, 20),
                      Marker("shared", MarkerKind::kForwardEnter, 30),
                      Marker("shared", MarkerKind::kForwardExit, 45)};
  const auto spans = RebuildModuleSpans(timeline);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].end_ns, 20);
  EXPECT_EQ(spans[1].start_ns, 30);
  EXPECT_EQ(spans[1].end_ns, 45);
}

}  // namespace
}  // namespace advisor
