#include "engine/window/measured_window.h"

#include <stdexcept>

#include "engine/gpu/gpu_attribution.h"

namespace advisor {

MeasuredWindow MeasureWindow(Timeline timeline) {
  MeasuredWindow window;
  window.timeline = std::move(timeline);
  window.placements = PlaceOps(window.timeline);
  // Device time per op; empty when no GPU probe recorded, and ranking then uses host time.
  window.attribution = std::make_unique<WindowAttribution>(
      window.timeline, window.placements,
      AttributeGpuTime(window.timeline, window.placements).DeviceMsByOp());
  return window;
}

bool PlaceableBySegment(const Timeline& timeline) {
  return timeline.kernels.empty() && timeline.memcpys.empty() && timeline.memsets.empty() &&
         timeline.syncs.empty() && timeline.api_calls.empty() && !GpuProbeRecorded(timeline);
}

MeasuredWindow MeasureWindowBySegment(
    Timeline timeline, const std::function<void(const Timeline&, const OpPlacements&)>& on_segment,
    int threads) {
  if (!PlaceableBySegment(timeline)) {
    throw std::logic_error("MeasureWindowBySegment: the window holds GPU records");
  }
  MeasuredWindow window;
  window.timeline = std::move(timeline);
  // Without a GPU record no op has device time: ranking uses host time, as MeasureWindow's.
  window.attribution = std::make_unique<WindowAttribution>(window.timeline, false);
  PlaceOpsBySegment(
      window.timeline,
      [&](const OpPlacements& segment) {
        window.attribution->Add(segment, {});
        if (on_segment) on_segment(window.timeline, segment);
      },
      threads);
  window.attribution->Finish();
  return window;
}

std::vector<double> StepMillis(const std::vector<StepSpan>& spans) {
  std::vector<double> millis;
  for (const StepSpan& span : spans) millis.push_back((span.end_ns - span.start_ns) * 1e-6);
  return millis;
}

}  // namespace advisor
