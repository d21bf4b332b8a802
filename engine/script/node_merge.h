// Every node's summary merged into one per-rank summary of the whole job: the node files checked
// against each other (one job, one schedule, every rank once), each node's clock moved onto node
// 0's (clock_offsets.h), then the ranks summarised together as one node's are (RankWindows), with
// each rank's node and each node's clock offset beside them. Torch-free.
#pragma once

#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/script/node_summary.h"

namespace advisor {

struct NodeFile {
  std::string path;  // OUT/nodes/node-1.json; the report names it "nodes/node-1.json"
  NodeSummary summary;
};

// `files[k]`: node k's summary, for every node of the job. Throws NodeFileError with one line
// naming the file and the problem when the summaries do not make one job.
DistributedSummary MergeNodes(std::vector<NodeFile> files);

}  // namespace advisor
