// The report of one torch.profiler trace: the sections a trace supports, filled by the same
// engine code as a bisection's baseline window (FillWindowSections), and the sections it cannot
// fill listed with the reason (RunReport::absent).
#pragma once

#include "engine/model/run_report.h"
#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_import/event_store.h"

namespace advisor {

// run.mode is Door::kTrace; findings and wall time are left to the caller. Its sections are
// worked out on up to `threads` threads (0: one a core, as the reader's); the report is the same
// with any number.
RunReport ReportOfTrace(const TraceStore& store, const ProfilerTraceWindow& trace, int threads = 1);

}  // namespace advisor
