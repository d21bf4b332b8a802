// The report sections that one profiled window gives, whichever front door recorded it: the op
// table, the GPU summary, host-device synchronisations, host-to-device copies, device
// allocations, and what the probes said about themselves. `advisor bisect` fills them from its
// uninstrumented baseline window, `advisor analyze` from a trace.
#pragma once

#include <optional>
#include <vector>

#include "engine/analysis/attribution.h"
#include "engine/gpu/device_limits.h"
#include "engine/model/run_report.h"
#include "engine/window/measured_window.h"

namespace advisor {

// Sets report.ops, gpu, syncs and copies from `window`, memory->num_device_allocs where
// report.memory is set, and adds one data_quality line per probe that was inactive, had
// something to say, or dropped records. `limits` feed the occupancy estimate (absent on CPU).
// The GPU's steps are summarised on up to `threads` threads; the sections are the same with any.
void FillWindowSections(const MeasuredWindow& window, const std::optional<DeviceLimits>& limits,
                        RunReport& report, int threads = 1);

// The step's times over `steps` and the phases of their mean step (SetStepTimes, then
// SetStepPhases on the same steps): a trace's breakdown, where the profiled steps are all it has.
StepBreakdown StepTimesOf(const std::vector<StepSpan>& steps, std::optional<DataWait>& data);

// The median, mean, shortest and longest of `millis`, one time per step.
void SetStepTimes(const std::vector<double>& millis, StepBreakdown& step);

// The one mapping from a profiled window's step phases to the breakdown: the phases of the
// window's mean step (PhasesOfMeanStep); the wait for data goes to `data` where there is one (the
// door knows of an input pipeline), to the rest otherwise. A number added to the breakdown is
// measured in engine/analysis/step_phases and set here.
void SetStepPhases(const std::vector<StepSpan>& profiled_steps, StepBreakdown& step,
                   std::optional<DataWait>& data);

// The phases of the unprofiled steps the step's times are of (step.timed_phases), mapped as
// SetStepPhases maps the profiled window's: the wait for data apart where `data_apart` (the run
// reports a DataWait). None where no step has phases.
void SetTimedPhases(const std::vector<StepSpan>& timed_steps, bool data_apart, StepBreakdown& step);

// One op's costs as the report shows them: host and device time alike, whichever ranked it.
OpTime ToOpTime(const OpCost& op);

}  // namespace advisor
