// Module ranges of a trace as the engine's forward markers: a range nested in another on its
// thread is its child, so "nn.Module: Net_0" > "nn.Module: Linear_1" is module Net_0.Linear_1,
// and record_function("encoder") > record_function("attn") is encoder.attn. A label that already
// spells its parent's path and more (record_function("encoder.attn") inside "encoder") is taken
// as the whole path: module containers (ModuleList, ModuleDict) are never called, so labels
// named after module.named_modules() skip them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/host_events.h"

namespace advisor {

struct ModuleMarkers {
  std::vector<MarkerEvent> markers;            // kForwardEnter / kForwardExit per range
  std::map<std::string, std::string> types;    // path -> the module's class, where known
};

ModuleMarkers MarkersOfModuleRanges(std::vector<ModuleRange> ranges);

}  // namespace advisor
