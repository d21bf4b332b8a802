// A run's profiled windows as one Chrome trace (JSON), for Perfetto or chrome://tracing. Each
// window is a process group of its own, named after what it instrumented and placed at its real
// time: a host process with one track per thread (ops, and the CUDA calls they made), the
// modules on each thread, the steps and their phases; one GPU process per device with a track per
// stream. Flow arrows run from each op to the GPU work it launched and from each forward op to
// the backward node it created (autograd sequence numbers). A "run" process shows where each
// window lies. Times are microseconds from the run's first recorded event.
#pragma once

#include <ostream>
#include <vector>

#include "engine/window/labelled_window.h"

namespace advisor {

void WriteChromeTrace(const std::vector<LabelledWindow>& windows, std::ostream& out);

}  // namespace advisor
