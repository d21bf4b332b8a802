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
// segment's part of the attribution worked out where it was placed, and added on the calling
// thread in the ops' order: every op's placement kept and every sum MeasureWindow's to the last
// bit. Only an op outside every step may name another module (OpSegments), which nothing reads.
// For a window with GPU records, whose placements are read by op index once it is built.
MeasuredWindow MeasureWindowOnThreads(Timeline timeline, int threads);

// Whether MeasureWindowBySegment may place `timeline` a segment at a time: it holds no GPU
// record and no GPU probe ran, so no op's device time, sync or copy is looked up by its index
// once the window is built.
bool PlaceableBySegment(const Timeline& timeline);

// What a caller reads of each segment's placements beside the attribution: called on the thread
// that placed the segment, for several segments at once; the function it returns is called on
// the calling thread, in the ops' order, to add what it read to the caller's.
using SegmentReader = std::function<std::function<void()>(const Timeline&, const OpPlacements&)>;

// The same window, its ops placed and attributed a segment at a time (OpSegments), each
// segment's placements let go before the next is taken, so that a trace's millions of ops are
// never all placed at once: `placements` is left empty. `threads` place the segments, each read
// by `read` where it was placed; the attribution and what `read` returns take them in the ops'
// order on the calling thread, so the window is the same with any number, at most twice as many
// segments as threads in flight. Only for a timeline that PlaceableBySegment.
MeasuredWindow MeasureWindowBySegment(Timeline timeline, const SegmentReader& read,
                                      int threads = 1);

// Milliseconds of each step, start to end.
std::vector<double> StepMillis(const std::vector<StepSpan>& spans);

}  // namespace advisor
