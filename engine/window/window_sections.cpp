#include "engine/window/window_sections.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "engine/analysis/step_phases.h"
#include "engine/gpu/copy_sites.h"
#include "engine/gpu/device_allocations.h"
#include "engine/gpu/gpu_summary.h"
#include "engine/gpu/sync_sites.h"
#include "engine/util/mean.h"
#include "engine/util/median.h"

namespace advisor {

StepBreakdown StepTimesOf(const std::vector<StepSpan>& steps, std::optional<DataWait>& data) {
  StepBreakdown step;
  if (steps.empty()) return step;
  SetStepTimes(StepMillis(steps), step);
  SetStepPhases(steps, step, data);
  return step;
}

void SetStepTimes(const std::vector<double>& millis, StepBreakdown& step) {
  if (millis.empty()) return;
  step.median_ms = Median(millis);
  step.mean_ms = Mean(millis);
  step.min_ms = *std::min_element(millis.begin(), millis.end());
  step.max_ms = *std::max_element(millis.begin(), millis.end());
  step.samples_ms = millis;
}

namespace {

bool HasLoss(const std::vector<StepSpan>& steps) {
  return std::any_of(steps.begin(), steps.end(),
                     [](const StepSpan& s) { return s.TimeIn(Phase::kLoss) > 0; });
}

// The one mapping from steps' phases to the breakdown's, for the profiled window's and the
// unprofiled steps' alike: the wait for data is its own phase where the run reports one (the door
// knows of an input pipeline), part of the rest otherwise.
StepPhaseTimes PhaseTimesOf(const StepPhases& mean, bool has_loss, bool data_apart) {
  StepPhaseTimes times;
  times.data_ms = data_apart ? std::optional<double>(mean.data_ms) : std::nullopt;
  times.forward_ms = mean.forward_ms;
  times.loss_ms = has_loss ? std::optional<double>(mean.loss_ms) : std::nullopt;
  times.backward_ms = mean.backward_ms;
  times.optimizer_ms = mean.optimizer_ms;
  times.evaluation_ms = mean.evaluation_ms;
  times.rest_ms = mean.rest_ms + (data_apart ? 0.0 : mean.data_ms);
  return times;
}

}  // namespace

void SetStepPhases(const std::vector<StepSpan>& profiled_steps, StepBreakdown& step,
                   std::optional<DataWait>& data) {
  const StepPhases mean = PhasesOfMeanStep(profiled_steps);
  const StepPhaseTimes phases = PhaseTimesOf(mean, HasLoss(profiled_steps), data.has_value());
  step.profiled_ms = mean.step_ms;
  if (data) data->wait_ms = *phases.data_ms;
  step.forward_ms = phases.forward_ms;
  step.loss_ms = phases.loss_ms;
  step.backward_ms = phases.backward_ms;
  step.optimizer_ms = phases.optimizer_ms;
  step.evaluation_ms = phases.evaluation_ms;
  step.rest_ms = phases.rest_ms;
}

void SetTimedPhases(const std::vector<StepSpan>& timed_steps, bool data_apart,
                    StepBreakdown& step) {
  const bool phased = std::any_of(timed_steps.begin(), timed_steps.end(),
                                  [](const StepSpan& s) { return !s.phases.empty(); });
  if (!phased) return;
  step.timed_phases = PhaseTimesOf(PhasesOfMeanStep(timed_steps), HasLoss(timed_steps), data_apart);
}

OpTime ToOpTime(const OpCost& op) {
  OpTime time;
  time.name = op.name;
  time.phase = PhaseName(op.phase);
  time.calls = static_cast<int>(std::lround(op.calls));
  time.ms = op.cost.host_ms;
  time.gpu_ms = op.cost.gpu_ms;
  time.self_ms = op.self_host_ms;
  time.self_gpu_ms = op.self_gpu_ms;
  time.page_fault_ms = op.cost.page_fault_ms;
  return time;
}

void FillWindowSections(const MeasuredWindow& window, const std::optional<DeviceLimits>& limits,
                        RunReport& report, int threads) {
  report.ops.clear();
  for (const OpCost& op : window.attribution->StepOps()) report.ops.push_back(ToOpTime(op));
  if (window.timeline.page_fault_ns > 0) {
    report.run.page_fault_us = window.timeline.page_fault_ns * 1e-3;
    double faults_ms = 0;
    for (const OpCost& op : window.attribution->StepOps()) faults_ms += op.cost.page_fault_ms;
    report.step.page_fault_ms = faults_ms;  // StepOps' are means per step; nested ops count none
  }
  report.gpu = SummariseGpu(window.timeline, limits, threads);
  report.syncs = FindSyncSites(window.timeline, window.placements);
  report.copies = FindCopySites(window.timeline, window.placements);
  if (report.memory) report.memory->num_device_allocs = CountDeviceAllocations(window.timeline);
  for (const ProbeStatus& probe : window.timeline.probes) {
    if (!probe.active) {
      report.data_quality.push_back(probe.probe + " probe inactive: " + probe.detail);
    } else if (probe.probe != "ops" && !probe.detail.empty()) {
      report.data_quality.push_back(probe.probe + ": " + probe.detail);
    }
    if (probe.dropped_records > 0) {
      report.data_quality.push_back(probe.probe + " probe dropped " +
                                    std::to_string(probe.dropped_records) + " records");
    }
  }
}

}  // namespace advisor
