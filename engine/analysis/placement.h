// Where each op of a window ran: which step, which phase, inside which instrumented module.
// Computed once from the timeline and shared by attribution, GPU attribution, sync/copy
// localisation and the trace writer.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/timeline/timeline.h"

namespace advisor {

struct ModuleStats;

const char* PhaseName(Phase phase);
// The phase PhaseName names `name`; none for any other name (and for "outside", no phase of a
// step).
std::optional<Phase> PhaseNamed(const std::string& name);

// 20 bytes: a trace places millions of ops.
struct OpPlacement {
  int step = -1;  // index into Timeline::steps; -1 outside every step
  Phase phase = Phase::kOutside;
  // Innermost instrumented module instance, by its index among the window's modules
  // (OpPlacements::ModuleOf); OpPlacements::kNoModule when none.
  std::uint32_t module = 0;
  // The op whose cost this op's is part of: the outermost enclosing op on its thread (itself if
  // none encloses it). An op that encloses a module boundary (a marker on its thread falls inside
  // it: autograd Functions such as activation checkpointing run whole modules inside one op) or,
  // a user's range, runs from one phase of its step into another (a trainer's range around the
  // step: Lightning's optimizer step around its closure) is no op's top level: its cost belongs
  // to the ops inside it, each in its own module and phase, and its own top_level is -1.
  int top_level = -1;
  int parent = -1;  // index of the innermost enclosing op on its thread; -1 at top level
};

// An op's placement with its module spelt out, as one who places ops by hand (a test) gives it.
struct PlacedOp {
  OpPlacement placement;  // its module index is set from `module`
  ModulePath module;
};

// One OpPlacement per Timeline::ops element of a run of them, ops [first(), first() + size()) in
// order (every op of the window, or one segment's: OpSegments), indexed by the op's index
// in the timeline; and the module instances they name, each held once: a window has a few
// hundred, its ops millions, and a ModulePath each was 16 bytes an op.
class OpPlacements {
 public:
  static constexpr std::uint32_t kNoModule = 0;  // "": outside every instrumented module

  OpPlacements() : modules_{ModulePath()} {}
  // `ops` placements, of ops [first, first + ops), each outside every step and module.
  explicit OpPlacements(std::size_t ops, std::size_t first = 0) : OpPlacements() {
    first_ = first;
    places_.resize(ops);
  }
  OpPlacements(std::initializer_list<PlacedOp> placed) : OpPlacements() {
    for (const PlacedOp& op : placed) push_back(op);
  }

  std::size_t first() const { return first_; }  // the index of the first op placed
  std::size_t size() const { return places_.size(); }
  bool empty() const { return places_.empty(); }
  // Op i's placement, first() <= i < first() + size().
  OpPlacement& operator[](std::size_t i) { return places_[i - first_]; }
  const OpPlacement& operator[](std::size_t i) const { return places_[i - first_]; }
  std::vector<OpPlacement>::iterator begin() { return places_.begin(); }
  std::vector<OpPlacement>::iterator end() { return places_.end(); }
  std::vector<OpPlacement>::const_iterator begin() const { return places_.begin(); }
  std::vector<OpPlacement>::const_iterator end() const { return places_.end(); }

  // The module instance op i ran in; "" when none.
  const ModulePath& ModuleOf(std::size_t i) const { return modules_[(*this)[i].module]; }
  // The index OpPlacement::module names `path` by, added the first time it is asked for.
  std::uint32_t IndexOf(const ModulePath& path);
  // Places one more op.
  void push_back(const PlacedOp& op);
  // Places the ops `next` places, those after this run's (next.first() == first() + size()), each
  // naming its module as this run names it.
  void Append(const OpPlacements& next);

 private:
  std::size_t first_ = 0;
  std::vector<OpPlacement> places_;
  std::vector<ModulePath> modules_;  // by index; modules_[kNoModule] is ""
  std::unordered_map<ModulePath, std::uint32_t> index_of_;
};

// A script's loss (Phase::kLoss) holds the ops run between the model's forward and backward()
// and, outside every instrumented module, the backward nodes those ops made (by sequence number)
// with the ops inside them: they run in the backward pass's time, but their cost is the loss's,
// not the model's.
OpPlacements PlaceOps(const Timeline& timeline);

// The ops of a timeline cut into segments that are each placed alone: placed in any order, on
// any thread, several at once, each segment's placements are the placements PlaceOps gives its
// ops, but each segment's module indices are its own (ModuleOf reads them). A segment is the ops
// from one step's start to a later step's, cut where no op spans the cut: an op's enclosing ops
// and top level lie within its segment, and so do the module intervals of every op in a step (a
// thread's close where its items change step), so each is placed as PlaceOps places it. (An op
// outside every step may miss an interval opened outside every step before the cut, on a thread
// with no item in between; nothing reads the module of an op outside the steps.) The ops may be
// out of start order within a segment (a Kineto trace's backward nodes come after its forward
// ops), not across a cut. One segment, PlaceOps', where no step's start can be cut at, the steps
// are out of start order, or a placement needs each backward node's forward op (a backward
// interval without its end marker, a script's loss).
class OpSegments {
 public:
  // Cut on up to `threads` threads: the same segments with any number.
  explicit OpSegments(const Timeline& timeline, int threads = 1);
  ~OpSegments();
  std::size_t size() const;
  // Segment k's placements, 0 <= k < size(), the segments in the ops' order; every op's,
  // PlaceOps', where the timeline is not cut.
  OpPlacements Place(std::size_t k) const;

 private:
  struct Cuts;  // the window's markers and where its segments begin and end

  const Timeline& timeline_;
  std::unique_ptr<const Cuts> cuts_;
};

// The loss's backward, per step (the mean over the timeline's steps): the host time of the
// loss's top-level ops that ran in the backward pass, not in the loss's own stretches.
double LossBackwardMs(const Timeline& timeline, const OpPlacements& placements);

// The top-level forward ops of one module instance: each kind, with the elements of the largest
// tensor input any of its calls took (-1 where the probe recorded none). An attention's
// aten::softmax input is its score matrix, batch x heads x queries x keys.
using ForwardOps = std::map<std::string, std::int64_t>;

// Adds to `by_module` the top-level forward ops of each instrumented module among the ops
// `placements` places: the ops its forward called, those of its submodules included where they
// were not instrumented.
void AddForwardOps(const Timeline& timeline, const OpPlacements& placements,
                   std::map<ModulePath, ForwardOps>& by_module);
// Adds `from`'s forward ops to `into`'s, as AddForwardOps of both their ops adds them, in either
// order: each kind's largest input the larger of the two.
void MergeForwardOps(std::map<ModulePath, ForwardOps>&& from,
                     std::map<ModulePath, ForwardOps>& into);

// A module's facts from its forward ops: `op_types` their kinds, `op_input_elements` the
// elements where recorded.
void SetForwardOps(const ForwardOps& ops, ModuleStats& stats);

}  // namespace advisor
