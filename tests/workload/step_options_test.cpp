// The step options of workload.json: autocast, cuda_graphs and optimizer.foreach, each parsed with
// one-line errors and checked against the device and optimizer they need, in the file and after a
// --device override.
#include <gtest/gtest.h>

#include "engine/workload/workload_spec.h"
#include "tests/workload/workload_error.h"

namespace advisor {
namespace {

// A CUDA workload with SGD; `extra` adds top-level fields, `optimizer` replaces the optimizer.
std::string Workload(const std::string& extra,
                     const std::string& optimizer = R"({"name": "sgd", "lr": 0.1})",
                     const std::string& device = "cuda") {
  return R"({"inputs": [{"shape": [4, 8]}], "target": {"shape": [4], "dtype": "int64", "high": 3},
             "loss": "cross_entropy", "optimizer": )" +
         optimizer + R"(, "device": ")" + device + "\"" + (extra.empty() ? "" : ", " + extra) +
         "}";
}

std::string ErrorOf(const std::string& json) { return testing::WorkloadErrorOf(json); }

TEST(StepOptions, DefaultToNoneOfThem) {
  const WorkloadSpec spec = ParseWorkload(Workload(""), "m.pt");
  EXPECT_EQ(spec.autocast, "");
  EXPECT_FALSE(spec.cuda_graphs);
  EXPECT_FALSE(spec.optimizer.foreach);
}

TEST(StepOptions, ReadsAutocastGraphsAndForeach) {
  const WorkloadSpec spec = ParseWorkload(
      Workload(R"("autocast": "bfloat16", "cuda_graphs": true)",
               R"({"name": "sgd", "lr": 0.1, "momentum": 0.9, "foreach": true})"),
      "m.pt");
  EXPECT_EQ(spec.autocast, "bfloat16");
  EXPECT_TRUE(spec.cuda_graphs);
  EXPECT_TRUE(spec.optimizer.foreach);
  EXPECT_EQ(ParseWorkload(Workload(R"("autocast": "float16")"), "m.pt").autocast, "float16");
}

TEST(StepOptions, RejectWrongTypesAndValuesNamingTheField) {
  EXPECT_EQ(ErrorOf(Workload(R"("autocast": "fp8")")),
            "m.pt:advisor/workload.json: field 'autocast' must be one of \"bfloat16\", "
            "\"float16\", got \"fp8\"");
  EXPECT_EQ(ErrorOf(Workload(R"("autocast": true)")),
            "m.pt:advisor/workload.json: field 'autocast' must be one of \"bfloat16\", "
            "\"float16\", got true");
  EXPECT_EQ(ErrorOf(Workload(R"("cuda_graphs": "yes")")),
            "m.pt:advisor/workload.json: field 'cuda_graphs' must be true or false, got \"yes\"");
  EXPECT_EQ(ErrorOf(Workload("", R"({"name": "sgd", "lr": 0.1, "foreach": 1})")),
            "m.pt:advisor/workload.json: field 'optimizer.foreach' must be true or false, got 1");
}

TEST(StepOptions, RejectCombinationsTheStepCannotRun) {
  const std::string misfit = "m.pt:advisor/workload.json: field ";
  EXPECT_EQ(ErrorOf(Workload(R"("autocast": "bfloat16")", R"({"name": "sgd", "lr": 0.1})", "cpu")),
            misfit + "'autocast' does not fit the workload: needs \"device\": \"cuda\" (advisor "
                     "runs autocast on CUDA only)");
  EXPECT_EQ(ErrorOf(Workload(R"("cuda_graphs": true)", R"({"name": "sgd", "lr": 0.1})", "cpu")),
            misfit + "'cuda_graphs' does not fit the workload: needs \"device\": \"cuda\"");
  EXPECT_EQ(ErrorOf(Workload(R"("cuda_graphs": true)", R"({"name": "adamw", "lr": 0.1})")),
            misfit + "'cuda_graphs' does not fit the workload: AdamW computes its bias correction "
                     "from a host-side step count, which a captured graph would freeze; use "
                     "\"sgd\"");
  EXPECT_EQ(ErrorOf(Workload("", R"({"name": "adamw", "lr": 0.1, "foreach": true})")),
            misfit + "'optimizer.foreach' does not fit the workload: only \"sgd\" has a foreach "
                     "implementation, not \"adamw\"");
  EXPECT_EQ(ErrorOf(Workload(R"("cuda_graphs": true, "input_stage": {"method": "prepare"})")),
            misfit + "'cuda_graphs' does not fit the workload: a workload with an input_stage "
                     "takes a new batch every step, which a captured graph would not see (it "
                     "replays on fixed input buffers)");
  // Off is always fine.
  EXPECT_EQ(ErrorOf(Workload(R"("cuda_graphs": false)", R"({"name": "adamw", "lr": 0.1})", "cpu")),
            "");
}

TEST(StepOptions, ADeviceOverrideIsCheckedToo) {
  const WorkloadSpec graphs = ParseWorkload(Workload(R"("cuda_graphs": true)"), "m.pt");
  WorkloadOverrides cpu;
  cpu.device = "cpu";
  try {
    ApplyOverrides(graphs, cpu);
    ADD_FAILURE() << "a CUDA-graph workload moved to the CPU";
  } catch (const WorkloadError& error) {
    EXPECT_STREQ(error.what(), "--device cpu: cuda_graphs: needs \"device\": \"cuda\"");
  }
  WorkloadOverrides batch;
  batch.batch_size = 16;
  EXPECT_TRUE(ApplyOverrides(graphs, batch).cuda_graphs);
}

TEST(StepOptions, WhyStepOptionsDoNotFitChecksASpecBuiltInCode) {
  WorkloadSpec spec = ParseWorkload(Workload("", R"({"name": "sgd", "lr": 0.1})", "cpu"), "m.pt");
  EXPECT_EQ(WhyStepOptionsDoNotFit(spec), "");
  spec.optimizer.foreach = true;
  EXPECT_EQ(WhyStepOptionsDoNotFit(spec), "");  // the foreach SGD runs on the CPU too
  spec.autocast = "bfloat16";
  EXPECT_EQ(WhyStepOptionsDoNotFit(spec),
            "autocast: needs \"device\": \"cuda\" (advisor runs autocast on CUDA only)");
}

}  // namespace
}  // namespace advisor
