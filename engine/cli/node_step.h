// `advisor bisect -- torchrun --nnodes N ...`: what the script door does beyond one machine's
// (the exchange itself: engine/script/node_exchange.h).
#pragma once

#include <optional>
#include <string>

#include "engine/model/run_report.h"
#include "engine/script/node_exchange.h"

namespace advisor {

// This node's part in a job on several; nullopt on one. Throws std::runtime_error (one line) for
// an option that a job on several nodes cannot honour.
std::optional<NodeExchange> JoinNodes(const JobPlace& place, bool autotest,
                                      const std::string& out_dir, int timeout_s,
                                      const Progress& progress);

// A node other than 0, its summary written: waits for node 0's release, ends its ranks with the
// others' (or, with `let_run`, detaches from them: the caller waits for their end) and says where
// the report will be.
void EndOtherNode(NodeExchange& nodes, ScriptSource& source, bool let_run,
                  const std::string& out_dir);

// For the merged report's data quality: whose bisection its levels and hot spot are.
std::string NodesNote(const DistributedSummary& distributed);

}  // namespace advisor
