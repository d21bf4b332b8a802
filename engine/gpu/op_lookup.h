// From GPU work back to the ops that caused it. The op probe pushes each op's correlation id
// (Timeline::CorrelationOf) as CUPTI's external id while the op runs, so an external id names the
// innermost op running when the work was launched.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/analysis/placement.h"
#include "engine/timeline/timeline.h"

namespace advisor {

class OpLookup {
 public:
  explicit OpLookup(const Timeline& timeline);

  // Index into Timeline::ops of the innermost op carrying this id; -1 for 0 or an id no op has.
  int LaunchingOp(std::uint64_t external_id) const;

  // The outermost ATen op or autograd node around ops[op_index] on its thread, or op_index
  // itself: the call the model's code made. aten::item for the copy its
  // aten::_local_scalar_dense launched; GatherBackward0 for the kernels of the ops it runs.
  int CallingOp(int op_index) const { return calling_op_[op_index]; }

 private:
  std::unordered_map<std::uint64_t, int> innermost_by_id_;
  std::vector<int> calling_op_;
};

// Where in the model a piece of GPU work came from, as sync and copy sites report it.
struct WorkOrigin {
  int step = -1;
  Phase phase = Phase::kOutside;
  ModulePath module;  // the launching op's innermost instrumented module, "" when none
  std::string op;     // the calling op's name (OpLookup::CallingOp)
};

// nullopt when no recorded op carries the id.
std::optional<WorkOrigin> OriginOf(std::uint64_t external_id, const OpLookup& lookup,
                                   const Timeline& timeline, const OpPlacements& placements);

}  // namespace advisor
