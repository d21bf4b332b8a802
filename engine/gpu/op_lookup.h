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

// From an external id to the op that launched the work: the innermost op carrying the id. It
// reads the timeline's ids, so the timeline outlives it.
class LaunchingOps {
 public:
  explicit LaunchingOps(const Timeline& timeline);

  // Index into Timeline::ops of the innermost op carrying this id; -1 for 0 or an id no op has.
  int Of(std::uint64_t external_id) const;

 private:
  // Where each op's id is larger than the one before (a trace's, each op's index + 1), an id is
  // found in them: a table of a trace's million ids took a fifth of its window's time.
  const std::vector<std::uint64_t>* ascending_ids_ = nullptr;
  std::unordered_map<std::uint64_t, int> innermost_by_id_;  // otherwise
};

class OpLookup {
 public:
  explicit OpLookup(const Timeline& timeline);

  // Index into Timeline::ops of the innermost op carrying this id; -1 for 0 or an id no op has.
  int LaunchingOp(std::uint64_t external_id) const { return launching_.Of(external_id); }

  // The outermost ATen op or autograd node around ops[op_index] on its thread, or op_index
  // itself: the call the model's code made. aten::item for the copy its
  // aten::_local_scalar_dense launched; GatherBackward0 for the kernels of the ops it runs.
  int CallingOp(int op_index) const { return calling_op_[op_index]; }

 private:
  LaunchingOps launching_;
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
