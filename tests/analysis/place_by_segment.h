// The window layer's way of placing a window a segment at a time (engine/window's
// MeasureWindowBySegment): OpSegments placed on RunInOrder's workers and taken on the calling
// thread in the ops' order. One function here, so that the tests can say what the segments are
// without a window's attribution.
#pragma once

#include <functional>

#include "engine/analysis/placement.h"
#include "engine/util/ordered_pool.h"

namespace advisor::testing {

// Calls `visit` on the calling thread with each segment's placements in the ops' order, the
// segments placed by `threads` workers ahead of it.
inline void PlaceOpsBySegment(const Timeline& timeline,
                              const std::function<void(const OpPlacements&)>& visit,
                              int threads = 1) {
  const OpSegments segments(timeline);
  RunInOrder(
      segments.size(), threads, [&segments](std::size_t k) { return segments.Place(k); },
      [&visit](OpPlacements&& placements) { visit(placements); });
}

}  // namespace advisor::testing
