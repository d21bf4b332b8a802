// The dataloader-workers recipe as a series: rather than one worker count, it tries 2, 4, 8, ...
// up to the machine's cores, benchmarks each against the workload's own count, and keeps the
// knee: the fewest workers within noise of the fastest. More workers than the knee take cores
// from the step (and memory) for nothing. Door-neutral: a model's worker threads and a script's
// DataLoader(num_workers=N) are both set by the recipe's dataloader_workers override.
#pragma once

#include <functional>
#include <ostream>
#include <vector>

#include "engine/autotest/ab_benchmark.h"
#include "engine/autotest/recipe.h"

namespace advisor {

// A count within this fraction of the fastest count's speedup is as fast, within noise.
inline constexpr double kKneeTolerance = 0.05;

// 2, 4, 8, ... below `cores`, then `cores` itself, leaving out `current` (the baseline's own
// count, measured as the baseline). Empty when no other count fits (cores 1 or fewer).
std::vector<int> LoaderWorkerCounts(int current, int cores);

// The index of the knee among measured `points` (any order): the fewest workers whose speedup
// is within kKneeTolerance of the best; nullopt when none was measured (all failed or skipped).
std::optional<std::size_t> KneeOf(const std::vector<WorkerCountPoint>& points);

// Runs the series of `recipe` (which sets dataloader_workers) through `try_candidate`: one A/B
// benchmark per count against the workload's own count, which joins the series at 1x. Returns
// the knee's result, its FixResult carrying the whole series and the knee; where the knee is the
// workload's own count, the fastest other count's result (knee_workers says the workload's);
// where no count was measured, the last result (its status says why).
AbResult RunLoaderWorkersSeries(const Recipe& recipe, int current_workers, int cores,
                         const std::function<AbResult(const CandidateSpec&, int counts_left)>&
                             try_candidate,
                         std::ostream& progress);

}  // namespace advisor
