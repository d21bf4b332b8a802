// Which child of the module under examination holds the avoidable time, decided from one
// window's costs. Pure logic: the bisector (engine/torch) measures, this decides.
//
// A child is chosen, in this order, for:
//   1. an anomaly, the largest excess over what its own measurements predict:
//      - backward excess: backward cost beyond kBackwardRatio x its forward cost (a gather whose
//        deterministic backward sorts, an embedding's scatter), by at least the excess threshold
//        below in most of the window's steps, each step judged alone, and in 4 of 5 where a
//        child costs more (StepSupport's contested choice);
//      - instance excess: one slow block among identical blocks (at least two others of its
//        structure, their parameter counts within kParameterSlack of its own), standing out from
//        them in most of the window's steps, each step judged alone;
//      - a host-bound loop (ChildCost::loop) in a child that costs less than the hottest row: the
//        loop's forward ops are its excess;
//      either only when the excess is at least kMinExcessShare of the step and larger than the
//      parent's own ops (what the parent runs outside its children), and not when the hottest
//      row, another child, holds more that could be saved: it is a leaf, or its own ops hold most
//      of it one level down (its op is the larger place to name: fp32_mlp's wide Linear beside
//      the next module's costly backward), or a host-bound loop of its ops (ChildCost::loop) or
//      an anomaly among its own children costs more than the excess. What it holds one level
//      down takes a look into it (LevelDecision::look_ahead, Prospect). The rules below then
//      decide, the anomaly set aside;
//   2. the parent's own ops outweighing every child stop the descent at the parent;
//   then, where the hottest row is a group, a single instance beside it that costs at least
//   kInstanceOverMembers x each of its members and kStandoutShare of the parent;
//   3. dominance: it holds at least kMajority of the parent's cost;
//   4. standing out: at least kStandoutFactor x the next child and kStandoutShare of the parent.
// Otherwise the descent stops at the parent.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/analysis/placement.h"

namespace advisor {

inline constexpr double kBackwardRatio = 3.0;
inline constexpr double kMinExcessShare = 0.02;
// An instance stands out from its siblings in a step when it costs at least this many times their
// median there, and more than any of them strays from that median, up or down, in the same step:
// the threshold follows the step's spread and this is its floor. A constant 2x, taken on the
// window's medians, missed a block planted at twice its siblings' cost in 2 of 5 runs (1.96x, issue
// #33), and 1.5x on the medians alone let a noisy CPU window pick the wrong block.
inline constexpr double kMinOutlierFactor = 1.5;
// Siblings of one structure whose parameter counts differ by at most this share of the larger are
// alike: an extra bias, scale or gate adds far less work than kMinOutlierFactor asks, where a
// layer of another width (a quarter or more of the parameters) is another block.
inline constexpr double kParameterSlack = 0.1;
// A group of instances (a ModuleList's layers) competes as the sum of its members, except with a
// single instance beside it that costs at least this many times each member (and kStandoutShare
// of the parent): the instance is then the larger place to look, as one block at kMinOutlierFactor
// x its siblings is. The sum of even siblings leads only to the group, whose ops are the blocks'
// own work spread evenly.
inline constexpr double kInstanceOverMembers = kMinOutlierFactor;
inline constexpr double kMajority = 0.5;
inline constexpr double kStandoutFactor = 2.0;
inline constexpr double kStandoutShare = 0.25;

// One instrumented child instance, with its ranked cost per step.
struct ChildCost {
  std::string path;  // full instance path, e.g. "blocks.3"
  // StructureOf(): its type and its children's names and types, whatever TorchScript named them.
  std::string structure;
  double forward = 0;  // the window's median, or the one step's the level is decided from
  double backward = 0;
  bool leaf = false;         // its forward calls no submodule
  long long parameters = 0;  // its own and its descendants'
  // Its forward + backward in each step of the window, whichever the level is decided from: an
  // instance is anomalous on the window's steps, not on one step alone.
  std::vector<double> steps;
  // Its forward and its backward in each step of the window: so is a backward excess.
  std::vector<double> forward_steps;
  std::vector<double> backward_steps;
  // Of its cost, the ops that ran as a host-bound loop (HostLoopCost, the window's): what
  // vectorising a Python loop inside it could save.
  double loop = 0;
  double total() const { return forward + backward; }
};

// What a child holds one level down, from a window that measured its own children: what a
// descent into it could find, set against an anomaly beside it (ProspectOf).
struct Prospect {
  std::string path;           // the child looked into
  double anomaly_excess = 0;  // the largest anomaly among its children; 0 where none
  // Its own ops, outside its children, hold at least kMajority of its time: the descent would
  // name its op there, as at a leaf (a hand-written recurrent decoder beside two small Linears).
  bool own_ops_hold_most = false;
};

struct LevelInput {
  std::string parent;  // "" for the root
  // The step of the window the costs are; none: the window's medians. A step decided alone counts
  // an instance anomalous where the window's steps judge it so and it stood out in this one: a
  // sibling that another process slowed in this step alone is not.
  std::optional<int> step;
  double parent_cost = 0;  // the parent's inclusive forward + backward cost
  double parent_self = 0;  // of which its own ops, outside every child (0 for a container group)
  double step_cost = 0;    // the whole step's cost, for the excess threshold
  std::vector<ChildCost> children;
  // The hottest child's prospect, where the level looked into it (LevelDecision::look_ahead).
  std::optional<Prospect> prospect;
};

// A row of the level's table: a child instance, or a container group such as "blocks"
// (blocks.0 .. blocks.11, called from the parent's own graph).
struct RankedCandidate {
  std::string path;
  double forward = 0;
  double backward = 0;
  double share = 0;                  // of the parent's cost
  std::vector<std::string> members;  // group members; empty for an instance
};

struct LevelDecision {
  std::vector<RankedCandidate> candidates;  // hottest first
  std::string chosen;  // an instance path or a group path; "" when the descent stops
  bool chosen_is_group = false;
  std::string chosen_member;      // when an anomaly picked an instance inside a group
  Phase phase = Phase::kOutside;  // the phase the anomaly is in, where one decided
  std::string reason;
  // The hottest child, where an anomaly beside it was chosen without knowing what the hottest
  // holds one level down: decided again with its Prospect, the choice may change to it.
  std::string look_ahead;
};

LevelDecision DecideLevel(const LevelInput& input);

// What `level` (the children of the module looked into, measured in their own window) shows of
// its parent: the largest anomaly among them and whether its own ops hold most of its time.
Prospect ProspectOf(const LevelInput& level);

}  // namespace advisor
