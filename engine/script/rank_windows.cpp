#include "engine/script/rank_windows.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "engine/gpu/intervals.h"
#include "engine/multi_rank/distributed_summary.h"
#include "engine/trace_analysis/collectives.h"
#include "engine/trace_analysis/event_names.h"
#include "engine/window/measured_window.h"
#include "engine/window/window_sections.h"

namespace advisor {
namespace {

// Communication: gloo's collectives (recorded on gloo's thread from when it takes one up until
// every rank has joined) and the ops that hand them over (c10d::allreduce_, whose time grows
// when the communication thread competes for the cores).
bool IsCollective(const OpEvent& op) { return IsCommunication(op.name.str()); }

// The time the rank spent on its own work over the window's steps: their time less its waits in
// collectives. Ranks in lockstep take equally long per step; the one the others wait for is the
// one that waits least.
TimeNs OwnWorkNs(const Timeline& timeline) {
  std::vector<Interval> collectives;
  for (const OpEvent& op : timeline.ops) {
    if (IsCollective(op)) collectives.push_back({op.start_ns, op.end_ns});
  }
  TimeNs total = 0;
  for (const StepSpan& span : timeline.steps) {
    total += span.end_ns - span.start_ns -
             TotalLength(UnionWithin(collectives, {span.start_ns, span.end_ns}));
  }
  return total;
}

// Communication, which the per-rank summary reads, is waiting for the other ranks rather than the
// rank's own work: placed by time, gloo's ranges would land in whichever module's backward they
// overlap, and the hand-over ops in the module whose gradient filled the bucket. The bisection
// sees the rank's own work.
void RemoveCollectives(Timeline& timeline) { timeline.RemoveOpsIf(IsCollective); }

std::string IndexRange(const std::vector<StepSpan>& spans) {
  if (spans.empty()) return "none";
  return std::to_string(spans.front().index) + "-" + std::to_string(spans.back().index);
}

// One rank's kept windows, placed and attributed, with the report sections the multi-rank
// analysis reads. Built in place: the RankWindow views point into it.
struct MeasuredRank {
  MeasuredWindow baseline;
  std::vector<CollectiveCall> collectives;
  RunReport report;
  MeasuredWindow deepest;
};

void Measure(const Timeline& baseline, const Timeline* deepest, MeasuredRank& rank) {
  rank.baseline = MeasureWindow(baseline);
  // The probe records gloo's collectives as host ranges; nothing describes them further (no
  // process group or sequence number): they are matched across ranks by name and order.
  rank.collectives = CollectivesOf(rank.baseline, HostEvents{}, {});
  // The probe cuts every step at the model's forward: what comes before it is the wait for data.
  rank.report.data = DataWait{};
  rank.report.step = StepTimesOf(rank.baseline.timeline.steps, rank.report.data);
  for (const OpCost& op : rank.baseline.attribution->StepOps()) {
    rank.report.ops.push_back(ToOpTime(op));
  }
  if (deepest == nullptr) return;
  rank.deepest = MeasureWindow(*deepest);
  std::set<ModulePath> paths;
  for (const MarkerEvent& marker : rank.deepest.timeline.markers) paths.insert(marker.path);
  for (const ModulePath& path : paths) {
    ModuleStats module;
    module.path = path.Shown();
    rank.report.modules.push_back(std::move(module));
  }
}

}  // namespace

void RankWindows::CheckAligned(const std::vector<const std::vector<StepSpan>*>& spans) const {
  for (std::size_t r = 1; r < spans.size(); ++r) {
    bool same = spans[r]->size() == spans[0]->size();
    for (std::size_t i = 0; same && i < spans[r]->size(); ++i) {
      same = (*spans[r])[i].index == (*spans[0])[i].index;
    }
    if (!same) {
      throw std::runtime_error("the ranks measured different steps (rank " +
                               std::to_string(ranks_[0]) + ": " + IndexRange(*spans[0]) +
                               ", rank " + std::to_string(ranks_[r]) + ": " +
                               IndexRange(*spans[r]) + ")");
    }
  }
}

std::vector<StepSpan> RankWindows::TimedSteps(std::vector<std::vector<StepSpan>> spans) {
  std::vector<const std::vector<StepSpan>*> views;
  for (const std::vector<StepSpan>& rank : spans) views.push_back(&rank);
  CheckAligned(views);
  if (keeps_) {
    timed_.resize(spans.size());
    for (std::size_t r = 0; r < spans.size(); ++r) {
      timed_[r].insert(timed_[r].end(), spans[r].begin(), spans[r].end());
    }
  }
  std::vector<StepSpan> slowest = spans.front();
  for (std::size_t r = 1; r < spans.size(); ++r) {
    for (std::size_t i = 0; i < slowest.size(); ++i) {
      const StepSpan& step = spans[r][i];
      if (step.end_ns - step.start_ns > slowest[i].end_ns - slowest[i].start_ns) slowest[i] = step;
    }
  }
  return slowest;
}

RecordedWindow RankWindows::Decide(Instrumentation instrumentation,
                                   std::vector<RecordedWindow> windows, bool follows_the_levels) {
  const bool first_baseline =
      instrumentation == Instrumentation::kNone && baseline_.empty() && keeps_;
  std::vector<TimeNs> own_work;
  for (RecordedWindow& window : windows) {
    if (first_baseline) baseline_.push_back(window.timeline);  // with its collectives
    own_work.push_back(OwnWorkNs(window.timeline));
    RemoveCollectives(window.timeline);
  }
  if (windows.size() == 1 && !keeps_) return std::move(windows.front());
  std::vector<const std::vector<StepSpan>*> views;
  for (const RecordedWindow& window : windows) views.push_back(&window.timeline.steps);
  CheckAligned(views);
  const std::size_t slowest = static_cast<std::size_t>(
      std::max_element(own_work.begin(), own_work.end()) - own_work.begin());
  if (windows.size() > 1) decided_on_.push_back(ranks_[slowest]);
  if (instrumentation != Instrumentation::kNone && follows_the_levels) {
    deepest_.clear();
    for (std::size_t r = 0; r < windows.size(); ++r) {
      deepest_.push_back(r == slowest ? windows[r].timeline : std::move(windows[r].timeline));
    }
  }
  return std::move(windows[slowest]);
}

RankWindows RankWindows::FromKept(std::vector<int> ranks, std::vector<Timeline> baselines,
                                  std::vector<Timeline> deepest,
                                  std::vector<std::vector<StepSpan>> timed) {
  RankWindows kept(std::move(ranks));
  std::vector<const std::vector<StepSpan>*> views;
  for (const Timeline& baseline : baselines) views.push_back(&baseline.steps);
  kept.CheckAligned(views);
  kept.baseline_ = std::move(baselines);
  kept.deepest_ = std::move(deepest);
  kept.timed_ = std::move(timed);
  return kept;
}

std::string RankWindows::DecisionsNote() const {
  if (decided_on_.empty()) return "";
  std::map<int, int> windows_of_rank;
  for (int rank : decided_on_) ++windows_of_rank[rank];
  std::string note =
      "each window's sections are those of the rank that waited least for the others:";
  const char* separator = " ";
  for (const auto& [rank, windows] : windows_of_rank) {
    note += separator + std::string("rank ") + std::to_string(rank) + " in " +
            std::to_string(windows) + " of " + std::to_string(decided_on_.size()) + " windows";
    separator = ", ";
  }
  return note;
}

std::optional<DistributedSummary> RankWindows::Summarise() const {
  if (ranks_.size() < 2 || baseline_.size() != ranks_.size()) return std::nullopt;
  std::vector<MeasuredRank> measured(ranks_.size());  // not resized below: the views stay valid
  std::vector<RankWindow> windows;
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    MeasuredRank& rank = measured[r];
    Measure(baseline_[r], deepest_.size() == ranks_.size() ? &deepest_[r] : nullptr, rank);
    RankWindow window;
    window.rank = ranks_[r];
    window.distributed = DistributedInfo{"", ranks_[r], static_cast<int>(ranks_.size()), {}};
    window.window = &rank.baseline;
    window.collectives = &rank.collectives;
    window.report = &rank.report;
    window.modules_window = rank.deepest.attribution ? &rank.deepest : &rank.baseline;
    if (timed_.size() == ranks_.size()) window.unprofiled_steps = &timed_[r];
    windows.push_back(std::move(window));
  }
  return SummariseRanks(windows);
}

}  // namespace advisor
