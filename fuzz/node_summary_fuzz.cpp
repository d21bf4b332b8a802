// A node's summary file, written on another machine of a job on several nodes: any bytes are read
// into the engine's structs or refused with a NodeFileError naming the problem; a file that reads
// is split into two nodes' halves and merged, so hostile timelines reach the clock offsets, the
// lateness and the straggler too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/script/node_merge.h"
#include "engine/script/node_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const advisor::NodeSummary summary = advisor::ReadNodeSummary(
        std::string(reinterpret_cast<const char*>(data), size), "node-0.json");
    if (summary.ranks.size() < 2) return 0;
    std::vector<advisor::NodeFile> files(2, advisor::NodeFile{"", summary});
    const std::size_t half = summary.ranks.size() / 2;
    for (int node = 0; node < 2; ++node) {
      advisor::NodeSummary& part = files[node].summary;
      part.node = node;
      part.nodes = 2;
      part.world_size = static_cast<int>(summary.ranks.size());
      part.ranks.erase(node == 0 ? part.ranks.begin() + half : part.ranks.begin(),
                       node == 0 ? part.ranks.end() : part.ranks.begin() + half);
    }
    advisor::MergeNodes(std::move(files));
  } catch (const advisor::NodeFileError&) {
  }
  return 0;
}
