#include "engine/autotest/loader_workers_series.h"

#include <algorithm>

#include "engine/util/printf.h"

namespace advisor {

std::vector<int> LoaderWorkerCounts(int current, int cores) {
  std::vector<int> counts;
  for (int count = 2; count < cores; count *= 2) counts.push_back(count);
  if (cores >= 2) counts.push_back(cores);
  counts.erase(std::remove(counts.begin(), counts.end(), current), counts.end());
  return counts;
}

std::optional<std::size_t> KneeOf(const std::vector<WorkerCountPoint>& points) {
  double best = 0;
  for (const WorkerCountPoint& point : points) best = std::max(best, point.speedup);
  if (best <= 0) return std::nullopt;
  std::optional<std::size_t> knee;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].speedup <= 0 || points[i].speedup < best * (1.0 - kKneeTolerance)) continue;
    if (!knee || points[i].workers < points[*knee].workers) knee = i;
  }
  return knee;
}

AbResult RunLoaderWorkersSeries(const Recipe& recipe, int current_workers, int cores,
                         const std::function<AbResult(const CandidateSpec&, int counts_left)>&
                             try_candidate,
                         std::ostream& progress) {
  const std::vector<int> counts = LoaderWorkerCounts(current_workers, cores);
  progress << "[autotest] " << recipe.id << ": trying " << counts.size()
           << " worker count(s) up to the " << cores << " cores\n";
  std::vector<AbResult> results;
  std::vector<WorkerCountPoint> points;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    CandidateSpec candidate = CombineRecipes({&recipe});
    candidate.overrides.dataloader_workers = ThreadCount{counts[i]};
    progress << "[autotest] " << recipe.id << ": " << counts[i] << " workers\n";
    AbResult result = try_candidate(candidate, static_cast<int>(counts.size() - i - 1));
    const bool measured = result.fix.status == fix_status::kVerified ||
                          result.fix.status == fix_status::kNoChange ||
                          (result.fix.status == fix_status::kRejected && result.fix.speedup > 0);
    WorkerCountPoint point;
    point.workers = counts[i];
    point.status = result.fix.status;
    if (measured) {
      point.step_ms = ComparedStepMs(result.fix, result.fix.candidate);
      point.speedup = result.fix.speedup;
      point.samples_per_s = result.candidate_samples_per_s;
    }
    points.push_back(point);
    results.push_back(std::move(result));
  }
  if (results.empty()) {
    FixResult fix = NewFixResult(CombineRecipes({&recipe}));
    fix.status = fix_status::kSkipped;
    fix.detail = Printf("not applicable: no worker count other than the workload's %d fits %d "
                        "core(s)", current_workers, cores);
    return AbResult{fix, {}, {}};
  }
  // The workload's own count is a point too, at 1x, measured by the first benchmark's baseline:
  // the knee may be where the workload already is.
  for (const AbResult& result : results) {
    if (result.fix.baseline.samples == 0) continue;
    WorkerCountPoint own;
    own.workers = current_workers;
    own.step_ms = ComparedStepMs(result.fix, result.fix.baseline);
    own.speedup = 1.0;
    own.samples_per_s = result.baseline_samples_per_s;
    own.status = "baseline";
    points.insert(std::find_if(points.begin(), points.end(),
                               [&](const WorkerCountPoint& point) {
                                 return point.workers > current_workers;
                               }),
                  own);
    break;
  }
  const std::optional<std::size_t> knee = KneeOf(points);
  // The knee's own benchmark; where the knee is the workload's count, the fastest other count's.
  std::size_t chosen_index = results.size() - 1;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (knee && counts[i] == points[*knee].workers) chosen_index = i;
  }
  if (knee && points[*knee].workers == current_workers) {
    for (std::size_t i = 0; i < results.size(); ++i) {
      if (results[i].fix.speedup > results[chosen_index].fix.speedup) chosen_index = i;
    }
  }
  AbResult chosen = results[chosen_index];
  chosen.fix.worker_series = points;
  if (knee) {
    chosen.fix.knee_workers = points[*knee].workers;
    const auto best = std::max_element(points.begin(), points.end(),
        [](const WorkerCountPoint& a, const WorkerCountPoint& b) { return a.speedup < b.speedup; });
    // Where the knee is the workload's own count the recipe changes nothing worth having: its
    // status is the fastest other count's verdict, and the text says the count is kept.
    const std::string knee_text =
        points[*knee].workers == current_workers
            ? Printf("knee: the workload's own %d workers, kept: no count was more than %.0f%% "
                     "faster (fastest %d, %.2fx)",
                     current_workers, 100 * kKneeTolerance, best->workers, best->speedup)
            : Printf("knee: %d workers (%.2fx), within %.0f%% of the fastest count, %d (%.2fx)",
                     points[*knee].workers, points[*knee].speedup, 100 * kKneeTolerance,
                     best->workers, best->speedup);
    chosen.fix.detail = knee_text + (chosen.fix.detail.empty() ? "" : "; " + chosen.fix.detail);
    progress << "[autotest] " << recipe.id << ": " << knee_text << "\n";
  }
  return chosen;
}

}  // namespace advisor
