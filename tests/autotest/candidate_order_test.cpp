#include "engine/autotest/candidate_order.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

using Ids = std::vector<std::string>;

RecipeForecast Forecast(const std::string& id, std::optional<double> gain_ms, bool in_run,
                        int benchmarks = 1, bool compile_mode = false) {
  return RecipeForecast{id, gain_ms, in_run, benchmarks, compile_mode};
}

TEST(OrderByGainPerCost, InTheRunFirstThenTheLargestGainPerBenchmark) {
  EXPECT_EQ(OrderByGainPerCost({Forecast("compile", 40.0, false),
                                Forecast("deterministic-off", 5.0, true),
                                Forecast("workers", 60.0, false, /*benchmarks=*/3),
                                Forecast("bf16", 90.0, true), Forecast("pin", 30.0, false)}),
            (Ids{"bf16", "deterministic-off", "compile", "pin", "workers"}))
      << "a series of 3 counts predicted to save 60 ms costs 3 benchmarks: 20 ms each";
}

TEST(OrderByGainPerCost, ThoseWithoutAPredictionFollowInTheOrderGiven) {
  EXPECT_EQ(OrderByGainPerCost({Forecast("a", std::nullopt, false), Forecast("b", 1.0, false),
                                Forecast("c", std::nullopt, false),
                                Forecast("d", std::nullopt, true), Forecast("e", 0.0, false)}),
            (Ids{"d", "b", "e", "a", "c"}));
}

TEST(OrderByGainPerCost, TheCompileModesComeLastWhateverTheirGain) {
  EXPECT_EQ(OrderByGainPerCost({Forecast("max-autotune", 90.0, false, 1, /*compile_mode=*/true),
                                Forecast("pin", std::nullopt, false),
                                Forecast("regional", 95.0, false, 1, /*compile_mode=*/true),
                                Forecast("compile", 40.0, true)}),
            (Ids{"compile", "pin", "regional", "max-autotune"}));
}

TEST(PredictedGainsMs, TheLargestOfTheFindingsThatNameTheRecipe) {
  Finding matmul;
  matmul.recipe = "bf16-autocast";
  matmul.also_recipes = {"tf32-matmul"};
  matmul.expected_gain_ms = 30.0;
  Finding loss = matmul;
  loss.also_recipes.clear();
  loss.expected_gain_ms = 45.0;
  Finding unknown;
  unknown.recipe = "torch-compile";
  const std::map<std::string, double> gains = PredictedGainsMs({matmul, loss, unknown});
  EXPECT_EQ(gains, (std::map<std::string, double>{{"bf16-autocast", 45.0}, {"tf32-matmul", 30.0}}));
}

}  // namespace
}  // namespace advisor
