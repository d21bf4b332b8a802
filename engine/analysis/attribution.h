// Per-module and per-op cost of one window, from the placed ops. Module costs and a module's top
// ops are medians over the window's steps (a step that lost the CPU to another process does not
// move them, nor choose the hot spot's op); the whole step's op inventory is means per step, so
// its self times add up.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/analysis/placement.h"
#include "engine/timeline/timeline.h"

namespace advisor {

struct Cost {
  double host_ms = 0;  // inclusive host time of top-level ops
  double gpu_ms = 0;   // kernel and memcpy time launched by them (0 without a GPU probe)
  // Of host_ms, the first touches of fresh memory pages (the page faults the ops counted, at the
  // cost of one measured on the host); 0 where not counted (Timeline::page_fault_ns).
  double page_fault_ms = 0;
  Cost& operator+=(const Cost& other) {
    host_ms += other.host_ms;
    gpu_ms += other.gpu_ms;
    page_fault_ms += other.page_fault_ms;
    return *this;
  }
};

struct PhaseCosts {
  Cost data;  // ops on the step's thread while it waited for its batch (the input stage)
  Cost forward;
  Cost backward;
  Cost optimizer;
  Cost loss;  // a script's loss and the backward nodes its ops made (Phase::kLoss)
  Cost& operator[](Phase phase);
  const Cost& operator[](Phase phase) const;
  PhaseCosts& operator+=(const PhaseCosts& other);
};

// One top-level op name inside one module and phase.
struct OpCost {
  std::string name;
  ModulePath module;
  Phase phase = Phase::kOutside;
  double calls = 0;  // per step, the mean
  Cost cost;         // per step: TopOps' the median, StepOps' the mean
  // TopOps' rank: the median step's Work (WindowAttribution::Work), each step's taken alone.
  double work = 0;
  // Host time per step in the op itself, outside the ops it calls (cost.host_ms includes them).
  double self_host_ms = 0;
  // Device time per step of what the op launched itself (cost.gpu_ms includes its callees'): the
  // self device times of all ops add up without double counting. 0 without a GPU probe.
  double self_gpu_ms = 0;
  // Its cost and its self cost (host and device time outside the ops it calls) in each step of
  // the window (TopOps' entries; empty in StepOps'): whether it leads another op in most steps,
  // not only in the middle step.
  std::vector<Cost> by_step;
  std::vector<Cost> self_by_step;
};

// The steps [first, end) of a window: those a module's medians are taken over.
struct StepRange {
  std::size_t first = 0;
  std::size_t end = 0;
};

// One segment's part of a window's attribution, worked out apart from the window's tables
// (WindowAttribution::PartOf): the entries its ops reach and every number they add to each, in
// the ops' order (OrderedSums), so that adding it to the window's (Add) is a few loads and adds
// an op on the one thread that keeps the tables.
class SegmentAttribution {
 public:
  SegmentAttribution();
  ~SegmentAttribution();
  SegmentAttribution(SegmentAttribution&&) noexcept;
  SegmentAttribution& operator=(SegmentAttribution&&) noexcept;

  struct Part;  // what it holds: attribution.cpp's alone

 private:
  friend class WindowAttribution;
  std::unique_ptr<Part> part_;
};

class WindowAttribution {
 public:
  // `gpu_ms_by_op`: device time each op launched itself (same order as timeline.ops), or empty.
  WindowAttribution(const Timeline& timeline, const OpPlacements& placements,
                    const std::vector<double>& gpu_ms_by_op);
  // The same, a segment of the ops at a time (OpSegments): Add each segment's placements in the
  // ops' order, then Finish; only the sums the tables keep per step are held between segments.
  // `timeline` is read until Finish. Every sum is added in the ops' order, as the whole window's:
  // the costs are the same to the last bit.
  WindowAttribution(const Timeline& timeline, bool has_gpu);
  void Add(const OpPlacements& segment, const std::vector<double>& gpu_ms_by_op);
  // The same, the segment's part worked out before (PartOf, of the same timeline and device
  // times).
  void Add(const SegmentAttribution& segment);
  // What Add adds of the segment `placements` places: it reads no table of the window's, so it
  // may run on any thread, for several segments at once.
  static SegmentAttribution PartOf(const Timeline& timeline, const OpPlacements& placements,
                                   const std::vector<double>& gpu_ms_by_op);
  void Finish();
  ~WindowAttribution();

  int steps() const { return steps_; }
  bool has_gpu() const { return has_gpu_; }
  // The cost bisection ranks by: device time when a GPU probe ran, host time otherwise.
  double Rank(const Cost& cost) const { return has_gpu_ ? cost.gpu_ms : cost.host_ms; }
  // The cost an op is ranked by among a module's ops: Rank, less the first touches of fresh pages
  // in its host time. A buffer the allocator handed back to the kernel is faulted in by whichever
  // op writes it first (a CPU's ReluBackward0 took 0.5 ms in some runs and 3.9 ms in others, with
  // 2,300 faults of about 1.2 us each), so the faults say where memory churns, not which op's
  // work costs. Modules keep them: a module's time is what the step spends in it.
  double Work(const Cost& cost) const {
    return has_gpu_ ? cost.gpu_ms : cost.host_ms - cost.page_fault_ms;
  }

  // Modules seen in this window (instrumented and reached by some op).
  std::vector<std::string> Modules() const;
  // Own ops only, and own plus descendants'. "" is everything outside instrumented modules.
  PhaseCosts Self(const ModulePath& path) const;
  PhaseCosts Inclusive(const ModulePath& path) const;
  // Inclusive() of each of `paths`, in their order, in one pass over the modules and their
  // ancestors: asking Inclusive() of every module one by one scans every module for each (a
  // trace's 20,000 sibling modules took 15 s to analyse, 2.8 s at once: docs/benchmarks.md).
  std::vector<PhaseCosts> InclusiveOfEach(const std::vector<ModulePath>& paths) const;
  // The same, each path's medians over its own steps only (`steps[i]` for paths[i]): advisor's
  // trace.json holds every window of a bisection, and each module is timed in the window that
  // measured it (engine/trace_analysis/advisor_window_modules).
  std::vector<PhaseCosts> InclusiveOfEach(const std::vector<ModulePath>& paths,
                                          const std::vector<StepRange>& steps) const;
  PhaseCosts Step() const;  // the whole step, every op
  // The same for one step of the window (0 <= step < steps()): the bisection checks that a
  // level's choice holds step by step, not only in the medians.
  PhaseCosts SelfAt(const ModulePath& path, int step) const;
  PhaseCosts InclusiveAt(const ModulePath& path, int step) const;
  PhaseCosts StepAt(int step) const;
  // Top-level ops inside `path` and its descendants ("" for the whole step but the loss, which is
  // no module's), hottest first by their median step's Work.
  std::vector<OpCost> TopOps(const ModulePath& path) const;
  // Every op of the steps at any depth, merged by name and phase, hottest first; each cost is
  // inclusive of the ops it calls (host time and the device time they launched), and
  // self_host_ms and self_gpu_ms are not. Nested ops are listed beside their callers, so the
  // inclusive costs of different entries may overlap; the self times do not. An op nested in one
  // of its own name (torch 2's aten::std in an aten::std) is part of that call: its entry counts
  // the outermost's calls and time, and every level's self time. A range around the model's
  // forward and backward (PhaseSpanningOps: Lightning's optimizer step around its closure) is an
  // op of the phase it ends in, at its time there.
  const std::vector<OpCost>& StepOps() const { return step_ops_; }

 private:
  // Per step, the summed self costs of the modules `include` accepts.
  std::vector<PhaseCosts> SumPerStep(const std::function<bool(const ModulePath&)>& include) const;

  struct Sums;  // what Add adds to, until Finish

  int steps_ = 0;
  bool has_gpu_ = false;
  const Timeline* timeline_ = nullptr;  // until Finish
  std::unique_ptr<Sums> sums_;          // until Finish
  // Per module, one PhaseCosts per step of the window.
  std::map<ModulePath, std::vector<PhaseCosts>> self_by_step_;
  std::vector<OpCost> ops_;  // top-level ops aggregated by (module, phase, name)
  std::vector<OpCost> step_ops_;
};

}  // namespace advisor
