// A window placed and attributed a segment at a time (OpSegments, WindowAttribution::Add) is the
// window placed and attributed whole: each op's placement, and every sum to the last bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "engine/analysis/attribution.h"
#include "engine/analysis/placement.h"
#include "tests/analysis/place_by_segment.h"
#include "tests/analysis/segmented_timeline.h"
#include "tests/analysis/timeline_builder.h"

namespace advisor {
namespace {

using testing::PlaceOpsBySegment;
using testing::ThreeStepsTheLastTwoSpanned;
using testing::TimelineBuilder;

// Each segment's first op and size, in the order visited.
std::vector<std::pair<std::size_t, std::size_t>> SegmentsOf(const Timeline& timeline) {
  std::vector<std::pair<std::size_t, std::size_t>> segments;
  PlaceOpsBySegment(timeline, [&](const OpPlacements& segment) {
    segments.emplace_back(segment.first(), segment.size());
  });
  return segments;
}

TEST(OpSegments, CutsAtAStepsStartOnlyWhereNoOpSpansIt) {
  const Timeline timeline = ThreeStepsTheLastTwoSpanned();
  ASSERT_EQ(timeline.ops.size(), 2u + 3 * 8 + 2 + 1);
  // Before the first step (2 ops); the first step (8); the second and third with the two ops
  // between them, and the op after every step.
  EXPECT_EQ(SegmentsOf(timeline),
            (std::vector<std::pair<std::size_t, std::size_t>>{{0, 2}, {2, 8}, {10, 19}}));
}

// 300 steps of 1,000 ops, more than one thread cuts in one block: a step's start is not cut at
// where the step before's last op ends after it (each 7th), nor where an op of step 70 ends
// after it (steps 71 to 80, their ops in another block than that op), nor where its first op is
// written before the step before's last (each 13th, where `out_of_order`: the ops out of start
// order, as Kineto's).
Timeline ManyStepsSomeSpanned(bool out_of_order) {
  constexpr TimeNs kStep = 1'000'000, kOp = 1'000;
  Timeline timeline;
  for (int s = 0; s < 300; ++s) {
    const TimeNs start = s * kStep;
    timeline.steps.push_back(
        {s, start, start + kStep - 1, {{Phase::kForward, start, start + kStep - 1}}});
    for (TimeNs k = 0; k < 1000; ++k) {
      OpEvent op;
      op.thread = 1;
      op.start_ns = start + k * kOp;
      op.end_ns = op.start_ns + kOp / 2;
      if (k == 999 && (s + 1) % 7 == 0) op.end_ns = start + kStep + kOp / 2;
      if (s == 70 && k == 500) op.end_ns = 80 * kStep + kOp / 2;  // into another thread's block
      timeline.ops.push_back(op);
    }
    if (out_of_order && s > 0 && s % 13 == 0) {
      const auto first = timeline.ops.end() - 1000;
      std::rotate(first - 1, first, first + 1);  // the step's first op, then the last before
    }
  }
  return timeline;
}

TEST(OpSegments, CutOnSeveralThreadsAsOnOne) {
  for (bool out_of_order : {false, true}) {
    SCOPED_TRACE(out_of_order ? "out of start order" : "in start order");
    const Timeline timeline = ManyStepsSomeSpanned(out_of_order);
    const OpSegments one(timeline);
    std::size_t cuts = 0;
    for (int s = 1; s < 300; ++s) {
      cuts += s % 7 != 0 && (s <= 70 || s > 80) && (!out_of_order || s % 13 != 0);
    }
    ASSERT_EQ(one.size(), cuts + 1);
    for (int threads : {2, 3, 8}) {
      SCOPED_TRACE(threads);
      const OpSegments several(timeline, threads);
      ASSERT_EQ(several.size(), one.size());
      for (std::size_t k = 0; k < one.size(); ++k) {
        const OpPlacements expected = one.Place(k), placed = several.Place(k);
        ASSERT_EQ(placed.first(), expected.first()) << "segment " << k;
        ASSERT_EQ(placed.size(), expected.size()) << "segment " << k;
      }
    }
  }
}

TEST(OpSegments, EachOpIsPlacedAsPlaceOpsPlacesIt) {
  const Timeline timeline = ThreeStepsTheLastTwoSpanned();
  const OpPlacements whole = PlaceOps(timeline);
  std::size_t placed = 0;
  PlaceOpsBySegment(timeline, [&](const OpPlacements& segment) {
    ASSERT_EQ(segment.first(), placed) << "segments in the ops' order, none left out";
    for (std::size_t i = segment.first(); i < segment.first() + segment.size(); ++i) {
      const std::string op = timeline.ops[i].name.str() + " (op " + std::to_string(i) + ")";
      EXPECT_EQ(segment[i].step, whole[i].step) << op;
      EXPECT_EQ(segment[i].phase, whole[i].phase) << op;
      EXPECT_EQ(segment.ModuleOf(i), whole.ModuleOf(i)) << op;
      EXPECT_EQ(segment[i].parent, whole[i].parent) << op;
      EXPECT_EQ(segment[i].top_level, whole[i].top_level) << op;
    }
    placed += segment.size();
  });
  EXPECT_EQ(placed, timeline.ops.size());
  // What the window holds, so that the comparison is not of ops all placed alike.
  EXPECT_EQ(whole.ModuleOf(4).str(), "encoder.layer");  // the first step's aten::addmm
  EXPECT_EQ(whole[4].parent, 3);
  EXPECT_EQ(whole[4].top_level, 3);
  EXPECT_EQ(whole[2].top_level, -1) << "CheckpointFunction runs whole modules";
  EXPECT_EQ(whole[6].phase, Phase::kBackward);
  EXPECT_EQ(whole.ModuleOf(6).str(), "encoder");
  EXPECT_EQ(whole[18].step, 1) << "aten::copy_ starts in the second step";
  EXPECT_EQ(whole[19].step, 2);
  EXPECT_EQ(whole[19].parent, 18) << "aten::copy_ encloses the third step's first op";
}

// What a segment's visit saw: its first op, and each op's placement with its module spelt out.
struct VisitedSegment {
  std::size_t first = 0;
  std::vector<std::tuple<int, Phase, std::string, int, int>>
      ops;  // step, phase, module, parent, top
};

std::vector<VisitedSegment> VisitedWith(const Timeline& timeline, int threads) {
  std::vector<VisitedSegment> visited;
  const std::thread::id caller = std::this_thread::get_id();
  PlaceOpsBySegment(
      timeline,
      [&](const OpPlacements& segment) {
        EXPECT_EQ(std::this_thread::get_id(), caller) << "visited on the calling thread";
        VisitedSegment& seen = visited.emplace_back();
        seen.first = segment.first();
        for (std::size_t i = segment.first(); i < segment.first() + segment.size(); ++i) {
          seen.ops.emplace_back(segment[i].step, segment[i].phase, segment.ModuleOf(i).str(),
                                segment[i].parent, segment[i].top_level);
        }
      },
      threads);
  return visited;
}

// Twelve steps, each its own segment, after the ops before every step: more segments than two
// workers hold in flight (twice as many as threads), so workers wait for the visits.
Timeline TwelveSteps() {
  TimelineBuilder b;
  b.Op("aten::zeros", 0, 1);
  for (int k = 0; k < 12; ++k) {
    const double t = 2 + 10.0 * k;
    b.Step(t, t + 4, t + 7, t + 9)
        .Forward(k % 2 == 0 ? "encoder" : "decoder", t + 0.5, t + 3.5)
        .Forward(k % 2 == 0 ? "encoder.layer" : "decoder.layer", t + 1, t + 3)
        .Op("aten::linear", t + 1.1, t + 2.5 + k / 100.0)
        .Op("aten::addmm", t + 1.2, t + 2.4)
        .Backward(k % 2 == 0 ? "encoder" : "decoder", t + 4.5, t + 6.5, 2)
        .Op("AddmmBackward0", t + 4.6, t + 5.0, 2, OpScope::kBackward)
        .Op("Optimizer.step#SGD.step", t + 7.2, t + 8.8);
  }
  return b.Build();
}

TEST(OpSegments, SegmentsPlacedOnSeveralThreadsAreVisitedAsOnOne) {
  for (const Timeline& timeline : {ThreeStepsTheLastTwoSpanned(), TwelveSteps()}) {
    const std::vector<VisitedSegment> one = VisitedWith(timeline, 1);
    ASSERT_GE(one.size(), 3u);
    for (int threads : {2, 3, 64}) {
      const std::vector<VisitedSegment> several = VisitedWith(timeline, threads);
      ASSERT_EQ(several.size(), one.size()) << threads << " threads";
      for (std::size_t k = 0; k < one.size(); ++k) {
        EXPECT_EQ(several[k].first, one[k].first) << "segment " << k << ", " << threads;
        EXPECT_EQ(several[k].ops, one[k].ops) << "segment " << k << ", " << threads;
      }
    }
  }
  // What the segments hold, so that the comparison is not of ops all placed alike: the twelve
  // steps' segments, each step's ops in its modules, whichever segment placed a module first.
  const std::vector<VisitedSegment> twelve = VisitedWith(TwelveSteps(), 2);
  ASSERT_EQ(twelve.size(), 13u);
  EXPECT_EQ(twelve[12].first, 1u + 11 * 4);
  EXPECT_EQ(twelve[12].ops[1], std::make_tuple(11, Phase::kForward, std::string("decoder.layer"),
                                               static_cast<int>(twelve[12].first),
                                               static_cast<int>(twelve[12].first)));
  EXPECT_EQ(std::get<2>(twelve[11].ops[2]), "encoder") << "step 10's backward node";
}

// The segments appended in turn are every op's placement, each naming its module as PlaceOps'
// does, although each segment numbered its modules its own way.
TEST(OpSegments, AppendedInTurnTheyAreTheWholeWindowsPlacements) {
  const Timeline timeline = TwelveSteps();
  const OpPlacements whole = PlaceOps(timeline);
  const OpSegments segments(timeline);
  ASSERT_EQ(segments.size(), 13u);
  OpPlacements appended;
  for (std::size_t k = segments.size(); k-- > 0;) {
    EXPECT_NO_THROW(segments.Place(k)) << "placed in any order";
  }
  for (std::size_t k = 0; k < segments.size(); ++k) appended.Append(segments.Place(k));
  ASSERT_EQ(appended.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(appended[i].step, whole[i].step) << i;
    EXPECT_EQ(appended[i].phase, whole[i].phase) << i;
    EXPECT_EQ(appended.ModuleOf(i), whole.ModuleOf(i)) << i;
    EXPECT_EQ(appended[i].parent, whole[i].parent) << i;
    EXPECT_EQ(appended[i].top_level, whole[i].top_level) << i;
  }
  EXPECT_EQ(appended.ModuleOf(1 + 4).str(), "decoder.layer") << "the second step's aten::linear";
  EXPECT_THROW(appended.Append(segments.Place(3)), std::logic_error) << "not the next ops";
}

// Kineto writes a step's backward nodes after its forward ops, whichever began first: ops out of
// start order within their steps are still cut at each step's start, and placed as PlaceOps
// places them.
TEST(OpSegments, OpsOutOfStartOrderWithinTheirStepsAreCutAtEachStep) {
  TimelineBuilder b;
  for (int k = 0; k < 3; ++k) {
    const double t = 10.0 * k;
    b.Step(t, t + 4, t + 8, t + 10)
        .Forward("encoder", t + 0.5, t + 3.5)
        .Op("aten::linear", t + 1, t + 3)
        .Backward("encoder", t + 4.5, t + 6.5, 2)
        .Op("AddmmBackward0", t + 5, t + 6, 2, OpScope::kBackward)
        .Op("aten::addmm", t + 1.1, t + 2.9)  // recorded after the backward node it began before
        .Op("Optimizer.step#SGD.step", t + 8.5, t + 9.5);
  }
  const Timeline timeline = b.Build();
  EXPECT_EQ(SegmentsOf(timeline),
            (std::vector<std::pair<std::size_t, std::size_t>>{{0, 4}, {4, 4}, {8, 4}}));
  const OpPlacements whole = PlaceOps(timeline);
  OpPlacements appended;
  PlaceOpsBySegment(timeline, [&](const OpPlacements& segment) { appended.Append(segment); });
  ASSERT_EQ(appended.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(appended[i].step, whole[i].step) << i;
    EXPECT_EQ(appended[i].phase, whole[i].phase) << i;
    EXPECT_EQ(appended.ModuleOf(i), whole.ModuleOf(i)) << i;
    EXPECT_EQ(appended[i].parent, whole[i].parent) << i;
    EXPECT_EQ(appended[i].top_level, whole[i].top_level) << i;
  }
  EXPECT_EQ(whole[6].parent, 4) << "the second step's aten::addmm, inside its aten::linear";
  EXPECT_EQ(whole.ModuleOf(5).str(), "encoder") << "its backward node";
}

TEST(OpSegments, OpsOutOfStartOrderArePlacedAsOneSegment) {
  TimelineBuilder b;
  b.Step(0, 4, 8, 10).Op("aten::mm", 1, 2).Step(10, 14, 18, 20).Op("aten::mm", 11, 12);
  b.Op("aten::add", 0.5, 0.7);  // recorded last, started first
  EXPECT_EQ(SegmentsOf(b.Build()), (std::vector<std::pair<std::size_t, std::size_t>>{{0, 3}}));
}

// An interval without its end marker ends at a backward node made outside it: each node's
// forward op, maybe in an earlier segment, is needed.
TEST(OpSegments, ABackwardIntervalWithoutItsEndIsPlacedWhole) {
  TimelineBuilder b;
  b.Step(0, 4, 8, 10).Op("aten::mm", 1, 2).Step(10, 14, 18, 20).Op("aten::mm", 11, 12);
  b.Mark("a", MarkerKind::kBackwardBegin, 15);
  EXPECT_EQ(SegmentsOf(b.Build()), (std::vector<std::pair<std::size_t, std::size_t>>{{0, 2}}));
}

void ExpectSameCosts(const PhaseCosts& by_segment, const PhaseCosts& whole,
                     const std::string& what) {
  for (Phase phase :
       {Phase::kData, Phase::kForward, Phase::kBackward, Phase::kOptimizer, Phase::kLoss}) {
    EXPECT_EQ(by_segment[phase].host_ms, whole[phase].host_ms) << what << " " << PhaseName(phase);
    EXPECT_EQ(by_segment[phase].gpu_ms, whole[phase].gpu_ms) << what << " " << PhaseName(phase);
  }
}

void ExpectSameOps(const std::vector<OpCost>& by_segment, const std::vector<OpCost>& whole) {
  ASSERT_EQ(by_segment.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    const std::string what = whole[i].name + " " + PhaseName(whole[i].phase);
    EXPECT_EQ(by_segment[i].name, whole[i].name) << i;
    EXPECT_EQ(by_segment[i].phase, whole[i].phase) << what;
    EXPECT_EQ(by_segment[i].calls, whole[i].calls) << what;
    EXPECT_EQ(by_segment[i].cost.host_ms, whole[i].cost.host_ms) << what;
    EXPECT_EQ(by_segment[i].self_host_ms, whole[i].self_host_ms) << what;
    EXPECT_EQ(by_segment[i].work, whole[i].work) << what;
  }
}

TEST(WindowAttribution, AddedSegmentBySegmentItIsTheWholeWindowsToTheLastBit) {
  const Timeline timeline = ThreeStepsTheLastTwoSpanned();
  const WindowAttribution whole(timeline, PlaceOps(timeline), {});
  WindowAttribution by_segment(timeline, false);
  int segments = 0;
  PlaceOpsBySegment(timeline, [&](const OpPlacements& segment) {
    by_segment.Add(segment, {});
    ++segments;
  });
  by_segment.Finish();
  ASSERT_EQ(segments, 3);

  EXPECT_EQ(by_segment.steps(), 3);
  EXPECT_EQ(by_segment.Modules(), whole.Modules());
  ExpectSameCosts(by_segment.Step(), whole.Step(), "step");
  for (const char* path : {"", "encoder", "encoder.layer"}) {
    ExpectSameCosts(by_segment.Self(path), whole.Self(path), std::string("self ") + path);
    ExpectSameCosts(by_segment.Inclusive(path), whole.Inclusive(path),
                    std::string("inclusive ") + path);
    for (int step = 0; step < 3; ++step) {
      ExpectSameCosts(by_segment.SelfAt(path, step), whole.SelfAt(path, step),
                      std::string("self ") + path + " in step " + std::to_string(step));
    }
  }
  ExpectSameOps(by_segment.TopOps(""), whole.TopOps(""));
  ExpectSameOps(by_segment.TopOps("encoder"), whole.TopOps("encoder"));
  ExpectSameOps(by_segment.StepOps(), whole.StepOps());
  // The sums are of the three steps' ops, not of one segment's: the second step's backward node
  // takes 0.1 ms longer than the first's, the third's 0.2.
  EXPECT_NEAR(by_segment.StepAt(2).backward.host_ms - by_segment.StepAt(0).backward.host_ms, 0.2,
              1e-9);
  EXPECT_NEAR(by_segment.Self("encoder").backward.host_ms, 0.5, 1e-9) << "the median step's";
  EXPECT_NEAR(by_segment.StepAt(1).optimizer.host_ms - by_segment.StepAt(0).optimizer.host_ms, 1.6,
              1e-9)
      << "aten::copy_ starts in the second step's optimizer and counts whole there";
}

// The placements of ops [first, last) of `whole`, as a segment placed alone holds them.
OpPlacements Slice(const OpPlacements& whole, std::size_t first, std::size_t last) {
  OpPlacements slice(last - first, first);
  for (std::size_t i = first; i < last; ++i) {
    slice[i] = whole[i];
    slice[i].module = slice.IndexOf(whole.ModuleOf(i));
  }
  return slice;
}

// OpSegments never cuts a step, but Add takes any run of whole ops: where a step's ops are added
// in two segments, the second's sums per step go to totals the first began, addend by addend.
TEST(WindowAttribution, AStepAddedInTwoSegmentsIsTheWholeWindowsToTheLastBit) {
  TimelineBuilder b;
  b.Step(0, 4, 8, 10)
      .Forward("encoder", 0.5, 3.5)
      .Op("aten::mm", 1.0, 1.1)
      .Op("aten::mm", 1.2, 1.3)
      .Op("aten::mm", 1.4, 1.7);
  const Timeline timeline = b.Build();
  std::vector<double> ms;
  for (const OpEvent& op : timeline.ops) ms.push_back((op.end_ns - op.start_ns) * 1e-6);
  ASSERT_NE((ms[0] + ms[1]) + ms[2], ms[0] + (ms[1] + ms[2])) << "the order shows in the last bit";

  const OpPlacements placements = PlaceOps(timeline);
  const WindowAttribution whole(timeline, placements, {});
  WindowAttribution cut(timeline, false);
  cut.Add(Slice(placements, 0, 1), {});
  cut.Add(Slice(placements, 1, 3), {});
  cut.Finish();
  EXPECT_EQ(whole.SelfAt("encoder", 0).forward.host_ms, (ms[0] + ms[1]) + ms[2]);
  ExpectSameCosts(cut.SelfAt("encoder", 0), whole.SelfAt("encoder", 0), "encoder");
  ExpectSameOps(cut.TopOps("encoder"), whole.TopOps("encoder"));
  ExpectSameOps(cut.StepOps(), whole.StepOps());
  ASSERT_EQ(cut.StepOps().size(), 1u);
  EXPECT_EQ(cut.StepOps()[0].calls, 3.0);
}

}  // namespace
}  // namespace advisor
