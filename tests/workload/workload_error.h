// What ParseWorkload says about a workload.json text, for the tests of its error lines.
#pragma once

#include <string>

#include "engine/workload/workload_spec.h"

namespace advisor::testing {

// The one-line error for `json` read as "m.pt:advisor/workload.json", or "" when it parses.
inline std::string WorkloadErrorOf(const std::string& json) {
  try {
    ParseWorkload(json, "m.pt:advisor/workload.json");
  } catch (const WorkloadError& error) {
    return error.what();
  }
  return "";
}

}  // namespace advisor::testing
