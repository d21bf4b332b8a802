// Two made-up reports that bracket what a real run can produce, for trying rules without a
// model (`advisor rules check` runs every rule on the facts of both) and for tests.
#pragma once

#include "engine/model/run_report.h"

namespace advisor {

// A CPU run where only the step and op tables exist: no hotspot, no module timings, no GPU,
// memory or data facts. Rules that forget that a fact may be nil fail here.
RunReport SampleReportNothingMeasured();

// A GPU run with every optional fact present, a hotspot and a few modules and ops.
RunReport SampleReportAllMeasured();

}  // namespace advisor
