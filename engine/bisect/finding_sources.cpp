#include "engine/bisect/finding_sources.h"

#include <algorithm>
#include <map>

#include "engine/analysis/attribution.h"
#include "engine/analysis/sequence_numbers.h"

namespace advisor {
namespace {

// The forward op that made the backward nodes `node` in the module at `path` (or below it), by
// sequence number in the latest window that ran them there, the one whose nodes cost most there
// (a dropout's mask and a product both make MulBackward0); where no window placed it there (a
// module no level instrumented), in any module. "" when no window has it.
std::string ForwardOpOf(const std::vector<LabelledWindow>& windows, const ModulePath& path,
                        const std::string& node) {
  for (const bool anywhere : {false, true}) {
    for (auto window = windows.rbegin(); window != windows.rend(); ++window) {
      const std::string forward = CostliestForwardOpOf(window->timeline, window->placements, node,
                                                       anywhere ? ModulePath() : path);
      if (!forward.empty()) return forward;
    }
  }
  return "";
}

// The module that spent the most time in `op`, in the latest window that placed it in one (the
// deepest levels come last); "" when no window did. A CNN's ConvolutionBackward0 runs in every
// layer: its first in time (the last layer's) named a 1x1 output conv for a finding about all of
// them.
std::string ModuleOfOp(const std::vector<LabelledWindow>& windows, const std::string& op) {
  for (auto window = windows.rbegin(); window != windows.rend(); ++window) {
    const std::vector<OpEvent>& ops = window->timeline.ops;
    std::map<ModulePath, TimeNs> time_in;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].name == op && !window->placements.ModuleOf(i).empty()) {
        time_in[window->placements.ModuleOf(i)] += ops[i].end_ns - ops[i].start_ns;
      }
    }
    if (time_in.empty()) continue;
    return std::max_element(time_in.begin(), time_in.end(), [](const auto& a, const auto& b) {
             return a.second < b.second;
           })->first.str();
  }
  return "";
}

}  // namespace

void LocateFindings(std::vector<Finding>& findings, const std::optional<Hotspot>& hotspot,
                    const std::vector<LabelledWindow>& windows, const SourceLocator& locate) {
  for (Finding& finding : findings) {
    if (finding.source) continue;  // the rule named the line (an input stage's piece)
    if (finding.path.empty() && finding.op.empty()) continue;  // about the whole step
    // A finding about an op wherever it runs (deterministic-algorithms-cost on GatherBackward0)
    // is located in the module that ran it.
    const std::string path = finding.path.empty() ? ModuleOfOp(windows, finding.op) : finding.path;
    // A door that cannot look up sources any more gives its findings at the hot spot's module
    // the hot spot's line, the best it knows.
    if (hotspot && hotspot->source && path == hotspot->path &&
        (finding.op == hotspot->op || (!finding.op.empty() && finding.op == hotspot->forward_op) ||
         !locate)) {
      finding.source = hotspot->source;
      continue;
    }
    if (!locate || path.empty()) continue;
    std::string op = finding.op;
    if (!op.empty() && op.rfind("aten::", 0) != 0) op = ForwardOpOf(windows, path, op);
    if (!finding.op.empty() && op.empty()) continue;
    finding.source = locate(path, op);
  }
}

}  // namespace advisor
