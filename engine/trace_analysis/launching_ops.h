// Each CUDA runtime and driver call of a trace linked to the op that made it, the way the
// engine's op probe links them: the innermost op running on the call's thread when the call
// started.
#pragma once

#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/host_events.h"

namespace advisor {

// Sets each call's external_id to the correlation id of the innermost op running on its thread
// when it started (a trace's ops are numbered from 1 in order), or to 0 where none ran or where
// one of advisor's own ranges is innermost (HostEvents::advisor_ranges: its wait is not the
// model's). A thread's ops and ranges are swept in start order against a stack of open ones; the
// sweep is cut where none is open (an op that starts once every one before it has ended), its
// pieces swept on up to `threads` threads: the links are those of one sweep.
void LinkCallsToOps(const HostEvents& host, std::vector<ApiCallEvent>& calls, int threads);

}  // namespace advisor
