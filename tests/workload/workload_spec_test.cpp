#include "engine/workload/workload_spec.h"

#include <gtest/gtest.h>

#include "tests/workload/workload_error.h"

namespace advisor {
namespace {

const char* kValid = R"({
  "inputs": [{"shape": [8, 3, 32, 32], "dtype": "float32", "init": "randn"}],
  "target": {"shape": [8], "dtype": "int64", "high": 10},
  "loss": "cross_entropy",
  "optimizer": {"name": "sgd", "lr": 0.01, "momentum": 0.9},
  "deterministic": true, "seed": 7, "device": "cpu"})";

std::string ErrorOf(const std::string& json) { return testing::WorkloadErrorOf(json); }

TEST(ParseWorkload, ReadsEveryField) {
  const WorkloadSpec spec = ParseWorkload(kValid, "m.pt");
  ASSERT_EQ(spec.inputs.size(), 1u);
  EXPECT_EQ(spec.inputs[0].shape, (std::vector<std::int64_t>{8, 3, 32, 32}));
  EXPECT_EQ(spec.target.init, "randint") << "integer targets default to randint";
  EXPECT_EQ(spec.target.high, 10);
  EXPECT_EQ(spec.loss, "cross_entropy");
  EXPECT_EQ(spec.optimizer.name, "sgd");
  EXPECT_DOUBLE_EQ(spec.optimizer.momentum, 0.9);
  EXPECT_TRUE(spec.deterministic);
  EXPECT_EQ(spec.seed, 7u);
  EXPECT_EQ(spec.batch_size(), 8);
}

TEST(ParseWorkload, ErrorsNameTheSourceAndTheField) {
  EXPECT_EQ(ErrorOf("{").rfind("m.pt:advisor/workload.json: not valid JSON", 0), 0u) << ErrorOf("{");
  EXPECT_EQ(ErrorOf("[]"), "m.pt:advisor/workload.json: top level: expected a JSON object");
  EXPECT_EQ(ErrorOf(R"({"target": {"shape": [1]}, "loss": "mse", "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: top level: missing field \"inputs\"");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4, 0]}], "target": {"shape": [4]}, "loss": "mse",
                       "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: inputs[0].shape[1]: dimensions must be positive, got 0");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4]}], "target": {"shape": [4]}, "loss": "hinge",
                       "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: loss: \"hinge\" is not one of cross_entropy|mse");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4]}], "target": {"shape": [5]}, "loss": "mse",
                       "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: target.shape[0]: must equal the inputs' batch size 4");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4], "dtype": "int64"}], "target": {"shape": [4]},
                       "loss": "mse", "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: inputs[0]: init \"randint\" needs \"high\" greater than "
            "\"low\" (0)");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4]}], "target": {"shape": [4]}, "loss": "mse",
                       "optimizer": {"name": "sgd", "lr": "fast"}})"),
            "m.pt:advisor/workload.json: optimizer.lr: expected a number, got string");
}

TEST(ApplyOverrides, RescalesTheBatchOfEveryTensor) {
  WorkloadOverrides overrides;
  overrides.batch_size = 32;
  overrides.device = "cuda";
  overrides.deterministic = false;
  const WorkloadSpec spec = ApplyOverrides(ParseWorkload(kValid, "m.pt"), overrides);
  EXPECT_EQ(spec.inputs[0].shape, (std::vector<std::int64_t>{32, 3, 32, 32}));
  EXPECT_EQ(spec.target.shape, (std::vector<std::int64_t>{32}));
  EXPECT_EQ(spec.device, "cuda");
  EXPECT_FALSE(spec.deterministic);
}

TEST(ApplyOverrides, RejectsUnknownDevicesAndBadBatches) {
  WorkloadOverrides device;
  device.device = "tpu";
  EXPECT_THROW(ApplyOverrides(ParseWorkload(kValid, "m.pt"), device), WorkloadError);
  WorkloadOverrides batch;
  batch.batch_size = 0;
  EXPECT_THROW(ApplyOverrides(ParseWorkload(kValid, "m.pt"), batch), WorkloadError);
}

}  // namespace
}  // namespace advisor
