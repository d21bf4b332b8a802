#include "engine/diff/rank_sides.h"

#include <stdexcept>

#include "engine/util/printf.h"

namespace advisor {
namespace {

const RankSummary& RankOf(const RunReport& run, int rank, const std::string& source) {
  if (!run.distributed || run.distributed->ranks.empty()) {
    throw std::runtime_error(source +
                             ": the report has no ranks (distributed.ranks): --ranks compares "
                             "the ranks of one job's report");
  }
  std::string ranks;
  for (const RankSummary& summary : run.distributed->ranks) {
    if (summary.rank == rank) return summary;
    ranks += (ranks.empty() ? "" : ", ") + std::to_string(summary.rank);
  }
  throw std::runtime_error(source + ": no rank " + std::to_string(rank) + " in its ranks (" +
                           ranks + ")");
}

}  // namespace

RunReport RankSide(const RunReport& run, int rank, const std::string& source) {
  const RankSummary& summary = RankOf(run, rank, source);
  RunReport side;
  side.run = run.run;
  StepBreakdown& step = side.step;
  step.median_ms = step.mean_ms = step.profiled_ms = summary.step_ms;
  step.forward_ms = summary.forward_ms;
  step.backward_ms = summary.backward_ms;
  step.optimizer_ms = summary.optimizer_ms;
  if (summary.data_wait_ms) {
    side.data = DataWait{};
    side.data->wait_ms = *summary.data_wait_ms;
  }
  // The rank's phases are each a median over its steps: what they leave of its median step is
  // its rest, as a report's rest is what its phases leave.
  step.rest_ms = summary.step_ms - summary.forward_ms - summary.backward_ms - summary.optimizer_ms -
                 summary.data_wait_ms.value_or(0);
  return side;
}

std::vector<std::string> RankNotes(const RunReport& run, int before_rank, int after_rank) {
  const RankSummary& before = RankOf(run, before_rank, "");
  const RankSummary& after = RankOf(run, after_rank, "");
  std::vector<std::string> notes = {
      Printf("ranks %d and %d of one job, compared by phase: the report keeps no rank's modules "
             "or ops",
             before_rank, after_rank),
      Printf("communication no compute overlaps: %.3f ms, then %.3f ms per step; waiting in "
             "collectives for the last rank: %.3f ms, then %.3f ms",
             before.exposed_comm_ms, after.exposed_comm_ms, before.wait_ms, after.wait_ms)};
  if (const std::optional<Straggler>& straggler = run.distributed->straggler) {
    if (straggler->rank == before_rank || straggler->rank == after_rank) {
      notes.push_back(Printf("rank %d is the job's straggler, %.3f ms late per step",
                             straggler->rank, straggler->late_ms) +
                      (straggler->path.empty() ? "" : " in " + straggler->path));
    }
  }
  return notes;
}

}  // namespace advisor
