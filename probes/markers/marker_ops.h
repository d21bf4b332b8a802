// Marker ops: identity operators with their own autograd backward, inserted into TorchScript
// graphs around submodule calls. They give the module-boundary events that Python's forward and
// full backward (pre-)hooks would give, which TorchScript lacks.
//
//   advisor::mark(Tensor[] xs, str path, int kind) -> Tensor[]
//     kind kEnterKind on a call's tensor inputs:  forward -> kForwardEnter,
//                                                 backward -> kBackwardEnd ("after backward")
//     kind kExitKind  on a call's tensor outputs: forward -> kForwardExit,
//                                                 backward -> kBackwardBegin ("before backward")
//   advisor::mark_event(str path, int kind) -> ()
//     the forward event alone, for calls without tensor inputs or outputs.
#pragma once

#include <cstdint>

namespace advisor {

inline constexpr const char* kMarkOp = "advisor::mark";
inline constexpr const char* kMarkEventOp = "advisor::mark_event";
inline constexpr std::int64_t kEnterKind = 0;
inline constexpr std::int64_t kExitKind = 1;

// Referencing this from the instrumentation code keeps the registering object file linked.
void EnsureMarkerOpsRegistered();

}  // namespace advisor
