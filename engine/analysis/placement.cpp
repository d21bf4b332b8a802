#include "engine/analysis/placement.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <utility>

#include "engine/analysis/sequence_numbers.h"
#include "engine/model/localisation.h"
#include "engine/util/parallel_for.h"

namespace advisor {
namespace {

int StepAt(const std::vector<StepSpan>& steps, TimeNs time) {
  // Steps are few and in order; the last one starting at or before `time` may contain it.
  auto after = std::upper_bound(steps.begin(), steps.end(), time,
                                [](TimeNs t, const StepSpan& s) { return t < s.start_ns; });
  if (after == steps.begin()) return -1;
  const StepSpan& step = *std::prev(after);
  return time <= step.end_ns ? static_cast<int>(std::prev(after) - steps.begin()) : -1;
}

// One thread's module intervals, replayed in time order against its ops.
class ThreadModules {
 public:
  ThreadModules(const std::set<ModulePath>& paths_with_backward_end, OpPlacements& placements)
      : paths_with_backward_end_(paths_with_backward_end), placements_(placements) {}

  void Apply(const MarkerEvent& marker) {
    switch (marker.kind) {
      case MarkerKind::kForwardEnter:
        stack_.push_back({marker.path, false, placements_.IndexOf(marker.path)});
        break;
      case MarkerKind::kForwardExit:
        PopThrough(marker.path);
        break;
      case MarkerKind::kBackwardBegin:
        // A module whose input gradient is never computed (its inputs need no gradient) sends no
        // kBackwardEnd; its interval ends where another module's, not a descendant's, begins.
        while (!stack_.empty() && !paths_with_backward_end_.count(stack_.back().path) &&
               (marker.path == stack_.back().path ||
                !IsSameOrDescendant(marker.path, stack_.back().path))) {
          stack_.pop_back();
        }
        stack_.push_back({marker.path, true, placements_.IndexOf(marker.path)});
        break;
      case MarkerKind::kBackwardEnd:
        PopThrough(marker.path);
        break;
    }
  }

  // A backward node whose forward op ran in `made_in` is about to run. A backward interval with no
  // end of its own that does not hold `made_in` ended with its last node: another module's
  // backward may run next without a marker of its own (an uninstrumented tower's beside an
  // embedding fed integer ids, whose interval took that tower's 27 ms).
  void NodeMadeIn(const ModulePath& made_in) {
    while (!stack_.empty() && stack_.back().backward &&
           !paths_with_backward_end_.count(stack_.back().path) &&
           !IsSameOrDescendant(made_in, stack_.back().path)) {
      stack_.pop_back();
    }
  }

  void ClosePhase() { stack_.clear(); }
  // The innermost open interval's module, as OpPlacement::module names it.
  std::uint32_t Innermost() const {
    return stack_.empty() ? OpPlacements::kNoModule : stack_.back().module;
  }

 private:
  struct Interval {
    ModulePath path;
    bool backward;
    std::uint32_t module;  // path's index in the placements
  };

  void PopThrough(const ModulePath& path) {
    auto it = std::find_if(stack_.rbegin(), stack_.rend(),
                           [&](const Interval& open) { return open.path == path; });
    if (it == stack_.rend()) return;  // its opening marker fell outside the window
    stack_.erase(std::prev(it.base()), stack_.end());
  }

  const std::set<ModulePath>& paths_with_backward_end_;
  OpPlacements& placements_;
  std::vector<Interval> stack_;
};

// Markers and op starts of one thread, merged in time order (a marker before an op at a tie).
// 4 bytes, the time read from the event: a trace's threads hold one for each of its millions of
// ops, and with the ops and their placements they are the window's peak. An index into
// Timeline::markers or ops, which OpPlacement counts in an int: the top bit is free to say which.
class Item {
 public:
  static Item Marker(std::size_t index) {
    return Item(static_cast<std::uint32_t>(index) | kMarker);
  }
  static Item Op(std::size_t index) { return Item(static_cast<std::uint32_t>(index)); }
  bool marker() const { return (bits_ & kMarker) != 0; }
  std::uint32_t index() const { return bits_ & ~kMarker; }

 private:
  static constexpr std::uint32_t kMarker = 1u << 31;
  explicit Item(std::uint32_t bits) : bits_(bits) {}
  std::uint32_t bits_;
};
static_assert(sizeof(Item) == 4, "a trace's threads hold one for each of its millions of ops");

// The time an item is placed at: its marker's, or its op's start.
TimeNs TimeOf(const Timeline& timeline, const Item& item) {
  return item.marker() ? timeline.markers[item.index()].time_ns
                       : timeline.ops[item.index()].start_ns;
}

// Calls visit(by_thread[op.thread], i) for each op i of [first, last): runs of one thread's ops,
// most of a trace's, look their thread up once.
template <typename ByThread, typename Visit>
void ForEachOpByThread(const Timeline& timeline, std::size_t first, std::size_t last,
                       ByThread& by_thread, Visit visit) {
  typename ByThread::mapped_type* entry = nullptr;
  ThreadId thread = 0;
  for (std::size_t i = first; i < last; ++i) {
    if (entry == nullptr || timeline.ops[i].thread != thread) {
      thread = timeline.ops[i].thread;
      entry = &by_thread[thread];
    }
    visit(*entry, i);
  }
}

// Whether `op`, a user's range that starts in `step`, runs on into another of its phases: a
// trainer's range around the whole step (Lightning's optimizer step around its closure's forward
// and backward). Not an ATen op: one on another thread (a DataLoader's pin_memory beside the
// backward) runs beside the step's phases, not around them.
bool EntersAnotherPhase(const StepSpan& step, const OpEvent& op) {
  if (op.scope != OpScope::kUser) return false;
  const Phase phase = step.PhaseAt(op.start_ns);
  return std::any_of(step.phases.begin(), step.phases.end(), [&](const PhaseSpan& span) {
    return op.start_ns < span.start_ns && span.start_ns < op.end_ns && span.phase != phase;
  });
}

// Places the ops of one thread's `items`. With `creator` (CreatingForwardOps), a backward interval
// without an end marker ends before the first top-level backward node made outside it.
// `encloses_boundary`: by op from placements.first(), whether a marker or a change of its step's
// phase falls inside it; a segment's own, as segments are placed on several threads at once.
void PlaceThread(const Timeline& timeline, const std::vector<Item>& items,
                 const std::set<ModulePath>& paths_with_backward_end,
                 const std::vector<int>* creator, OpPlacements& placements,
                 std::vector<bool>& encloses_boundary) {
  ThreadModules modules(paths_with_backward_end, placements);
  std::pair<int, Phase> current_phase{-2, Phase::kOutside};
  std::vector<std::size_t> open_ops;  // enclosing ops, outermost first
  for (const Item& item : items) {
    const TimeNs time = TimeOf(timeline, item);
    const int step = StepAt(timeline.steps, time);
    const Phase phase = step < 0 ? Phase::kOutside : timeline.steps[step].PhaseAt(time);
    if (std::make_pair(step, phase) != current_phase) {
      modules.ClosePhase();  // module intervals never span a phase boundary
      current_phase = {step, phase};
    }
    if (item.marker()) {
      const MarkerEvent& marker = timeline.markers[item.index()];
      modules.Apply(marker);
      for (std::size_t open : open_ops) {
        const OpEvent& enclosing = timeline.ops[open];
        if (enclosing.start_ns < marker.time_ns && marker.time_ns < enclosing.end_ns) {
          encloses_boundary[open - placements.first()] = true;
        }
      }
      continue;
    }
    const std::uint32_t i = item.index();
    const OpEvent& op = timeline.ops[i];
    while (!open_ops.empty() && timeline.ops[open_ops.back()].end_ns <= op.start_ns) {
      open_ops.pop_back();
    }
    if (creator != nullptr && open_ops.empty() && op.scope == OpScope::kBackward &&
        (*creator)[i] >= 0) {
      modules.NodeMadeIn(placements.ModuleOf((*creator)[i]));
    }
    OpPlacement& placement = placements[i];
    placement.step = step;
    placement.phase = phase;
    placement.module = modules.Innermost();
    placement.parent = open_ops.empty() ? -1 : static_cast<int>(open_ops.back());
    if (step >= 0 && EntersAnotherPhase(timeline.steps[step], op)) {
      encloses_boundary[i - placements.first()] = true;
    }
    open_ops.push_back(i);
  }
  // Parents come before their children (the ops are in start order): one pass finds each op's
  // top level, over the items again rather than a list of the thread's ops (8 bytes an op).
  for (const Item& item : items) {
    if (item.marker()) continue;
    const std::size_t i = item.index();
    OpPlacement& placement = placements[i];
    if (encloses_boundary[i - placements.first()]) {
      placement.top_level = -1;
    } else if (placement.parent < 0 ||
               encloses_boundary[static_cast<std::size_t>(placement.parent) - placements.first()]) {
      placement.top_level = static_cast<int>(i);
    } else {
      placement.top_level = placements[placement.parent].top_level;
    }
  }
}

// The loss's backward (PlaceOps): of the top-level ops of the backward phase outside every
// instrumented module, the nodes whose forward op ran in the loss, and the ops the autograd engine
// runs between nodes without a node of their own (the aten::add that sums two gradients of one
// tensor: a loss that indexes one row per anchor made 257 a step), which go with the node before
// them on their thread; then the ops inside them (their top level).
void PlaceLossBackward(const Timeline& timeline, const std::vector<int>& creator,
                       OpPlacements& placements) {
  std::map<ThreadId, std::vector<std::size_t>> by_thread;  // the candidates, in start order
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    const OpPlacement& placement = placements[i];
    if (placement.top_level == static_cast<int>(i) && placement.module == OpPlacements::kNoModule &&
        placement.phase == Phase::kBackward) {
      by_thread[timeline.ops[i].thread].push_back(i);
    }
  }
  std::vector<bool> of_loss(timeline.ops.size(), false);
  for (auto& [thread, ops] : by_thread) {
    std::stable_sort(ops.begin(), ops.end(), [&](std::size_t a, std::size_t b) {
      return timeline.ops[a].start_ns < timeline.ops[b].start_ns;
    });
    bool after_loss_node = false;
    for (std::size_t i : ops) {
      const OpEvent& op = timeline.ops[i];
      if (op.scope == OpScope::kBackward) {
        after_loss_node = creator[i] >= 0 && placements[creator[i]].phase == Phase::kLoss;
        of_loss[i] = after_loss_node;
      } else if (op.scope == OpScope::kForward && timeline.SequenceOf(i).seq_nr < 0) {
        of_loss[i] = after_loss_node;
      }
    }
  }
  for (OpPlacement& placement : placements) {
    if (placement.step >= 0 && placement.top_level >= 0 && of_loss[placement.top_level]) {
      placement.phase = Phase::kLoss;
    }
  }
}

}  // namespace

std::uint32_t OpPlacements::IndexOf(const ModulePath& path) {
  if (path.empty()) return kNoModule;
  const auto [it, added] = index_of_.try_emplace(path, static_cast<std::uint32_t>(modules_.size()));
  if (added) modules_.push_back(path);
  return it->second;
}

void OpPlacements::push_back(const PlacedOp& op) {
  places_.push_back(op.placement);
  places_.back().module = IndexOf(op.module);
}

void OpPlacements::Append(const OpPlacements& next) {
  if (next.first_ != first_ + places_.size()) {
    throw std::logic_error("OpPlacements::Append: the placements are not of the next ops");
  }
  // A segment names its few modules by indices of its own: each is this run's index once.
  std::vector<std::uint32_t> index_here(next.modules_.size());
  for (std::size_t m = 0; m < next.modules_.size(); ++m) index_here[m] = IndexOf(next.modules_[m]);
  const std::size_t at = places_.size();
  places_.insert(places_.end(), next.places_.begin(), next.places_.end());
  for (auto it = places_.begin() + static_cast<std::ptrdiff_t>(at); it != places_.end(); ++it) {
    it->module = index_here[it->module];
  }
}

const char* PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kData:
      return "data";
    case Phase::kForward:
      return "forward";
    case Phase::kBackward:
      return "backward";
    case Phase::kOptimizer:
      return "optimizer";
    case Phase::kOutside:
      return "outside";
    case Phase::kLoss:
      return "loss";
  }
  return "outside";
}

std::optional<Phase> PhaseNamed(const std::string& name) {
  for (const Phase phase :
       {Phase::kData, Phase::kForward, Phase::kLoss, Phase::kBackward, Phase::kOptimizer}) {
    if (name == PhaseName(phase)) return phase;
  }
  return std::nullopt;
}

namespace {

// What every segment's placing reads of the window's markers.
struct WindowMarkers {
  std::set<ModulePath> paths_with_backward_end;
  std::set<ThreadId> inferred_ends;  // threads where a backward interval opens that no marker ends
};

WindowMarkers WindowMarkersOf(const Timeline& timeline) {
  WindowMarkers window;
  for (const MarkerEvent& marker : timeline.markers) {
    if (marker.kind == MarkerKind::kBackwardEnd) window.paths_with_backward_end.insert(marker.path);
  }
  for (const MarkerEvent& marker : timeline.markers) {
    if (marker.kind == MarkerKind::kBackwardBegin &&
        !window.paths_with_backward_end.count(marker.path)) {
      window.inferred_ends.insert(marker.thread);
    }
  }
  return window;
}

// Each thread's items: its markers then its ops, the markers of `markers` (indices into
// Timeline::markers, in the order to keep at a tie) and the ops [first, last); the number of
// markers beside each.
using ThreadItems = std::map<ThreadId, std::pair<std::vector<Item>, std::size_t>>;

// Each thread's markers of `markers` and ops of [first, last), merged in time order.
ThreadItems ItemsByThread(const Timeline& timeline, const std::vector<std::size_t>& markers,
                          std::size_t first, std::size_t last) {
  ThreadItems by_thread;
  for (const std::size_t i : markers) {
    auto& [items, count] = by_thread[timeline.markers[i].thread];
    items.push_back(Item::Marker(i));
    ++count;
  }
  // Each thread's ops are counted before they are added, so that its items are made room for
  // once: growing to a trace's millions copies them, and holds both copies for a moment.
  std::map<ThreadId, std::size_t> ops_on;
  ForEachOpByThread(timeline, first, last, ops_on,
                    [](std::size_t& count, std::size_t) { ++count; });
  for (const auto& [thread, count] : ops_on) {
    auto& [items, markers_on] = by_thread[thread];
    items.reserve(markers_on + count);
  }
  ForEachOpByThread(timeline, first, last, by_thread, [&](auto& items_and_markers, std::size_t i) {
    items_and_markers.first.push_back(Item::Op(i));
  });

  const auto in_time_order = [&timeline](const Item& a, const Item& b) {
    const TimeNs time_a = TimeOf(timeline, a), time_b = TimeOf(timeline, b);
    return time_a != time_b ? time_a < time_b : a.marker() && !b.marker();
  };
  for (auto& [thread, items_and_markers] : by_thread) {
    std::vector<Item>& items = items_and_markers.first;
    // A trace's millions of ops mostly come in start order: a pass checks, where a stable sort
    // of them all took a buffer as large and many passes. Equal to one stable sort of the whole.
    const auto first_op = items.begin() + static_cast<std::ptrdiff_t>(items_and_markers.second);
    for (const auto& [from, to] :
         {std::make_pair(items.begin(), first_op), std::make_pair(first_op, items.end())}) {
      if (!std::is_sorted(from, to, in_time_order)) std::stable_sort(from, to, in_time_order);
    }
    std::inplace_merge(items.begin(), first_op, items.end(), in_time_order);
  }
  return by_thread;
}

bool HasLoss(const Timeline& timeline) {
  return std::any_of(timeline.steps.begin(), timeline.steps.end(),
                     [](const StepSpan& s) { return s.TimeIn(Phase::kLoss) > 0; });
}

bool StepsInStartOrder(const std::vector<StepSpan>& steps) {
  return std::is_sorted(steps.begin(), steps.end(), [](const StepSpan& a, const StepSpan& b) {
    return a.start_ns < b.start_ns;
  });
}

}  // namespace

OpPlacements PlaceOps(const Timeline& timeline) {
  OpPlacements placements(timeline.ops.size());
  std::vector<bool> encloses_boundary(timeline.ops.size(), false);
  const WindowMarkers window = WindowMarkersOf(timeline);
  std::vector<std::size_t> markers(timeline.markers.size());
  std::iota(markers.begin(), markers.end(), std::size_t{0});
  ThreadItems by_thread = ItemsByThread(timeline, markers, 0, timeline.ops.size());
  for (auto& [thread, items_and_markers] : by_thread) {
    PlaceThread(timeline, items_and_markers.first, window.paths_with_backward_end, nullptr,
                placements, encloses_boundary);
  }
  const bool has_loss = HasLoss(timeline);
  if (window.inferred_ends.empty() && !has_loss) return placements;  // no node needs its forward op
  const std::vector<int> creator = CreatingForwardOps(timeline);
  // Where an interval's end is inferred, its thread is placed again knowing each node's forward
  // op, placed by now on whichever thread ran it: the forward's intervals all have their ends.
  for (ThreadId thread : window.inferred_ends) {
    PlaceThread(timeline, by_thread.at(thread).first, window.paths_with_backward_end, &creator,
                placements, encloses_boundary);
  }
  if (has_loss) PlaceLossBackward(timeline, creator, placements);
  return placements;
}

namespace {

// One segment of OpSegments: the ops [first, last) and the markers between its cuts.
struct Segment {
  std::size_t first = 0;
  std::size_t last = 0;
  std::vector<std::size_t> markers;  // indices into Timeline::markers, in time order
};

// The latest start and the latest end of a run of ops.
struct LatestOf {
  TimeNs start = std::numeric_limits<TimeNs>::min();
  TimeNs end = std::numeric_limits<TimeNs>::min();

  void Add(const OpEvent& op) {
    start = std::max(start, op.start_ns);
    end = std::max(end, op.end_ns);
  }
  void Add(const LatestOf& other) {
    start = std::max(start, other.start);
    end = std::max(end, other.end);
  }
};

// A CPU trace's millions of ops are walked in blocks on the window's threads: enough blocks a
// thread for uneven ones to even out, none too small to be worth a task.
constexpr std::size_t kBlocksPerThread = 4;
constexpr std::size_t kLeastOpsPerBlock = 65536;

// The segments of a timeline whose steps are in start order: cut at each step's start T where
// every op before the cut starts before T and has ended by T, and every op after it starts at or
// after T. No op then encloses an op or marker of the other side, and every thread's module
// intervals close there, its next item being in another step than its last. A few hundred
// segments for millions of ops: their markers, not their placements. The ops are walked in
// blocks on up to `threads` threads (the cuts are those of one walk).
std::vector<Segment> SegmentsOf(const Timeline& timeline, int threads) {
  const std::vector<OpEvent>& ops = timeline.ops;
  const std::size_t n = ops.size();
  const std::size_t blocks =
      threads <= 1 ? 1
                   : std::clamp<std::size_t>(n / kLeastOpsPerBlock, 1,
                                             static_cast<std::size_t>(threads) * kBlocksPerThread);
  const std::size_t block = std::max<std::size_t>(1, (n + blocks - 1) / blocks);
  const auto first_of = [&](std::size_t b) { return std::min(n, b * block); };
  // Each block's latest start and end, and whether its ops (with the next block's first) are in
  // start order.
  std::vector<LatestOf> latest_in(blocks);
  std::vector<char> in_order(blocks, 1);
  ParallelFor(blocks, threads, [&](std::size_t b) {
    for (std::size_t i = first_of(b); i < first_of(b + 1); ++i) {
      latest_in[b].Add(ops[i]);
      if (i + 1 < n && ops[i + 1].start_ns < ops[i].start_ns) in_order[b] = 0;
    }
  });
  // Where the ops are out of start order (Kineto writes a step's backward nodes after its forward
  // ops), the earliest start of the ops from each one on, 8 bytes an op: in start order, an op's
  // own start.
  std::vector<TimeNs> earliest_from;
  if (std::find(in_order.begin(), in_order.end(), 0) != in_order.end()) {
    earliest_from.resize(n);
    TimeNs earliest = std::numeric_limits<TimeNs>::max();
    for (std::size_t i = n; i-- > 0;) {
      earliest = std::min(earliest, ops[i].start_ns);
      earliest_from[i] = earliest;
    }
  }
  const auto earliest_start_from = [&](std::size_t i) {
    return earliest_from.empty() ? ops[i].start_ns : earliest_from[i];
  };
  // Each step's first op from which every op starts at or after the step's start (the earliest
  // starts from each op on never fall), and the latest start and end of the ops before it: each
  // block's steps walked from the block's first op, after the blocks before.
  const std::vector<StepSpan>& steps = timeline.steps;
  std::vector<std::size_t> next_of(steps.size());
  for (std::size_t s = 0; s < steps.size(); ++s) {
    std::size_t low = s == 0 ? 0 : next_of[s - 1], high = n;
    while (low < high) {
      const std::size_t middle = low + (high - low) / 2;
      if (earliest_start_from(middle) < steps[s].start_ns) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    next_of[s] = low;
  }
  std::vector<LatestOf> before_block(blocks);
  for (std::size_t b = 1; b < blocks; ++b) {
    before_block[b] = before_block[b - 1];
    before_block[b].Add(latest_in[b - 1]);
  }
  std::vector<LatestOf> latest_before(steps.size());  // of the ops before next_of[s]
  ParallelFor(blocks, threads, [&](std::size_t b) {
    // The steps whose ops before end in this block: first_of(b) < next_of[s] <= first_of(b + 1).
    const auto from = std::upper_bound(next_of.begin(), next_of.end(), first_of(b));
    const auto to = std::upper_bound(from, next_of.end(), first_of(b + 1));
    LatestOf latest = before_block[b];
    std::size_t i = first_of(b);
    for (auto step = from; step != to; ++step) {
      for (; i < *step; ++i) latest.Add(ops[i]);
      latest_before[static_cast<std::size_t>(step - next_of.begin())] = latest;
    }
  });

  // The markers in time order (at a tie, in the order PlaceOps keeps), taken a segment at a time.
  std::vector<std::size_t> markers(timeline.markers.size());
  std::iota(markers.begin(), markers.end(), std::size_t{0});
  std::stable_sort(markers.begin(), markers.end(), [&timeline](std::size_t a, std::size_t b) {
    return timeline.markers[a].time_ns < timeline.markers[b].time_ns;
  });
  std::vector<Segment> segments;
  auto next_marker = markers.begin();  // the segment's first marker
  const auto cut = [&](std::size_t last, TimeNs at) {
    const auto markers_end = std::lower_bound(
        next_marker, markers.end(), at,
        [&timeline](std::size_t i, TimeNs time) { return timeline.markers[i].time_ns < time; });
    const std::size_t first = segments.empty() ? 0 : segments.back().last;
    segments.push_back({first, last, std::vector<std::size_t>(next_marker, markers_end)});
    next_marker = markers_end;
  };
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const std::size_t next = next_of[s];
    const std::size_t first = segments.empty() ? 0 : segments.back().last;
    if (next > first && next < n && latest_before[s].start < steps[s].start_ns &&
        latest_before[s].end <= steps[s].start_ns) {
      cut(next, steps[s].start_ns);
    }
  }
  cut(n, std::numeric_limits<TimeNs>::max());
  return segments;
}

OpPlacements PlaceSegment(const Timeline& timeline, const WindowMarkers& window,
                          const Segment& segment) {
  OpPlacements placements(segment.last - segment.first, segment.first);
  std::vector<bool> encloses_boundary(placements.size(), false);
  for (auto& [thread, items_and_markers] :
       ItemsByThread(timeline, segment.markers, segment.first, segment.last)) {
    PlaceThread(timeline, items_and_markers.first, window.paths_with_backward_end, nullptr,
                placements, encloses_boundary);
  }
  return placements;
}

}  // namespace

struct OpSegments::Cuts {
  WindowMarkers window;
  bool whole = false;  // not cut: placed as PlaceOps places the window
  std::vector<Segment> segments;
};

OpSegments::OpSegments(const Timeline& timeline, int threads) : timeline_(timeline) {
  auto cuts = std::make_unique<Cuts>();
  cuts->window = WindowMarkersOf(timeline);
  cuts->whole = !cuts->window.inferred_ends.empty() || HasLoss(timeline) ||
                !StepsInStartOrder(timeline.steps);
  if (!cuts->whole) cuts->segments = SegmentsOf(timeline, threads);
  cuts_ = std::move(cuts);
}

OpSegments::~OpSegments() = default;

std::size_t OpSegments::size() const { return cuts_->whole ? 1 : cuts_->segments.size(); }

OpPlacements OpSegments::Place(std::size_t k) const {
  if (cuts_->whole) return PlaceOps(timeline_);
  return PlaceSegment(timeline_, cuts_->window, cuts_->segments.at(k));
}

double LossBackwardMs(const Timeline& timeline, const OpPlacements& placements) {
  if (timeline.steps.empty()) return 0;
  TimeNs total = 0;
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    const OpPlacement& placement = placements[i];
    const OpEvent& op = timeline.ops[i];
    if (placement.phase == Phase::kLoss && placement.step >= 0 &&
        placement.top_level == static_cast<int>(i) &&
        timeline.steps[placement.step].PhaseAt(op.start_ns) != Phase::kLoss) {
      total += op.end_ns - op.start_ns;
    }
  }
  return total * 1e-6 / static_cast<double>(timeline.steps.size());
}

void AddForwardOps(const Timeline& timeline, const OpPlacements& placements,
                   std::map<ModulePath, ForwardOps>& by_module) {
  // Each module's entry by its index in `placements`: found in the map of paths once, not once
  // an op.
  std::vector<ForwardOps*> ops_of;
  for (std::size_t i = placements.first(); i < placements.first() + placements.size(); ++i) {
    const OpPlacement& placement = placements[i];
    if (placement.phase == Phase::kForward && placement.top_level == static_cast<int>(i) &&
        placement.module != OpPlacements::kNoModule) {
      if (ops_of.size() <= placement.module) ops_of.resize(std::size_t{placement.module} + 1);
      ForwardOps*& ops = ops_of[placement.module];
      if (ops == nullptr) ops = &by_module[placements.ModuleOf(i)];
      const std::int64_t elements = timeline.CountsOf(i).input_elements;
      auto [it, added] = ops->try_emplace(timeline.ops[i].name.str(), elements);
      if (!added) it->second = std::max(it->second, elements);
    }
  }
}

void MergeForwardOps(std::map<ModulePath, ForwardOps>&& from,
                     std::map<ModulePath, ForwardOps>& into) {
  for (auto& [module, ops] : from) {
    ForwardOps& merged = into[module];
    for (auto& [kind, elements] : ops) {
      auto [it, added] = merged.try_emplace(kind, elements);
      if (!added) it->second = std::max(it->second, elements);
    }
  }
}

void SetForwardOps(const ForwardOps& ops, ModuleStats& stats) {
  stats.op_types.clear();
  for (const auto& [kind, elements] : ops) {
    stats.op_types.push_back(kind);
    if (elements > 0) stats.op_input_elements[kind] = elements;
  }
}

}  // namespace advisor
