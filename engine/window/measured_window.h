// One profiled window, placed and attributed: what every analysis of a window starts from.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "engine/analysis/attribution.h"
#include "engine/analysis/placement.h"
#include "engine/timeline/timeline.h"

namespace advisor {

struct MeasuredWindow {
  Timeline timeline;
  // Every op's; empty where the window was placed a segment at a time (MeasureWindowBySegment).
  OpPlacements placements;
  std::unique_ptr<WindowAttribution> attribution;  // device time per op where a GPU probe recorded
};

MeasuredWindow MeasureWindow(Timeline timeline);

// The same window, its ops placed a segment at a time (OpSegments) on `threads` threads, each
// segment's costs worked out where it was placed, and attributed on the calling thread in the
// ops' order: every op's placement kept and every sum MeasureWindow's to the last bit. Only an op
// outside every step may name another module (PlaceOpsBySegment), which nothing reads. For a
// window with GPU records, whose placements are read by op index once it is built.
MeasuredWindow MeasureWindowOnThreads(Timeline timeline, int threads);

// Whether MeasureWindowBySegment may place `timeline` a segment at a time: it holds no GPU
// record and no GPU probe ran, so no op's device time, sync or copy is looked up by its index
// once the window is built.
bool PlaceableBySegment(const Timeline& timeline);

// The same window, its ops placed and attributed a segment at a time (PlaceOpsBySegment), each
// segment's placements let go before the next is placed, so that a trace's millions of ops are
// never all placed at once: `placements` is left empty. `on_segment` is called with each
// segment's placements, for what else the caller reads of them. `threads` place the segments
// (PlaceOpsBySegment); the attribution and `on_segment` take them in the ops' order on the
// calling thread, so the window is the same with any number. Only for a timeline that
// PlaceableBySegment.
MeasuredWindow MeasureWindowBySegment(
    Timeline timeline, const std::function<void(const Timeline&, const OpPlacements&)>& on_segment,
    int threads = 1);

// Milliseconds of each step, start to end.
std::vector<double> StepMillis(const std::vector<StepSpan>& spans);

}  // namespace advisor
