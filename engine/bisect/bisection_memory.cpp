#include "engine/bisect/bisection_memory.h"

#include <algorithm>
#include <set>
#include <string>

namespace advisor {
namespace {

bool IsWithin(const std::string& path, const std::string& ancestor) {
  return ancestor.empty() || path == ancestor || path.rfind(ancestor + ".", 0) == 0;
}

// Below this, a climb from step to step is the allocator's noise, not memory kept across steps.
constexpr double kGrowthFloorMb = 1.0 / 1024;

// The MB per step that memory climbed where it climbed at every step's end; none otherwise.
std::optional<double> GrowthPerStep(const std::vector<double>& step_end_mb) {
  if (step_end_mb.size() < 3) return std::nullopt;
  for (std::size_t i = 1; i < step_end_mb.size(); ++i) {
    if (step_end_mb[i] - step_end_mb[i - 1] < kGrowthFloorMb) return std::nullopt;
  }
  return (step_end_mb.back() - step_end_mb.front()) / static_cast<double>(step_end_mb.size() - 1);
}

}  // namespace

BisectionMemory::BisectionMemory(const std::optional<TrainingState>& training_state) {
  if (training_state) {
    resident_.parameter_mb = training_state->parameter_mb;
    resident_.optimizer_state_mb = training_state->optimizer_state_mb;
  }
}

void BisectionMemory::AddBaseline(const Timeline& timeline) {
  baseline_ = AttributeWindowMemory(timeline, resident_);
}

void BisectionMemory::AddLevel(const std::string& parent, const Timeline& timeline) {
  levels_.push_back({parent, AttributeWindowMemory(timeline, resident_)});
}

BisectionMemory::Holder BisectionMemory::NarrowedHolder() const {
  Holder holder;
  if (!baseline_.peak) return holder;
  holder.window = &baseline_;
  holder.tied_with = baseline_.peak->tied_with;
  for (;;) {
    const auto level = std::find_if(levels_.begin(), levels_.end(), [&](const Level& candidate) {
      return candidate.parent == holder.path;
    });
    if (level == levels_.end()) {
      holder.narrowed_fully = false;
      return holder;
    }
    const std::optional<MemoryPeak>& peak = level->memory.peak;
    // The parent's own bytes, or none an instrumented instance made: narrowed as far as it goes.
    if (!peak || peak->path.empty() || peak->path == holder.path ||
        !IsWithin(peak->path, holder.path)) {
      return holder;
    }
    holder.window = &level->memory;
    holder.path = peak->path;
    holder.tied_with.insert(holder.tied_with.end(), peak->tied_with.begin(), peak->tied_with.end());
  }
}

std::optional<std::string> BisectionMemory::NextParent() const {
  const Holder holder = NarrowedHolder();
  if (holder.window == nullptr || holder.narrowed_fully || holder.path.empty()) return std::nullopt;
  return holder.path;
}

std::optional<LabelScope> BisectionMemory::GrowthScope() const {
  if (!GrowthPerStep(baseline_.step_end_mb)) return std::nullopt;
  if (baseline_.kept_phase == Phase::kLoss) return LabelScope{true, ""};
  if (baseline_.kept_phase != Phase::kForward) return std::nullopt;
  for (auto level = levels_.rbegin(); level != levels_.rend(); ++level) {
    if (!level->memory.kept_owner.empty()) return LabelScope{false, level->memory.kept_owner};
  }
  return std::nullopt;
}

void BisectionMemory::Fill(RunReport& report) const {
  const Holder holder = NarrowedHolder();
  if (holder.window == nullptr) return;
  const MemoryPeak& peak = *holder.window->peak;
  if (!report.memory) report.memory.emplace();
  MemoryStats& memory = *report.memory;
  memory.peak = peak;
  memory.peak->tied_with = holder.tied_with;
  memory.timeline = holder.window->timeline;
  if (memory.peak_allocated_mb == 0) memory.peak_allocated_mb = peak.mb;
  // Each instance as the level that compared it with its siblings measured it: there its bytes
  // count its uninstrumented submodules' too.
  std::set<std::string> seen;
  memory.modules.clear();
  for (const Level& level : levels_) {
    for (const ModuleMemory& module : level.memory.modules) {
      if (seen.insert(module.path).second) memory.modules.push_back(module);
    }
  }
  std::stable_sort(memory.modules.begin(), memory.modules.end(),
                   [](const ModuleMemory& a, const ModuleMemory& b) {
                     return a.kept_for_backward_mb.value_or(0) > b.kept_for_backward_mb.value_or(0);
                   });
  memory.growth_mb_per_step = GrowthPerStep(baseline_.step_end_mb);
}

}  // namespace advisor
