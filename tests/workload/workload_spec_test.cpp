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
  EXPECT_EQ(ErrorOf("{").rfind("m.pt:advisor/workload.json: not valid JSON", 0), 0u)
      << ErrorOf("{");
  EXPECT_EQ(ErrorOf("[]"), "m.pt:advisor/workload.json: top level must be an object, got []");
  EXPECT_EQ(ErrorOf(R"({"target": {"shape": [1]}, "loss": "mse", "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: field 'inputs' is missing");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4, 0]}], "target": {"shape": [4]}, "loss": "mse",
                       "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: field 'inputs[0].shape[1]' must be an integer >= 1, "
            "got 0");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4]}], "target": {"shape": [4]}, "loss": "hinge",
                       "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: field 'loss' must be one of \"cross_entropy\", \"mse\", "
            "got \"hinge\"");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4]}], "target": {"shape": [5]}, "loss": "mse",
                       "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: field 'target.shape[0]' must equal the inputs' batch "
            "size 4");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4], "dtype": "int64"}], "target": {"shape": [4]},
                       "loss": "mse", "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: field 'inputs[0]' with init \"randint\" needs \"high\" "
            "greater than \"low\" (0)");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4]}], "target": {"shape": [4]}, "loss": "mse",
                       "optimizer": {"name": "sgd", "lr": "fast"}})"),
            "m.pt:advisor/workload.json: field 'optimizer.lr' must be a number > 0, got \"fast\"");
}

// Misspelt keys ran silently with the default ("determinstic": true ran non-deterministic); the
// exporter rejected the same file.
TEST(ParseWorkload, UnknownKeysAreRejectedWithTheNearOneSuggested) {
  const std::string head =
      R"({"inputs": [{"shape": [4]}], "target": {"shape": [4]}, "loss": "mse",)";
  EXPECT_EQ(ErrorOf(head + R"( "optimizer": {"name": "sgd"}, "determinstic": true})"),
            "m.pt:advisor/workload.json: field 'determinstic' is unknown (did you mean "
            "'deterministic'?); allowed: inputs, target, loss, optimizer, deterministic, seed, "
            "device, description, source_model, input_stage, autocast, cuda_graphs");
  EXPECT_EQ(ErrorOf(head + R"( "optimizer": {"name": "sgd", "lr": 0.1, "momentun": 0.9}})"),
            "m.pt:advisor/workload.json: field 'optimizer.momentun' is unknown (did you mean "
            "'momentum'?); allowed: name, lr, momentum, weight_decay, foreach");
  EXPECT_EQ(ErrorOf(head + R"( "optimizer": {"name": "adamw", "momentum": 0.9}})"),
            "m.pt:advisor/workload.json: field 'optimizer.momentum' is unknown; allowed: name, "
            "lr, betas, weight_decay, foreach");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4], "dtpye": "float16"}], "target": {"shape": [4]},
                       "loss": "mse", "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: field 'inputs[0].dtpye' is unknown (did you mean "
            "'dtype'?); allowed: shape, dtype, init, low, high");
  EXPECT_EQ(ErrorOf(head + R"( "optimizer": {"name": "sgd"}, "source_model": "timm"})"), "");
}

// Each out-of-range number is one line naming the file and the field, checked as it is read.
TEST(ParseWorkload, NumbersAreRangeCheckedWithTheFieldNamed) {
  const std::string head =
      R"({"inputs": [{"shape": [4]}], "target": {"shape": [4]}, "loss": "mse",)";
  const auto optimizer = [&](const std::string& body) {
    return ErrorOf(head + R"( "optimizer": )" + body + "}");
  };
  EXPECT_EQ(optimizer(R"({"name": "sgd", "lr": 1e400})"),
            "m.pt:advisor/workload.json: field 'optimizer.lr' must be a number a double can "
            "hold, got 1e400");
  EXPECT_EQ(optimizer(R"({"name": "sgd", "lr": 0})"),
            "m.pt:advisor/workload.json: field 'optimizer.lr' must be a number > 0, got 0");
  EXPECT_EQ(optimizer(R"({"name": "sgd", "lr": 0.1, "momentum": -5})"),
            "m.pt:advisor/workload.json: field 'optimizer.momentum' must be a number >= 0, got -5");
  EXPECT_EQ(optimizer(R"({"name": "sgd", "lr": 0.1, "weight_decay": -1e-4})"),
            "m.pt:advisor/workload.json: field 'optimizer.weight_decay' must be a number >= 0, "
            "got -0.0001");
  EXPECT_EQ(optimizer(R"({"name": "adamw", "lr": 0.1, "betas": [0.9, 1.0]})"),
            "m.pt:advisor/workload.json: field 'optimizer.betas[1]' must be a number in [0, 1), "
            "got 1.0");
  EXPECT_EQ(optimizer(R"({"name": "adamw", "lr": 0.1, "betas": [-0.5, 0.9]})"),
            "m.pt:advisor/workload.json: field 'optimizer.betas[0]' must be a number in [0, 1), "
            "got -0.5");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4, 1e999]}], "target": {"shape": [4]}, "loss": "mse",
                       "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: field 'inputs[0].shape[1]' must be a number a double "
            "can hold, got 1e999");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [65536, 65536, 65536]}], "target": {"shape": [65536]},
                       "loss": "mse", "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: field 'inputs[0].shape' is too large: 65536 x 65536 x "
            "65536 elements are more than the 2147483648 (2^31) a workload tensor may have");
  EXPECT_EQ(ErrorOf(R"({"inputs": [{"shape": [4], "dtype": "bool", "init": "randint", "high": 3}],
                       "target": {"shape": [4]}, "loss": "mse", "optimizer": {"name": "sgd"}})"),
            "m.pt:advisor/workload.json: field 'inputs[0]' with init \"randint\" for bool needs "
            "0 <= low < high <= 2, got low 0, high 3");
}

TEST(ApplyOverrides, RejectsABatchSizeThatMakesATensorTooLarge) {
  WorkloadOverrides overrides;
  overrides.batch_size = std::int64_t{1} << 40;
  try {
    ApplyOverrides(ParseWorkload(kValid, "m.pt"), overrides);
    FAIL() << "accepted a batch of 2^40";
  } catch (const WorkloadError& error) {
    EXPECT_EQ(std::string(error.what()),
              "--batch-size 1099511627776: 1099511627776 x 3 x 32 x 32 elements are more than the "
              "2147483648 (2^31) a workload tensor may have");
  }
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
