// The facts table: what one run measured, as one plain JSON object that rules read as `facts`
// (read-only), that the report embeds, and that docs/facts.md documents field by field.
//
// Conventions: times in ms per training step, shares as fractions 0..1 of the step's median
// time, memory in MB. A fact that was not measured is absent (nil in Lua), never zero.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/model/run_report.h"

namespace advisor {

// What the run's process environment said, as far as facts need it. The caller reads it (see
// ReadRunEnvironment) so that BuildFacts stays a pure function of its inputs.
struct RunEnvironment {
  std::string cuda_alloc_conf;  // PYTORCH_CUDA_ALLOC_CONF; "" when unset
  // The host malloc's variables where set (ReadHostAllocatorEnvironment).
  std::map<std::string, std::string> host_allocator;
};

// This process's environment.
RunEnvironment ReadRunEnvironment();

nlohmann::json BuildFacts(const RunReport& report, const RunEnvironment& environment = {});

}  // namespace advisor
