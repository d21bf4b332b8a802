#include "engine/window/measured_window.h"

#include <stdexcept>

#include "engine/gpu/gpu_attribution.h"
#include "engine/util/ordered_pool.h"

namespace advisor {

namespace {

// One segment as a worker leaves it: its placements, its part of the attribution, and what the
// caller's reader read of it.
struct PlacedSegment {
  OpPlacements placements;
  SegmentAttribution attribution;
  std::function<void()> add_read;  // empty without a reader
};

// Places window.timeline's ops a segment at a time on `threads` threads, each segment's part of
// the attribution worked out and `read` (where given) called there, and adds each segment on this
// thread in the ops' order; `take` (where given) is then called with its placements, still on
// this thread.
void PlaceAndAttribute(MeasuredWindow& window, const std::vector<double>& device_ms, int threads,
                       const SegmentReader& read,
                       const std::function<void(const OpPlacements&)>& take) {
  const Timeline& timeline = window.timeline;
  window.attribution = std::make_unique<WindowAttribution>(timeline, !device_ms.empty());
  const OpSegments segments(timeline, threads);
  RunInOrder(
      segments.size(), threads,
      [&](std::size_t k) {
        PlacedSegment placed{segments.Place(k), {}, {}};
        placed.attribution = WindowAttribution::PartOf(timeline, placed.placements, device_ms);
        if (read) placed.add_read = read(timeline, placed.placements);
        return placed;
      },
      [&](PlacedSegment&& placed) {
        window.attribution->Add(placed.attribution);
        if (placed.add_read) placed.add_read();
        if (take) take(placed.placements);
      });
  window.attribution->Finish();
}

}  // namespace

MeasuredWindow MeasureWindow(Timeline timeline) {
  MeasuredWindow window;
  window.timeline = std::move(timeline);
  window.placements = PlaceOps(window.timeline);
  // Device time per op; empty when no GPU probe recorded, and ranking then uses host time.
  window.attribution = std::make_unique<WindowAttribution>(window.timeline, window.placements,
                                                           DeviceMsByOp(window.timeline));
  return window;
}

MeasuredWindow MeasureWindowOnThreads(Timeline timeline, int threads) {
  MeasuredWindow window;
  window.timeline = std::move(timeline);
  PlaceAndAttribute(window, DeviceMsByOp(window.timeline), threads, nullptr,
                    [&window](const OpPlacements& segment) { window.placements.Append(segment); });
  return window;
}

bool PlaceableBySegment(const Timeline& timeline) {
  return timeline.kernels.empty() && timeline.memcpys.empty() && timeline.memsets.empty() &&
         timeline.syncs.empty() && timeline.api_calls.empty() && !GpuProbeRecorded(timeline);
}

MeasuredWindow MeasureWindowBySegment(Timeline timeline, const SegmentReader& read, int threads) {
  if (!PlaceableBySegment(timeline)) {
    throw std::logic_error("MeasureWindowBySegment: the window holds GPU records");
  }
  MeasuredWindow window;
  window.timeline = std::move(timeline);
  // Without a GPU record no op has device time: ranking uses host time, as MeasureWindow's.
  PlaceAndAttribute(window, {}, threads, read, nullptr);
  return window;
}

std::vector<double> StepMillis(const std::vector<StepSpan>& spans) {
  std::vector<double> millis;
  for (const StepSpan& span : spans) millis.push_back((span.end_ns - span.start_ns) * 1e-6);
  return millis;
}

}  // namespace advisor
