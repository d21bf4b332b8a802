// One torch.profiler trace through the analyze door: read, its records taken, its window built,
// checked to hold a step, and its report made. `advisor analyze` reads each rank's so;
// `advisor diff` a trace given in place of a report.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "engine/cli/stage_clock.h"
#include "engine/cli/trace_inputs.h"
#include "engine/multi_rank/rank_trace.h"
#include "engine/trace_import/trace_reader.h"

namespace advisor {

// One of `inputs`, a local file or an object in a store. `progress` gets "reading FILE" and what
// was read in how long. The rank is left 0: numbering several files is the caller's (RankOf).
// Throws std::runtime_error naming the file where the trace holds no step. `kept`: whether the
// window keeps every op's placement, as the multi-rank analysis of several ranks reads them.
RankTrace ReadRankTrace(TraceInputs& inputs, const TraceInput& input, const ReadOptions& read,
                        OpPlacementsKept kept,
                        const std::function<void(const std::string&)>& progress,
                        StageClock& stages);

double SecondsSince(std::chrono::steady_clock::time_point start);

// "12 ms", "2.41 s": a few MB read in a few ms said nothing as "0.00 s".
std::string Duration(double seconds);

}  // namespace advisor
