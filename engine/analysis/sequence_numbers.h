// Matching backward nodes to the forward ops that created them by autograd sequence number: a
// second, marker-free attribution that names the forward op behind a backward hot spot and
// cross-checks the markers.
#pragma once

#include <string>
#include <vector>

#include "engine/analysis/placement.h"
#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"

namespace advisor {

// For every backward op with a sequence number, the index of the forward op that created its
// node: same forward thread and sequence number, the latest started before it (Kineto's rule);
// -1 for every other op and where the window holds no such forward op.
std::vector<int> CreatingForwardOps(const Timeline& timeline);

// The forward op that created the node `backward` (an index into timeline.ops), reported as the
// outermost op around it, the graph node the model's code called ("aten::linear" for the
// aten::addmm inside it). "" when the window holds no such op.
std::string ForwardOpOf(const Timeline& timeline, const OpPlacements& placements,
                        std::size_t backward);

// The forward op behind the backward nodes named `node` that ran in the module at `path` or below
// it (ForwardOpOf's name for each), the one whose nodes took the most time: a MulBackward0 is made
// by a product's aten::mul and by a dropout's mask alike, and the first node of the name in time
// named whichever ran last in the forward. "" when no such node has its forward op in the window.
std::string CostliestForwardOpOf(const Timeline& timeline, const OpPlacements& placements,
                                 const std::string& node, const ModulePath& path);

// For every top-level backward node: does its module by markers equal the module of its forward
// op by sequence number?
CrossCheck CheckAgainstSequenceNumbers(const Timeline& timeline, const OpPlacements& placements);

// Backward markers from sequence numbers alone, for a timeline that has forward markers only (a
// torch.profiler trace): each top-level backward node is bracketed as the backward of the module
// its forward op ran in (by `placements`, placed with the forward markers). Nodes whose forward op
// is outside every module, or not in the timeline, get none. Placing the ops again with these
// markers added gives backward ops their modules, as a bisection's backward markers would.
std::vector<MarkerEvent> BackwardMarkersFromSequenceNumbers(const Timeline& timeline,
                                                            const OpPlacements& placements);

}  // namespace advisor
