// A profiled window built from the engine's structs, in the shape a bisection's window has: three
// 10 ms steps of a small model (encoder with encoder.attn inside it, then head), forward ops with
// sequence numbers, their backward nodes, the optimizer, and module markers both ways. On a GPU,
// each op's CUDA launch call and its kernel, a pageable copy of the batch and the wait for it, a
// memset (the gradients zeroed), and backward on the autograd thread. No window with kernels is
// checked in anywhere, so the trace tests (the round trip through advisor's reader, HTA's and
// TensorBoard's plugin's) build this one.
#pragma once

#include "engine/window/labelled_window.h"

namespace advisor::testing {

// Its steps from `start` on; without `instrumented`, no module markers, as a bisection's
// baseline window has none.
LabelledWindow SampleWindow(bool gpu, TimeNs start = 1'000'000'000, bool instrumented = true);

}  // namespace advisor::testing
