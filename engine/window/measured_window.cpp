#include "engine/window/measured_window.h"

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

std::vector<double> StepMillis(const std::vector<StepSpan>& spans) {
  std::vector<double> millis;
  for (const StepSpan& span : spans) millis.push_back((span.end_ns - span.start_ns) * 1e-6);
  return millis;
}

}  // namespace advisor
