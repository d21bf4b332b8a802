// The order the autotest tries recipes in: by what each is predicted to save per second of
// measurement it costs, so that a budget that runs out leaves out the least promising ones, not
// whichever the findings happened to list last.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/model/finding.h"

namespace advisor {

// What the autotest expects of one recipe before measuring it.
struct RecipeForecast {
  std::string id;
  // The time per step its findings predict it saves (the largest, where several name it); none
  // where no rule could estimate it.
  std::optional<double> gain_ms;
  // Measured in blocks inside one run of the script: seconds of steps, where a benchmark in
  // processes costs a start-up per side per round.
  bool in_run = false;
  // The benchmarks in processes it takes: one, or one per count of a series.
  int benchmarks = 1;
  // torch.compile in a costlier form (max-autotune, reduce-overhead, regional): its compile takes
  // the longest of any candidate's, and whether to try it at all waits for plain torch.compile's
  // verdict, so it goes after every other recipe.
  bool compile_mode = false;
};

// By recipe id, the largest expected_gain_ms of the findings that name it.
std::map<std::string, double> PredictedGainsMs(const std::vector<Finding>& findings);

// The ids of `forecasts`: those measured inside the run first, then the rest, then the compile
// modes; within each, the largest predicted gain per benchmark first, then those without a
// prediction in the order given.
std::vector<std::string> OrderByGainPerCost(std::vector<RecipeForecast> forecasts);

}  // namespace advisor
