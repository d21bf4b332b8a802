#include "engine/bisect/finding_sources.h"

#include "engine/analysis/attribution.h"
#include "engine/analysis/sequence_numbers.h"

namespace advisor {
namespace {

// The forward op that made the backward node `node` in the module at `path` (or below it), by
// sequence number in the latest window that ran it there; where no window placed it there (a
// module no level instrumented), in any module. "" when no window has it.
std::string ForwardOpOf(const std::vector<TraceWindow>& windows, const std::string& path,
                        const std::string& node) {
  for (const bool anywhere : {false, true}) {
    for (auto window = windows.rbegin(); window != windows.rend(); ++window) {
      const std::vector<OpEvent>& ops = window->timeline.ops;
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].name != node || ops[i].seq_nr < 0) continue;
        if (!anywhere && !IsSameOrDescendant(window->placements[i].module, path)) continue;
        const std::string forward = ForwardOpOf(window->timeline, window->placements, i);
        if (!forward.empty()) return forward;
      }
    }
  }
  return "";
}

// The module that ran `op`, in the latest window that placed it in one (the deepest levels come
// last); "" when no window did.
std::string ModuleOfOp(const std::vector<TraceWindow>& windows, const std::string& op) {
  for (auto window = windows.rbegin(); window != windows.rend(); ++window) {
    const std::vector<OpEvent>& ops = window->timeline.ops;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (ops[i].name == op && !window->placements[i].module.empty()) {
        return window->placements[i].module;
      }
    }
  }
  return "";
}

}  // namespace

void LocateFindings(std::vector<Finding>& findings, const std::optional<Hotspot>& hotspot,
                    const std::vector<TraceWindow>& windows, const SourceLocator& locate) {
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
