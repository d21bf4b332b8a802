// CUPTI stamps activity with its own nanosecond clock (on Linux it follows the wall clock, which
// NTP may slew); the timeline runs on std::chrono::steady_clock. The probe reads both clocks
// together when a window starts and when it stops, and maps CUPTI times between the two readings
// by a straight line, so a clock slewed during the window moves records by at most the slew.
#pragma once

#include <cstdint>

#include "engine/timeline/timeline.h"

namespace advisor {

// One reading of both clocks, taken as close together as the probe could manage.
struct ClockPair {
  std::uint64_t cupti_ns = 0;
  TimeNs steady_ns = 0;
  TimeNs uncertainty_ns = 0;  // how long the reading took; the true pairing is within +- half
};

class CuptiClockMap {
 public:
  // at_stop.cupti_ns == 0 means no stop reading: the start offset then holds throughout.
  CuptiClockMap(const ClockPair& at_start, const ClockPair& at_stop);

  // Interpolates the offset between the two readings; outside them the nearer offset holds, as
  // extrapolating a drift measured over one window would only add error.
  TimeNs ToSteady(std::uint64_t cupti_ns) const;

  // How far the offset moved from start to stop: the most a record can be off by had the probe
  // used the start offset alone.
  TimeNs drift_ns() const { return stop_offset_ - start_offset_; }

 private:
  std::uint64_t start_cupti_ = 0;
  std::uint64_t stop_cupti_ = 0;
  TimeNs start_offset_ = 0;  // steady minus CUPTI
  TimeNs stop_offset_ = 0;
};

}  // namespace advisor
