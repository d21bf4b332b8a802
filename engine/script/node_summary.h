// A node's summary: what each node's advisor writes for a job that runs on several nodes
// (advisor bisect --out SHARED -- torchrun --nnodes N --node_rank K ...; docs/script-mode.md,
// "Several nodes"), and node 0's advisor reads to merge every rank into one report. Per rank, the
// two windows the per-rank summary is made of (RankWindows): the baseline's first profiled
// window, collectives included, and a window with every module instrumented, in the probe's own
// compact encoding (timeline_codec), and the rank's steps timed without a profiler. A node file
// comes from another machine: the reader checks every field and throws NodeFileError naming the
// first problem.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor {

// Two windows of a few steps per rank, each at most kMaxMessageBytes as the probe sent it; a GiB
// bounds what a broken or hostile file can make node 0 hold.
inline constexpr std::size_t kMaxNodeFileBytes = std::size_t{1} << 30;
// Bounds on what a node file may claim (hello's own bounds).
inline constexpr int kMaxWorldSize = 1 << 20;
inline constexpr int kMaxScheduleSteps = 1000;  // --warmup and --steps allow no more
inline constexpr TimeNs kMaxClockNs = TimeNs{1} << 61;  // 73 years of a host's uptime

class NodeFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct NodeRankWindows {
  int rank = 0;
  Timeline baseline;  // the first uninstrumented profiled window, with its collectives
  Timeline modules;   // every module instrumented, without collectives
  // Its steps timed without a profiler (the straggler check compares them across ranks).
  std::vector<StepSpan> timed = {};
};

struct NodeSummary {
  int node = 0;        // GROUP_RANK
  int nodes = 2;       // GROUP_WORLD_SIZE
  int world_size = 2;  // the job's ranks
  std::string host;
  // The script and its arguments (the launcher's own options differ from node to node): every
  // node runs the same.
  std::vector<std::string> script;
  // advisor's schedule, which must be the same on every node for their windows to share steps.
  int warmup_steps = 0;
  int window_steps = 0;
  std::string hotspot;  // the node's own bisection's answer, "path -> op"; "" when none
  std::vector<NodeRankWindows> ranks;  // this node's ranks, by rank
};

std::string NodeSummaryToJson(const NodeSummary& summary);
// Throws NodeFileError with one line naming `source` (the file) and the problem.
NodeSummary ReadNodeSummary(const std::string& text, const std::string& source);

}  // namespace advisor
