// Where the step's time goes: the bisection's levels and their candidates, the hot spot and its
// ops, the per-module and per-op tables, and the backward ops' cross-check. Sections of RunReport
// (engine/model/run_report.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/finding.h"
#include "engine/model/source_lines.h"

namespace advisor {

struct Candidate {
  std::string path;
  double forward_ms = 0;   // per step, median over the window's steps
  double backward_ms = 0;
  double gpu_ms = 0;       // kernel time attributed to the module; 0 without a GPU probe
  double share = 0;        // of the parent's time at this level, 0..1
  int instances = 1;       // >1 for a container group such as "blocks" (blocks.0 .. blocks.11)
};

// How a level's numbers were measured. Inside a model torch.compile'd whole no marker can sit
// between instances: its levels come from where inductor's kernels came from (the baseline
// window's, the compilation unchanged), or from a window in which the probe compiled the
// instances apart (the measurement changed the compilation); docs/script-mode.md.
enum class LevelMeasure {
  kMarkers,              // a window with markers around the children (eager)
  kRegionalCompilation,  // a window whose instances were compiled alone (advisor_probe/regional)
  kProvenance,           // no window: the baseline's compiled kernels, attributed to instances
};

struct BisectLevel {
  int depth = 0;                 // 1 for the root's children
  std::string parent;            // "" for the root
  std::vector<Candidate> candidates;  // hottest first
  std::string chosen;            // "" when the level stopped the descent
  std::string reason;            // why this child was chosen, or why the descent stopped
  bool reused_window = false;    // measured by the previous level's window (container groups)
  // The median step of the level's window, markers and probes on: what instrumenting this level
  // cost beside step.median_ms. 0 for a reused window.
  double window_step_ms = 0;
  // Steps of the level's window that, each decided alone, lead to the same choice as the
  // window's medians; a level whose steps did not agree was measured again (measured_again).
  int steps_backing = 0;
  bool measured_again = false;
  LevelMeasure measured_by = LevelMeasure::kMarkers;
};

// An elementwise op that wrote many times the elements of its largest input by broadcasting its
// inputs (a - b of [B, T, 1, D] and [B, 1, T, D]: B x T x T x D), with the ops that read that
// temporary right after it (engine/analysis/broadcast_temporaries).
struct BroadcastTemporary {
  std::string path;                 // the module instance it ran in: the deepest a level placed
  std::string op;                   // "aten::sub"
  std::int64_t elements = 0;        // the temporary's
  std::int64_t input_elements = 0;  // its largest input's
  std::vector<std::string> reads;   // the ops that read it, in order ("aten::pow", "aten::sum")
  // It and the ops that read it, forward, and their backward nodes (with the gradient sums the
  // autograd engine runs after them), host time per step: the median over the window's steps.
  double ms = 0;
  double share = 0;  // of the mean step of the window that placed it
};

struct OpTime {
  std::string name;
  std::string phase;  // "forward", "backward", "optimizer"
  int calls = 0;      // per step
  double ms = 0;      // host time per step (inclusive of ops it calls)
  double gpu_ms = 0;  // kernel time per step, of the ops it calls too; 0 without a GPU probe
  double self_ms = 0; // host time per step outside the ops it calls
  // Of ms, first touches of fresh memory pages (RunInfo::page_fault_us); 0 where not counted.
  double page_fault_ms = 0;
  // Device time per step of the kernels and copies the op launched itself, not through the ops
  // it calls: these add up without double counting where gpu_ms does not (AddmmBackward0 and its
  // aten::mm hold the same kernels). 0 without a GPU probe (report.json: null, as gpu_ms); none
  // where a report.json read back predates the field (engine/diff/report_reader).
  std::optional<double> self_gpu_ms = std::nullopt;
};

struct Hotspot {
  std::string path;   // module instance path
  std::string phase;  // "forward", "backward", "optimizer"
  std::string op;     // e.g. "GatherBackward0"
  std::string
      forward_op;     // for backward ops: the forward op that made the node, e.g. "aten::gather"
  // For a kernel inductor generated (a hot spot found by provenance), the ATen ops its name says
  // it fused, as the name lists them: "native_layer_norm_backward_select_backward"; else "".
  std::string fused_ops;
  double ms = 0;      // per step
  double share = 0;   // of the step
  // The instance's forward and backward together, per step and of the step: what changing the
  // module could save, where `ms` is its one op's (the demo's gather is half of its module).
  double module_ms = 0;
  double module_share = 0;
  std::optional<SourceLocation> source;
  // The module's lines in the user's code, heaviest first, where the door labels calls (a script).
  std::vector<SourceLine> lines;
  // The host time of the median call of a view op (aten::slice, aten::view: no arithmetic) the
  // module's labelled lines ran themselves, in us as the lines' op_us, in the same labelled steps:
  // what an op costs beside its work (engine/analysis/view_ops.h: ViewOpMs). None where they ran
  // none.
  std::optional<double> view_op_us;
  // The lines that ran `op` (for a backward node, whose forward ops made it), costliest first;
  // `source` is the first's. Where the door labels calls (a script), else none.
  std::vector<OpLine> op_lines;
  std::vector<OpTime> top_ops;  // the module's top ops, hottest first
  // "high", or "low" when the run's noise or a level's steps left the choice in doubt, for the
  // reasons in RunReport::doubts.
  std::string confidence = "high";
  std::vector<std::string> candidates;  // other places a low-confidence run could not rule out
};

struct CrossCheck {
  // Backward ops whose module by sequence number agrees with their module by markers.
  int backward_ops_checked = 0;
  int backward_ops_agreeing = 0;
  int backward_ops_without_forward = 0;  // e.g. inside DifferentiableGraphBackward
};

// Per module instance seen by any level (facts.modules for the rules).
struct ModuleStats {
  std::string path;
  std::string type;          // TorchScript class name, e.g. "__torch__.timm.layers.PatchDropout"
  double forward_ms = 0;     // per step; 0 when never instrumented (see measured)
  double backward_ms = 0;
  double gpu_ms = 0;
  bool measured = false;     // some level instrumented this module
  std::optional<long long> parameters;  // own and descendants'; absent when unknown (a trace)
  std::vector<std::string> op_types;  // operator kinds its own forward uses, e.g. "aten::gather"
  // Of the ops the windows saw its forward call: the largest tensor input's elements per kind,
  // where the op probe recorded them (an attention's aten::softmax: its score matrix).
  std::map<std::string, std::int64_t> op_input_elements;
  // The median step of the profiled window its times come from (its level's), which can run
  // slower than the job's steps (markers, other work): what `advisor diff` scales its times to
  // the compared step by. 0 where unknown (a trace's modules: the report's own window).
  double window_step_ms = 0;
};

}  // namespace advisor
