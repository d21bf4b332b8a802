#include "engine/workload/input_stage_spec.h"

#include <gtest/gtest.h>

#include "engine/workload/workload_spec.h"

namespace advisor {
namespace {

std::string WithStage(const std::string& stage) {
  return R"({"inputs": [{"shape": [4, 3]}], "target": {"shape": [4], "dtype": "int64", "high": 3},
             "loss": "cross_entropy", "optimizer": {"name": "sgd", "lr": 0.1},
             "input_stage": )" +
         stage + "}";
}

std::string ErrorOf(const std::string& stage) {
  try {
    ParseWorkload(WithStage(stage), "m.pt:advisor/workload.json");
  } catch (const WorkloadError& error) {
    return error.what();
  }
  return "";
}

TEST(ParseInputStage, AbsentMeansNoInputStage) {
  const WorkloadSpec spec = ParseWorkload(
      R"({"inputs": [{"shape": [4, 3]}], "target": {"shape": [4, 3]}, "loss": "mse",
          "optimizer": {"name": "sgd", "lr": 0.1}})",
      "m.pt");
  EXPECT_FALSE(spec.input_stage.has_value());
}

TEST(ParseInputStage, ReadsEveryFieldWithDefaults) {
  const WorkloadSpec full = ParseWorkload(
      WithStage(R"({"method": "prepare_batch", "workers": 3, "pin_memory": true})"), "m.pt");
  ASSERT_TRUE(full.input_stage.has_value());
  EXPECT_EQ(full.input_stage->method, "prepare_batch");
  EXPECT_EQ(full.input_stage->workers, 3);
  EXPECT_TRUE(full.input_stage->pin_memory);

  const WorkloadSpec minimal = ParseWorkload(WithStage(R"({"method": "augment"})"), "m.pt");
  EXPECT_EQ(minimal.input_stage->method, "augment");
  EXPECT_EQ(minimal.input_stage->workers, 0);
  EXPECT_FALSE(minimal.input_stage->pin_memory);
}

TEST(ParseInputStage, ErrorsNameTheFileAndTheField) {
  const std::string source = "m.pt:advisor/workload.json: ";
  EXPECT_EQ(ErrorOf("\"prepare_batch\""),
            source + "field 'input_stage' must be an object, got \"prepare_batch\"");
  EXPECT_EQ(ErrorOf("{}"), source + "field 'input_stage.method' is missing");
  EXPECT_EQ(ErrorOf(R"({"method": ""})"),
            source + "field 'input_stage.method' must be a non-empty string, got \"\"");
  EXPECT_EQ(ErrorOf(R"({"method": 3})"),
            source + "field 'input_stage.method' must be a non-empty string, got 3");
  EXPECT_EQ(ErrorOf(R"({"method": "p", "workers": -1})"),
            source + "field 'input_stage.workers' must be an integer from 0 to 256, got -1");
  EXPECT_EQ(ErrorOf(R"({"method": "p", "workers": 2.5})"),
            source + "field 'input_stage.workers' must be an integer from 0 to 256, got 2.5");
  EXPECT_EQ(ErrorOf(R"({"method": "p", "workers": 1000})"),
            source + "field 'input_stage.workers' must be an integer from 0 to 256, got 1000");
  EXPECT_EQ(ErrorOf(R"({"method": "p", "pin_memory": "yes"})"),
            source + "field 'input_stage.pin_memory' must be true or false, got \"yes\"");
  EXPECT_EQ(ErrorOf(R"({"method": "p", "num_workers": 2})"),
            source +
                "field 'input_stage.num_workers' is unknown; allowed: method, workers, "
                "pin_memory");
}

}  // namespace
}  // namespace advisor
