#include "engine/bisect/bisect_policy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "engine/bisect/step_support.h"
#include "engine/util/median.h"
#include "engine/util/printf.h"

namespace advisor {
namespace {

std::string Relative(const std::string& path, const std::string& parent) {
  return parent.empty() ? path : path.substr(parent.size() + 1);
}

// Children reached through a container (parent.blocks.3) form the group parent.blocks.
std::string GroupOf(const std::string& path, const std::string& parent) {
  const std::string relative = Relative(path, parent);
  const std::size_t dot = relative.find('.');
  if (dot == std::string::npos) return "";
  return parent.empty() ? relative.substr(0, dot) : parent + "." + relative.substr(0, dot);
}

struct Anomaly {
  const ChildCost* child = nullptr;
  double excess = 0;
  Phase phase = Phase::kOutside;
  std::string reason;
  // What the excess is, where a hotter row outweighs it: a time beyond what the child's own
  // measurements predict, or a loop's.
  const char* excess_is = "beyond its prediction";
};

// An extra bias or gate in one block is still that block: see kParameterSlack. Buffers are not
// parameters, and neither door counts them.
bool Alike(const ChildCost& a, const ChildCost& b) {
  const auto larger = static_cast<double>(std::max(a.parameters, b.parameters));
  return a.structure == b.structure &&
         std::abs(static_cast<double>(a.parameters - b.parameters)) <= kParameterSlack * larger;
}

// The steps in which `child` stood out from `siblings`: at least kMinOutlierFactor x their median
// in that step, and further from it than any of them strays, up or down. Each step is judged
// against its own noise: a step in which another process held the CPU during one sibling spreads
// the siblings too, and a sibling slowed so in one step stands out in that step alone. Down, as
// well: alike layers of a dilated stack (the zoo's audio_conv1d) ran 2.5 to 10 ms each, every
// step, and the slowest was 1.4x their median.
std::vector<bool> StandsOut(const ChildCost& child, const std::vector<const ChildCost*>& siblings) {
  std::size_t steps = child.steps.size();
  for (const ChildCost* sibling : siblings) steps = std::min(steps, sibling->steps.size());
  std::vector<bool> stood(steps, false);
  for (std::size_t step = 0; step < steps; ++step) {
    std::vector<double> costs;
    for (const ChildCost* sibling : siblings) costs.push_back(sibling->steps[step]);
    const auto [least, most] = std::minmax_element(costs.begin(), costs.end());
    if (*least <= 0) continue;
    const double median = Median(costs);
    const double spread = std::max(*most / median, median / *least);
    const double ratio = child.steps[step] / median;
    stood[step] = ratio >= kMinOutlierFactor && ratio > spread;
  }
  return stood;
}

// Whether `stood` (one flag a step of the window) backs an anomaly: in most steps, in 4 of 5 where
// a child costs more (`contested`), and in the step decided, where one is.
bool StoodInTheWindow(const std::vector<bool>& stood, bool contested, std::optional<int> step,
                      StepSupport& support) {
  support.steps = static_cast<int>(stood.size());
  support.agreeing = static_cast<int>(std::count(stood.begin(), stood.end(), true));
  support.contested = contested;
  const bool in_this_step =
      !step || (*step < support.steps && stood[static_cast<std::size_t>(*step)]);
  return support.Clear() && in_this_step;
}

// The steps in which `child`'s backward went beyond kBackwardRatio x its forward by `min_excess`
// or more. Judged on the window's medians alone, a constant ratio fired on the steps that lost
// the CPU to other processes: an embedding's backward beside a tower holding 90 % of the model
// read 1.5-1.9 ms in three steps and 4.4-5.3 in the other two, and the medians made it the level's
// anomaly; a hand-written GRU encoder's read 1.8-5.0x its forward from step to step.
std::vector<bool> BackwardExceeds(const ChildCost& child, double min_excess) {
  const std::size_t steps = std::min(child.forward_steps.size(), child.backward_steps.size());
  std::vector<bool> exceeded(steps, false);
  for (std::size_t step = 0; step < steps; ++step) {
    exceeded[step] =
        child.backward_steps[step] - kBackwardRatio * child.forward_steps[step] >= min_excess;
  }
  return exceeded;
}

std::optional<Anomaly> LargestAnomaly(const LevelInput& input, double parent_self,
                                      double hottest_cost) {
  const double min_excess = std::max(kMinExcessShare * input.step_cost, parent_self);
  std::optional<Anomaly> best;
  auto consider = [&](Anomaly candidate) {
    if (candidate.excess >= min_excess && (!best || candidate.excess > best->excess)) {
      best = std::move(candidate);
    }
  };
  for (const ChildCost& child : input.children) {
    const double backward_excess = child.backward - kBackwardRatio * child.forward;
    StepSupport exceeding;
    if (backward_excess > 0 &&
        StoodInTheWindow(BackwardExceeds(child, min_excess), child.total() < hottest_cost,
                         input.step, exceeding)) {
      consider({&child, backward_excess, Phase::kBackward,
                Printf("backward takes %.1fx its forward (expected at most %.0fx) in %s: %.3g "
                       "ms/step beyond that",
                       child.forward > 0 ? child.backward / child.forward : 0.0, kBackwardRatio,
                       StepsText(exceeding).c_str(), backward_excess)});
    }
    // A host-bound loop in a child cooler than the hottest: what vectorising it saves at least.
    // Left to the cost rules, the larger legitimate sibling took the level and the descent never
    // came back (bench/user_trial: lightning_docs.py's rolling features, 23-28 % of the step
    // beside the convolutions; hf_trainer_docs.py's token pooling, 22-26 % beside the BERT). The
    // hottest's own loop is no anomaly: it defends the hottest (HotterRowHoldsMore). No phase is
    // named: the loop's backward nodes go with it, and the module's top op is its headline.
    if (child.loop > 0 && child.total() < hottest_cost) {
      consider({&child, child.loop, Phase::kOutside,
                Printf("a host-bound loop of its forward ops takes %.3g ms/step", child.loop),
                "in a host-bound loop of its forward ops"});
    }
    // The yardstick leaves the instance out: with the outlier among them, four blocks of which
    // one is slow put the median halfway to the outlier, and a block twice as slow as its
    // siblings measured 1.8x on a loaded CPU.
    std::vector<const ChildCost*> siblings;
    for (const ChildCost& other : input.children) {
      if (&other != &child && Alike(child, other)) siblings.push_back(&other);
    }
    if (siblings.size() < 2) continue;
    StepSupport standing;
    if (!StoodInTheWindow(StandsOut(child, siblings), false, input.step, standing)) continue;
    std::vector<double> totals;
    for (const ChildCost* sibling : siblings) totals.push_back(sibling->total());
    const double median = Median(totals);
    const Phase phase = child.backward >= child.forward ? Phase::kBackward : Phase::kForward;
    consider({&child, child.total() - median, phase,
              Printf("%.1fx the median of its %zu same-shaped siblings, beyond their own spread "
                     "in %s: %.3g ms/step beyond it",
                     median > 0 ? child.total() / median : 0.0, siblings.size(),
                     StepsText(standing).c_str(), child.total() - median)});
  }
  return best;
}

std::vector<RankedCandidate> Rank(const LevelInput& input) {
  std::map<std::string, RankedCandidate> rows;
  for (const ChildCost& child : input.children) {
    const std::string group = GroupOf(child.path, input.parent);
    RankedCandidate& row = rows[group.empty() ? child.path : group];
    row.path = group.empty() ? child.path : group;
    row.forward += child.forward;
    row.backward += child.backward;
    if (!group.empty()) row.members.push_back(child.path);
  }
  std::vector<RankedCandidate> ranked;
  for (auto& [path, row] : rows) {
    // A "group" of one is just an instance reached through an attribute chain.
    if (row.members.size() == 1) row.members.clear();
    row.share = input.parent_cost > 0 ? (row.forward + row.backward) / input.parent_cost : 0;
    ranked.push_back(std::move(row));
  }
  std::sort(ranked.begin(), ranked.end(), [](const RankedCandidate& a, const RankedCandidate& b) {
    return a.forward + a.backward > b.forward + b.backward;
  });
  return ranked;
}

// The costliest instance of a group, by its forward + backward.
double CostliestMember(const LevelInput& input, const RankedCandidate& group) {
  double most = 0;
  for (const ChildCost& child : input.children) {
    if (std::find(group.members.begin(), group.members.end(), child.path) != group.members.end()) {
      most = std::max(most, child.total());
    }
  }
  return most;
}

// Where the hottest row is a group, the costliest single instance beside it (a row of its own,
// ranked hottest first) when it is the larger place to look: at least kInstanceOverMembers x the
// group's costliest member and kStandoutShare of the parent. nullptr otherwise.
const RankedCandidate* InstanceOverGroup(const LevelInput& input,
                                         const std::vector<RankedCandidate>& ranked) {
  const RankedCandidate& group = ranked.front();
  if (group.members.empty()) return nullptr;
  const auto single = std::find_if(ranked.begin() + 1, ranked.end(),
                                   [](const RankedCandidate& c) { return c.members.empty(); });
  if (single == ranked.end() || single->share < kStandoutShare) return nullptr;
  const double member = CostliestMember(input, group);
  return single->forward + single->backward >= kInstanceOverMembers * member ? &*single : nullptr;
}

// Why the hottest row, another than the anomaly's, holds more that could be saved than the
// anomaly's excess; "" where it is not known to. A descent into it names its op where it is a
// leaf, or where its own ops hold most of it one level down: the larger place to name (fp32_mlp's
// wide Linear beside the next module whose backward is 5.8x its forward; seq_autoencoder.py's
// decoder, 71 % of the model, beside the encoder's O(T^2) select backward). Otherwise its time
// counts against the excess only where some of it is known avoidable: a host-bound loop among
// its ops (recsys_train.py's users tower, 88 % of the model with a loop of 512 means, beside the
// items tower's embedding gradient, 0.63 ms/step beyond 3x its forward), or an anomaly among its
// children. Time spread over legitimate blocks is not: the eager ViT's blocks, 90 % of the step,
// lose to patch_drop's backward excess at 2.6 % of them. Where the hottest is an instance not yet
// looked into, `look_ahead` names it.
std::string HotterRowHoldsMore(const LevelInput& input, const RankedCandidate& hottest,
                               const Anomaly& anomaly, std::string& look_ahead) {
  const ChildCost* instance = nullptr;
  double loop = 0;
  for (const ChildCost& child : input.children) {
    if (child.path == hottest.path) instance = &child;
    if (child.path == hottest.path || std::find(hottest.members.begin(), hottest.members.end(),
                                                child.path) != hottest.members.end()) {
      loop += child.loop;
    }
  }
  if (instance != nullptr && instance->leaf) return "a leaf, its op the larger place to name";
  if (loop > anomaly.excess) {
    return Printf("a host-bound loop of its ops takes %.3g ms/step", loop);
  }
  // A group's members were measured in this window: their anomalies were weighed already.
  if (instance == nullptr) return "";
  if (!input.prospect || input.prospect->path != hottest.path) {
    look_ahead = hottest.path;
    return "";
  }
  if (input.prospect->own_ops_hold_most) {
    return "its own ops hold most of its time one level down, its op the larger place to name";
  }
  if (input.prospect->anomaly_excess > anomaly.excess) {
    return Printf("an anomaly among its children takes %.3g ms/step beyond what they predict",
                  input.prospect->anomaly_excess);
  }
  return "";
}

// The rules after the anomalies: the parent's own ops, a single instance over a group, dominance,
// standing out.
void DecideByCost(const LevelInput& input, LevelDecision& decision) {
  const double parent_self = input.parent_self;
  const RankedCandidate& hottest = decision.candidates.front();
  const double hottest_cost = hottest.forward + hottest.backward;
  if (parent_self >= hottest_cost) {
    decision.reason = Printf("the parent's own ops (%.0f%% of its time) outweigh every child",
                             input.parent_cost > 0 ? 100 * parent_self / input.parent_cost : 0.0);
    return;
  }
  // Instances are compared, not a group's sum with an instance: three even message layers at 19 %
  // each (56 % together) took the level from the one instance at 40 % (issue #33).
  if (const RankedCandidate* single = InstanceOverGroup(input, decision.candidates)) {
    const double member = CostliestMember(input, hottest);
    decision.chosen = single->path;
    decision.reason = Printf(
        "%.1fx the costliest of the %zu instances of %s, %.0f%% of the parent's time: "
        "their %.0f%% is a sum of siblings, each a smaller place",
        member > 0 ? (single->forward + single->backward) / member : 0.0, hottest.members.size(),
        hottest.path.c_str(), 100 * single->share, 100 * hottest.share);
    return;
  }
  const double next_cost = decision.candidates.size() > 1
                               ? decision.candidates[1].forward + decision.candidates[1].backward
                               : 0.0;
  if (hottest.share >= kMajority) {
    decision.reason = Printf("holds %.0f%% of the parent's time", 100 * hottest.share);
  } else if (hottest_cost >= kStandoutFactor * next_cost && hottest.share >= kStandoutShare) {
    decision.reason = Printf("%.1fx the next child, %.0f%% of the parent's time",
                             next_cost > 0 ? hottest_cost / next_cost : 0.0, 100 * hottest.share);
  } else {
    decision.reason =
        Printf("no child holds a clear majority (the hottest has %.0f%%) and none is anomalous",
               100 * hottest.share);
    return;
  }
  decision.chosen = hottest.path;
  decision.chosen_is_group = !hottest.members.empty();
}

}  // namespace

LevelDecision DecideLevel(const LevelInput& input) {
  LevelDecision decision;
  decision.candidates = Rank(input);
  if (decision.candidates.empty()) {
    decision.reason = "no instrumented child ran";
    return decision;
  }
  const RankedCandidate& hottest = decision.candidates.front();
  const std::optional<Anomaly> anomaly =
      LargestAnomaly(input, input.parent_self, hottest.forward + hottest.backward);
  std::string outweighed;  // why the hottest row was preferred to the anomaly beside it
  if (anomaly) {
    const std::string group = GroupOf(anomaly->child->path, input.parent);
    const bool in_group = std::any_of(
        decision.candidates.begin(), decision.candidates.end(),
        [&](const RankedCandidate& c) { return c.path == group && !c.members.empty(); });
    const std::string row = in_group ? group : anomaly->child->path;
    if (row != hottest.path) {
      outweighed = HotterRowHoldsMore(input, hottest, *anomaly, decision.look_ahead);
    }
    if (outweighed.empty()) {
      decision.chosen = row;
      decision.chosen_is_group = in_group;
      decision.chosen_member = in_group ? anomaly->child->path : "";
      decision.phase = anomaly->phase;
      decision.reason = anomaly->child->path + ": " + anomaly->reason;
      return decision;
    }
  }
  DecideByCost(input, decision);
  if (!outweighed.empty()) {
    decision.reason +=
        Printf("; %s's anomaly (%.3g ms/step %s) gives way to %s: %s", anomaly->child->path.c_str(),
               anomaly->excess, anomaly->excess_is, hottest.path.c_str(), outweighed.c_str());
  }
  return decision;
}

Prospect ProspectOf(const LevelInput& level) {
  Prospect prospect;
  prospect.path = level.parent;
  prospect.own_ops_hold_most =
      level.parent_cost > 0 && level.parent_self >= kMajority * level.parent_cost;
  const std::vector<RankedCandidate> ranked = Rank(level);
  const double hottest = ranked.empty() ? 0 : ranked.front().forward + ranked.front().backward;
  if (const std::optional<Anomaly> anomaly = LargestAnomaly(level, level.parent_self, hottest)) {
    prospect.anomaly_excess = anomaly->excess;
  }
  return prospect;
}

}  // namespace advisor
