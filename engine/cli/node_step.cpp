#include "engine/cli/node_step.h"

#include <iostream>
#include <stdexcept>

namespace advisor {

std::optional<NodeExchange> JoinNodes(const JobPlace& place, bool autotest,
                                      const std::string& out_dir, int timeout_s,
                                      const Progress& progress) {
  if (place.nodes < 2) return std::nullopt;
  if (autotest) {
    throw std::runtime_error("--autotest relaunches the job on this machine alone; a job of " +
                             std::to_string(place.nodes) + " nodes is bisected without it");
  }
  return std::make_optional<NodeExchange>(out_dir, place, std::chrono::seconds(timeout_s),
                                          progress);
}

void EndOtherNode(NodeExchange& nodes, ScriptSource& source, bool let_run,
                  const std::string& out_dir) {
  nodes.AwaitRelease(source);
  source.Finish(let_run);
  std::cout << "node " << nodes.place().node << ": its ranks' summary is in "
            << nodes.folder().FileOf(nodes.place().node) << "; node 0 writes the merged report to "
            << out_dir << "/report.json" << std::endl;
}

std::string NodesNote(const DistributedSummary& distributed) {
  std::string note = "the job ran on " + std::to_string(distributed.nodes.size()) +
                     " nodes, each bisected by its own advisor on its own ranks: the levels and "
                     "the hot spot are node 0's; the ranks' table and the straggler are of every "
                     "node's ranks";
  for (const NodeInfo& node : distributed.nodes) {
    if (node.node != 0 && !node.hotspot.empty()) {
      note += "; node " + std::to_string(node.node) + "'s hot spot: " + node.hotspot;
    }
  }
  return note;
}

}  // namespace advisor
