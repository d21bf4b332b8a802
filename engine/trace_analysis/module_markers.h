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

struct ModuleMarkers {
  std::vector<MarkerEvent> markers;            // kForwardEnter / kForwardExit per range
  std::map<std::string, std::string> types;    // path -> the module's class, where known
};

// Every range's path spells its parents', so ranges nested N deep cost O(N^2) bytes: 4,000 nested
// ranges (a 397 KB trace) took 637 MB and wrote a 53 MB report. Real models nest a few dozen
// levels, and their paths fill megabytes.
struct ModuleLimits {
  std::size_t max_depth = 128;
  std::uint64_t max_path_bytes = 256u << 20;  // all the markers' paths together
};

// Past a ModuleLimits bound: "module ranges nest deeper than 128 levels (at 'a.b.c...')".
class ModuleNestingError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

ModuleMarkers MarkersOfModuleRanges(std::vector<ModuleRange> ranges,
                                    const ModuleLimits& limits = {});

}  // namespace advisor
