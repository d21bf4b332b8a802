// A run's profiled windows as one Chrome trace (JSON) in torch.profiler's (Kineto's) shape, so
// that Perfetto, TensorBoard's profiler plugin, HTA and advisor analyze read it as a
// torch.profiler trace: schemaVersion, deviceProperties and distributedInfo where the report
// knows them; cpu_op, user_annotation (ProfilerStep#N, module spans), cuda_runtime, kernel,
// gpu_memcpy and gpu_memset events with Kineto's arguments; ac2g and fwdbwd flows. Each window's
// host side is a process of its own, named after what it instrumented and placed at its real
// time: one track per thread (ops, the CUDA calls they made and the module spans around them)
// and one for the steps and their phases. Each GPU is one process, as in Kineto, with a track per
// stream, each window's work at its time. advisor's own spans (phases, modules' backward, the
// windows) and the findings have category "advisor". Only what the windows recorded is written.
// Times are microseconds from the run's first recorded event (baseTimeNanoseconds).
#pragma once

#include <ostream>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/window/labelled_window.h"

namespace advisor {

// `report` gives the trace's device, ranks and findings.
void WriteChromeTrace(const std::vector<LabelledWindow>& windows, const RunReport& report,
                      std::ostream& out);

}  // namespace advisor
