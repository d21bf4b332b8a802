// The report of one torch.profiler trace: the sections a trace supports, filled by the same
// engine code as a bisection's baseline window (FillWindowSections), and the sections it cannot
// fill listed with the reason (RunReport::absent).
#pragma once

#include "engine/model/run_report.h"
#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_import/event_store.h"

namespace advisor {

// run.mode is Door::kTrace; findings and wall time are left to the caller.
RunReport ReportOfTrace(const TraceStore& store, const ProfilerTraceWindow& trace);

}  // namespace advisor
