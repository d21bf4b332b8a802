#include "probes/cupti/cupti_clock.h"

namespace advisor {
namespace {

TimeNs Offset(const ClockPair& pair) {
  return pair.steady_ns - static_cast<TimeNs>(pair.cupti_ns);
}

}  // namespace

CuptiClockMap::CuptiClockMap(const ClockPair& at_start, const ClockPair& at_stop)
    : start_cupti_(at_start.cupti_ns), start_offset_(Offset(at_start)) {
  const bool has_stop = at_stop.cupti_ns > at_start.cupti_ns;
  stop_cupti_ = has_stop ? at_stop.cupti_ns : at_start.cupti_ns;
  stop_offset_ = has_stop ? Offset(at_stop) : start_offset_;
}

TimeNs CuptiClockMap::ToSteady(std::uint64_t cupti_ns) const {
  TimeNs offset = start_offset_;
  if (cupti_ns >= stop_cupti_) {
    offset = stop_offset_;
  } else if (cupti_ns > start_cupti_) {
    // The span can be minutes (1e11 ns) and the drift microseconds: 128-bit keeps it exact.
    const __int128 elapsed = cupti_ns - start_cupti_;
    const __int128 span = stop_cupti_ - start_cupti_;
    offset += static_cast<TimeNs>(elapsed * (stop_offset_ - start_offset_) / span);
  }
  return static_cast<TimeNs>(cupti_ns) + offset;
}

}  // namespace advisor
