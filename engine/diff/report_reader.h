// report.json back into a RunReport, for `advisor diff`: the sections a diff compares (the run,
// the step and its phases, the profiled window's and the unprofiled steps', the data wait, what
// the levels ranked by and the device's kernel and copy time, the hot spot, the modules, the
// whole step's ops, the findings, the fixes, and each rank's step with the straggler). A report
// folder is untrusted input (docs/security.md): every field is checked as json_field.h reads it,
// and a bad one is one line naming the file and the field.
#pragma once

#include <cstdint>
#include <string>

#include "engine/model/run_report.h"

namespace advisor {

// Larger than any report advisor writes (a trace's report with 512-byte paths is a few MB).
inline constexpr std::uintmax_t kMaxReportJsonBytes = std::uintmax_t{256} << 20;

// The report at `path` (a report.json file). Throws JsonInputError: "PATH: field 'step.median_ms'
// must be a number >= 0, got \"x\"", "PATH: schema_version 2 is not one this advisor reads (1)",
// "PATH: its step is null: an allocator snapshot's report has no step to compare".
RunReport ReadReportJson(const std::string& path);

}  // namespace advisor
