// A job of several ranks (and nodes): each rank's timing, the collectives matched across them,
// and the straggler with what made it late. RunReport::distributed (engine/model/run_report.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace advisor {

// One rank's steps timed without a profiler (advisor bisect's timing steps): its median step
// and the phases of that step, as the probe's step clock cut it.
struct UnprofiledSteps {
  int steps = 0;
  double step_ms = 0;
  double data_wait_ms = 0;
  double forward_ms = 0;
  double backward_ms = 0;
  double optimizer_ms = 0;
};

// One rank of a multi-rank run, from its own trace (advisor analyze on a folder of rank traces).
// Times are per step, medians over the rank's steps where they are step times, totals over its
// steps divided by their number otherwise.
struct RankSummary {
  int rank = 0;
  std::string trace;                 // the file it came from
  double step_ms = 0;                // median step
  double forward_ms = 0;
  double backward_ms = 0;
  double optimizer_ms = 0;
  std::optional<double> data_wait_ms;  // absent without DataLoader ranges
  double compute_ms = 0;             // union of compute: kernels on a GPU, host ops on a CPU
  double comm_ms = 0;                // union of its collectives' time
  double exposed_comm_ms = 0;        // collective time no compute overlaps
  double late_ms = 0;                // how much later than the earliest rank it reached the
                                     // matched collectives, summed
  int last_arrivals = 0;             // matched collectives it reached last
  double wait_ms = 0;                // how long it waited in the matched collectives for the
                                     // last rank to arrive, per step
  std::optional<UnprofiledSteps> unprofiled = std::nullopt;  // absent where the door timed none
                                                            // (a trace)
  std::optional<int> node = std::nullopt;  // its node, where the job ran on several (GROUP_RANK)
};

// One node of a job that ran on several, each bisected by its own advisor (docs/script-mode.md,
// "Several nodes"): the summary it wrote, and its clock against node 0's.
struct NodeInfo {
  int node = 0;                      // GROUP_RANK
  std::string host;
  std::vector<int> ranks;
  std::string file;                  // its summary: "nodes/node-1.json" in the report folder
  // Its clock less node 0's, estimated from the ends of the collectives every rank shares (they
  // end together on every rank): the median difference, and the median absolute deviation of
  // the differences from it. 0 and 0 for node 0, and where no collective was matched.
  double clock_offset_ms = 0;
  double clock_spread_ms = 0;
  int clock_samples = 0;             // the matched collectives the estimate rests on
  std::string hotspot;               // its own bisection's hot spot, "path -> op"; "" when none
};

// The rank the others wait for, and what on it made it late: its costs beyond the median of the
// other ranks'.
struct Straggler {
  int rank = 0;
  double late_ms = 0;                // its RankSummary::late_ms
  // How late it surely is per step, beyond the other ranks: the lower end of the 95 % interval
  // over the steps (SureLateMs); at most late_ms, less the noisier the steps.
  double sure_late_ms = 0;
  double last_share = 0;             // of the matched collectives, the share it reached last
  double compute_excess_ms = 0;      // its compute beyond the others' median, per step
  std::optional<double> data_wait_excess_ms;  // likewise its wait for data, where measured
  std::string path;                  // the module with the largest excess; "" when none named
  double path_excess_ms = 0;
  // path_excess_ms is of the module's forward as the host's clock spans it, what runs between its
  // ops included: no module's ops explained half the lateness (Python work, a sleep, a host wait
  // inside the module; on a GPU its device time shows none of it).
  bool path_by_wall_time = false;
  std::string op;                    // the op with the largest excess
  std::string op_phase;
  double op_excess_ms = 0;
  // Whether the excess is there outside the profiled windows too (engine/multi_rank/
  // unprofiled_check.h): its data wait and forward beyond the other ranks' median per step, in
  // the profiled steps and in those timed without a profiler. All absent where the door timed
  // none (a folder of traces): there it cannot be checked.
  std::optional<double> pre_backward_excess_ms;
  std::optional<double> unprofiled_excess_ms;
  std::optional<bool> holds_unprofiled;  // false: taken for the measurement's own effect
};

// Across the ranks: collectives matched by process group and sequence number (or by order where
// the traces carry no sequence numbers), their skew, each rank's timing, the straggler.
struct DistributedSummary {
  int world_size = 0;               // distributedInfo's, else the number of traces
  std::string backend;              // "nccl", "gloo"; "" when the traces do not say
  int collectives_matched = 0;      // found on every rank
  int collectives_unmatched = 0;    // found on some ranks only
  double skew_median_ms = 0;        // per matched collective: latest arrival minus earliest
  double skew_max_ms = 0;
  std::vector<RankSummary> ranks;   // by rank
  std::optional<Straggler> straggler;  // absent when no rank is consistently late
  std::vector<NodeInfo> nodes;      // by node, where the job ran on several; empty otherwise
};

}  // namespace advisor
