// What a torch.profiler (Kineto) trace says of the run besides its events, as advisor's
// trace.json writes it from the report: deviceProperties, distributedInfo, and the findings as
// annotations. Only what the run measured: a member the report cannot fill is left out.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/window/labelled_window.h"

namespace advisor {

// deviceProperties: one entry per device the windows' GPU work ran on, with the name and memory
// the report knows; an empty array on a CPU run or one without GPU work.
nlohmann::json DevicePropertiesOf(const RunReport& report,
                                  const std::vector<LabelledWindow>& windows);

// distributedInfo of a launcher's job: its backend and world size; null for one process. No
// rank: each window is the slowest rank's (engine/script/rank_windows.h), not one rank's.
nlohmann::json DistributedInfoOf(const RunReport& report);

// Each finding (and the hot spot) as a global instant event of category "advisor" at `ts_us`,
// in process `pid`, so that a viewer shows advisor's conclusions over the trace.
std::vector<nlohmann::json> FindingAnnotations(const RunReport& report, double ts_us, int pid);

}  // namespace advisor
