#include "engine/script/node_exchange.h"

#include <optional>
#include <stdexcept>

#include "engine/script/node_merge.h"
#include "engine/script/python_command.h"

namespace advisor {
namespace {

// How far past node 0's completed steps the release lies. A node that has not seen the release
// yet is in a keep-alive window of one measured step after a warm-up one (two steps), which
// cannot complete beyond node 0's next step; so it completes at most node 0's count plus two, and
// the release two steps beyond that leaves it room for one more window of one step at least.
constexpr int kReleaseMargin = 4;

std::string NodeList(const std::vector<int>& nodes) {
  std::string text;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == nodes.size() ? " and " : ", ") + std::to_string(nodes[i]);
  }
  return text;
}

}  // namespace

NodeExchange::NodeExchange(const std::string& out_dir, const JobPlace& place,
                           std::chrono::seconds timeout, const Progress& progress)
    : place_(place), timeout_(timeout), progress_(progress), folder_(out_dir) {
  folder_.Prepare(place_.node);
}

void NodeExchange::Share(ScriptSource& source, const ScriptOptions& script, int window_steps,
                         const RunReport& report) {
  progress_("node " + std::to_string(place_.node) + ": instrumenting every module for the "
            "per-rank summary; profiling one more window");
  // On the device where one runs: the straggler's module is ranked by device time there.
  const bool on_device = source.Describe().run.device == "cuda";
  source.Record({Instrumentation::kEveryModule, "", window_steps, false, on_device});
  const RankWindows& windows = source.Windows();
  NodeSummary summary;
  summary.node = place_.node;
  summary.nodes = place_.nodes;
  summary.world_size = place_.world_size;
  summary.host = place_.host;
  summary.script = ScriptPart(script.command);
  summary.warmup_steps = script.warmup_steps;
  summary.window_steps = window_steps;
  if (report.hotspot) {
    summary.hotspot = (report.hotspot->path.empty() ? "the whole model" : report.hotspot->path) +
                      " -> " + report.hotspot->op;
  }
  for (std::size_t r = 0; r < windows.Ranks().size(); ++r) {
    summary.ranks.push_back({windows.Ranks()[r], windows.Baselines()[r], windows.Deepest()[r],
                             r < windows.Timed().size() ? windows.Timed()[r]
                                                        : std::vector<StepSpan>()});
  }
  folder_.Write(place_.node, NodeSummaryToJson(summary));
  progress_("node " + std::to_string(place_.node) + ": its ranks' summary is in " +
            folder_.FileOf(place_.node));
}

DistributedSummary NodeExchange::Merge(ScriptSource& source) {
  KeepSteppingUntil(
      source, [this] { return folder_.Missing(place_.nodes).empty(); },
      [this] {
        const std::vector<int> missing = folder_.Missing(place_.nodes);
        std::string files;
        for (int node : missing) files += (files.empty() ? "" : ", ") + folder_.FileOf(node);
        return std::string("no summary from node") + (missing.size() > 1 ? "s " : " ") +
               NodeList(missing) + " (" + files + ")";
      },
      "was advisor bisect run on every node with the same --out?");
  std::vector<NodeFile> files;
  for (int node = 0; node < place_.nodes; ++node) {
    files.push_back({folder_.FileOf(node), folder_.Read(node)});
  }
  progress_("merging the summaries of " + std::to_string(place_.nodes) + " nodes");
  return MergeNodes(std::move(files));
}

void NodeExchange::Release(ScriptSource& source) {
  const int end_steps = source.StepsDone() + kReleaseMargin;
  folder_.Release(end_steps);
  StepTo(source, end_steps);
}

void NodeExchange::AwaitRelease(ScriptSource& source) {
  std::optional<int> released;
  KeepSteppingUntil(
      source, [this, &released] { return (released = folder_.Released()).has_value(); },
      [] { return std::string("node 0 did not merge the nodes' summaries"); },
      "node 0's advisor says why",
      // While node 0 bisects, its ranks step and so do these: the wait counts from its summary.
      [this] { return folder_.Has(0); });
  StepTo(source, *released);
}

void NodeExchange::KeepSteppingUntil(ScriptSource& source, const std::function<bool()>& done,
                                     const std::function<std::string()>& what_is_missing,
                                     const std::string& hint,
                                     const std::function<bool()>& counting) {
  std::optional<std::chrono::steady_clock::time_point> start;
  auto next_note = std::chrono::steady_clock::now();
  while (!done()) {
    const auto now = std::chrono::steady_clock::now();
    if (!start && (!counting || counting())) start = now;
    if (start && now - *start >= timeout_) {
      throw std::runtime_error(what_is_missing() + " in " + std::to_string(timeout_.count()) +
                               " s (--nodes-timeout): " + hint);
    }
    if (now >= next_note) {
      progress_("node " + std::to_string(place_.node) + " waits: " + what_is_missing());
      next_note = now + std::chrono::seconds(10);
    }
    try {
      source.TimeSteps(1);
    } catch (const std::runtime_error& error) {
      throw std::runtime_error(what_is_missing() + ": the job ended first (" + error.what() + ")");
    }
  }
}

void NodeExchange::StepTo(ScriptSource& source, int end_steps) {
  // A window of n steps takes the count from c to c + n + 1 (its warm-up step first).
  const int steps = end_steps - source.StepsDone() - 1;
  if (steps < 1) return;
  try {
    source.TimeSteps(steps);
  } catch (const std::runtime_error& error) {
    // Every summary is in and merged: a job that ends first only ends sooner.
    progress_(std::string("the job ended before the release step: ") + error.what());
  }
}

}  // namespace advisor
