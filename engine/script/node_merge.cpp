#include "engine/script/node_merge.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>

#include "engine/multi_rank/clock_offsets.h"
#include "engine/script/rank_windows.h"
#include "engine/trace_analysis/collectives.h"
#include "engine/window/measured_window.h"

namespace advisor {
namespace {

[[noreturn]] void Refuse(const NodeFile& file, const std::string& problem) {
  throw NodeFileError(file.path + ": " + problem);
}

std::string StepRange(const Timeline& timeline) {
  return std::to_string(timeline.steps.front().index) + "-" +
         std::to_string(timeline.steps.back().index);
}

std::string Joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

// Every file is of the same job as node 0's and run with the same schedule.
void CheckOneJob(const std::vector<NodeFile>& files) {
  const NodeSummary& first = files.front().summary;
  for (std::size_t k = 0; k < files.size(); ++k) {
    const NodeFile& file = files[k];
    const NodeSummary& node = file.summary;
    if (node.node != static_cast<int>(k)) {
      Refuse(file, "says it is node " + std::to_string(node.node));
    }
    if (node.nodes != static_cast<int>(files.size()) || node.world_size != first.world_size) {
      Refuse(file, "a job of " + std::to_string(node.world_size) + " ranks on " +
                       std::to_string(node.nodes) + " nodes; " + files.front().path + " says " +
                       std::to_string(first.world_size) + " ranks on " +
                       std::to_string(files.size()) + " nodes");
    }
    if (node.script != first.script) {
      Refuse(file, "ran '" + Joined(node.script) + "', " + files.front().path + " '" +
                       Joined(first.script) + "': every node runs the same script");
    }
    if (node.warmup_steps != first.warmup_steps || node.window_steps != first.window_steps) {
      Refuse(file, "advisor ran with --warmup " + std::to_string(node.warmup_steps) +
                       " --steps " + std::to_string(node.window_steps) + ", on node 0 with " +
                       std::to_string(first.warmup_steps) + " and " +
                       std::to_string(first.window_steps) +
                       ": give every node's advisor the same options");
    }
  }
}

struct RankEntry {
  int rank = 0;
  int node = 0;
  const NodeRankWindows* windows = nullptr;
};

// Every rank of the job once, by rank; the baselines all measured the same steps.
std::vector<RankEntry> CollectRanks(const std::vector<NodeFile>& files) {
  std::map<int, RankEntry> by_rank;
  for (std::size_t k = 0; k < files.size(); ++k) {
    for (const NodeRankWindows& rank : files[k].summary.ranks) {
      const auto [it, added] =
          by_rank.emplace(rank.rank, RankEntry{rank.rank, static_cast<int>(k), &rank});
      if (!added) {
        Refuse(files[k], "rank " + std::to_string(rank.rank) + " is in " +
                             files[it->second.node].path + " too");
      }
    }
  }
  const int world_size = files.front().summary.world_size;
  std::string missing;
  for (int rank = 0; rank < world_size; ++rank) {
    if (by_rank.count(rank) == 0) missing += (missing.empty() ? "" : ", ") + std::to_string(rank);
  }
  if (!missing.empty()) {
    throw NodeFileError(std::filesystem::path(files.front().path).parent_path().string() +
                        ": no node's summary holds rank " + missing + " of the job's " +
                        std::to_string(world_size));
  }
  std::vector<RankEntry> ranks;
  for (const auto& [number, entry] : by_rank) ranks.push_back(entry);
  const Timeline& reference = ranks.front().windows->baseline;
  for (const RankEntry& entry : ranks) {
    const std::vector<StepSpan>& steps = entry.windows->baseline.steps;
    const bool same =
        steps.size() == reference.steps.size() &&
        std::equal(steps.begin(), steps.end(), reference.steps.begin(),
                   [](const StepSpan& a, const StepSpan& b) { return a.index == b.index; });
    if (!same) {
      Refuse(files[entry.node], "rank " + std::to_string(entry.rank) +
                                    "'s baseline measured steps " +
                                    StepRange(entry.windows->baseline) + ", rank " +
                                    std::to_string(ranks.front().rank) + "'s " +
                                    StepRange(reference) + ": the nodes ran different schedules");
    }
  }
  return ranks;
}

}  // namespace

DistributedSummary MergeNodes(std::vector<NodeFile> files) {
  if (files.size() < 2) throw NodeFileError("merging nodes needs two node summaries or more");
  CheckOneJob(files);
  const std::vector<RankEntry> ranks = CollectRanks(files);
  const int nodes = static_cast<int>(files.size());

  // Each node's clock against node 0's, from the baselines' collectives.
  std::vector<std::vector<CollectiveCall>> collectives;
  std::vector<int> node_of_rank;
  for (const RankEntry& entry : ranks) {
    collectives.push_back(CollectivesOf(MeasureWindow(entry.windows->baseline), HostEvents{}, {}));
    node_of_rank.push_back(entry.node);
  }
  std::vector<const std::vector<CollectiveCall>*> views;
  for (const std::vector<CollectiveCall>& calls : collectives) views.push_back(&calls);
  const std::vector<ClockOffset> offsets = EstimateClockOffsets(views, node_of_rank, nodes);

  std::vector<int> numbers;
  std::vector<Timeline> baselines, modules;
  std::vector<std::vector<StepSpan>> timed;
  for (const RankEntry& entry : ranks) {
    numbers.push_back(entry.rank);
    baselines.push_back(entry.windows->baseline);
    modules.push_back(entry.windows->modules);
    timed.push_back(entry.windows->timed);
    const TimeNs shift = -static_cast<TimeNs>(std::llround(offsets[entry.node].offset_ms * 1e6));
    ShiftTimeline(baselines.back(), shift);
    ShiftTimeline(modules.back(), shift);
  }
  std::optional<DistributedSummary> summary =
      RankWindows::FromKept(std::move(numbers), std::move(baselines), std::move(modules),
                            std::move(timed))
          .Summarise();
  for (std::size_t r = 0; r < ranks.size(); ++r) summary->ranks[r].node = ranks[r].node;
  for (int k = 0; k < nodes; ++k) {
    const NodeSummary& node = files[k].summary;
    NodeInfo info;
    info.node = k;
    info.host = node.host;
    for (const NodeRankWindows& rank : node.ranks) info.ranks.push_back(rank.rank);
    std::sort(info.ranks.begin(), info.ranks.end());
    info.file = "nodes/" + std::filesystem::path(files[k].path).filename().string();
    info.clock_offset_ms = offsets[k].offset_ms;
    info.clock_spread_ms = offsets[k].spread_ms;
    info.clock_samples = offsets[k].samples;
    info.hotspot = node.hotspot;
    summary->nodes.push_back(std::move(info));
  }
  return *summary;
}

}  // namespace advisor
