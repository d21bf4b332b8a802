// The report of one torch.profiler trace: the sections a trace supports, filled by the same
// engine code as a bisection's baseline window (FillWindowSections), and the sections it cannot
// fill listed with the reason (BisectReport::absent).
#pragma once

#include "engine/report/report.h"
#include "engine/trace_analysis/trace_window.h"
#include "engine/trace_import/event_store.h"

namespace advisor {

// run.mode is "trace"; findings and wall time are left to the caller.
BisectReport ReportOfTrace(const TraceStore& store, const TraceWindow& trace);

}  // namespace advisor
