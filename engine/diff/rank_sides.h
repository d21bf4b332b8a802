// One rank of a job as a side of a diff (`advisor diff RUN --ranks A B`, docs/diff.md): the step,
// phases and data wait the report's ranks section keeps for it. The report keeps no rank's
// modules or ops, so two ranks compare by phase.
#pragma once

#include <string>
#include <vector>

#include "engine/model/run_report.h"

namespace advisor {

// Throws std::runtime_error naming `source` (the report's path) where the report has no ranks
// section or not that rank.
RunReport RankSide(const RunReport& run, int rank, const std::string& source);

// What the ranks section says of the two ranks beside their phases: their exposed communication
// and wait in collectives, and which of them is the job's straggler. One line each.
std::vector<std::string> RankNotes(const RunReport& run, int before_rank, int after_rank);

}  // namespace advisor
