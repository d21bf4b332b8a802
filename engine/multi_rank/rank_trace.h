// One rank's trace, analysed on its own: what the multi-rank analysis compares across ranks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/multi_rank/rank_window.h"
#include "engine/trace_analysis/profiler_trace_window.h"
#include "engine/trace_import/event_store.h"

namespace advisor {

struct RankTrace {
  int rank = 0;
  std::string path;
  std::optional<DistributedInfo> distributed;  // distributedInfo, where the trace has it
  ProfilerTraceWindow trace;
  RunReport report;  // the rank's single-trace report (ReportOfTrace)
};

// The rank of a trace: distributedInfo's; else a "rank<N>" in its file name (as
// tensorboard_trace_handler's worker_name often carries it); else `position`, the file's place
// among the traces read, with a note in `notes`.
int RankOf(const TraceMetadata& metadata, const std::string& path, int position,
           std::vector<std::string>& notes);

// The trace as the multi-rank analysis reads it: its one window for everything.
RankWindow WindowOf(const RankTrace& rank);

// Orders `ranks` by rank; throws std::runtime_error naming both files when two claim one rank.
void SortByRank(std::vector<RankTrace>& ranks);

}  // namespace advisor
