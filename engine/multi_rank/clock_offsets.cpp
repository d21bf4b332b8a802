#include "engine/multi_rank/clock_offsets.h"

#include <cmath>

#include "engine/multi_rank/collective_matching.h"
#include "engine/util/median.h"

namespace advisor {
namespace {

// The median end of one matched collective over the ranks of `node`; false when it has none.
bool NodeEnd(const MatchedCollective& match,
             const std::vector<const std::vector<CollectiveCall>*>& collectives,
             const std::vector<int>& node_of_rank, int node, double& end_ms) {
  std::vector<double> ends;
  for (std::size_t r = 0; r < collectives.size(); ++r) {
    if (node_of_rank[r] == node) ends.push_back((*collectives[r])[match.calls[r]].end_ns * 1e-6);
  }
  if (ends.empty()) return false;
  end_ms = Median(ends);
  return true;
}

}  // namespace

std::vector<ClockOffset> EstimateClockOffsets(
    const std::vector<const std::vector<CollectiveCall>*>& collectives,
    const std::vector<int>& node_of_rank, int nodes) {
  std::vector<std::vector<double>> differences(static_cast<std::size_t>(nodes));
  for (const MatchedCollective& match : MatchCollectives(collectives)) {
    double reference_ms = 0;
    if (!match.complete() || !NodeEnd(match, collectives, node_of_rank, 0, reference_ms)) continue;
    for (int node = 1; node < nodes; ++node) {
      double end_ms = 0;
      if (NodeEnd(match, collectives, node_of_rank, node, end_ms)) {
        differences[node].push_back(end_ms - reference_ms);
      }
    }
  }
  std::vector<ClockOffset> offsets(static_cast<std::size_t>(nodes));
  for (int node = 1; node < nodes; ++node) {
    const std::vector<double>& samples = differences[node];
    if (samples.empty()) continue;
    ClockOffset& offset = offsets[node];
    offset.samples = static_cast<int>(samples.size());
    offset.offset_ms = Median(samples);
    std::vector<double> deviations;
    for (double sample : samples) deviations.push_back(std::fabs(sample - offset.offset_ms));
    offset.spread_ms = Median(deviations);
  }
  return offsets;
}

void ShiftTimeline(Timeline& timeline, TimeNs delta_ns) {
  for (StepSpan& step : timeline.steps) {
    step.start_ns += delta_ns;
    step.end_ns += delta_ns;
    for (PhaseSpan& phase : step.phases) {
      phase.start_ns += delta_ns;
      phase.end_ns += delta_ns;
    }
  }
  const auto shift = [delta_ns](auto& events) {
    for (auto& event : events) {
      event.start_ns += delta_ns;
      event.end_ns += delta_ns;
    }
  };
  shift(timeline.ops);
  shift(timeline.kernels);
  shift(timeline.memcpys);
  shift(timeline.memsets);
  shift(timeline.syncs);
  shift(timeline.api_calls);
  for (MarkerEvent& marker : timeline.markers) marker.time_ns += delta_ns;
}

}  // namespace advisor
