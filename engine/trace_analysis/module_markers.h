// Module ranges of a trace as the engine's forward markers: a range nested in another on its
// thread is its child, so "nn.Module: Net_0" > "nn.Module: Linear_1" is module Net_0.Linear_1,
// and record_function("encoder") > record_function("attn") is encoder.attn. A label that already
// spells its parent's path and more (record_function("encoder.attn") inside "encoder") is taken
// as the whole path: module containers (ModuleList, ModuleDict) are never called, so labels
// named after module.named_modules() skip them.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/host_events.h"

namespace advisor {

// A range's path is its parent's with its own name added (ModulePath::Child), and the ranges of
// one module share one path: N nested ranges cost O(N) bytes, their names' and a node each.
struct ModuleMarkers {
  std::vector<MarkerEvent> markers;         // kForwardEnter / kForwardExit per range
  std::map<ModulePath, std::string> types;  // path -> the module's class, where known
};

// Real models nest a few dozen levels. What is done per op and per marker in a window (placing
// an op in its module, checking that one module is inside another) walks a path's levels.
struct ModuleLimits {
  std::size_t max_depth = 128;
};

// Past ModuleLimits::max_depth: "module ranges nest deeper than 128 levels (at 'a.b.c...')".
class ModuleNestingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

ModuleMarkers MarkersOfModuleRanges(std::vector<ModuleRange> ranges,
                                    const ModuleLimits& limits = {});

}  // namespace advisor
