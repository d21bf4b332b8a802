// Where the hot op's source line points: the model author's code, not torch's own.
#include <gtest/gtest.h>
#include <torch/script.h>

#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/autotest/process.h"
#include "engine/torch/module_tree.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

// The 1-based line of the script that holds `marker`.
int LineOf(const std::string& marker) {
  std::ifstream file(SOURCE_MODELS_SCRIPT);
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    if (line.find(marker) != std::string::npos) return number;
  }
  return -1;
}

const torch::jit::Module& CallsModel() {
  static const std::unique_ptr<testing::ScratchDir> dir = std::make_unique<testing::ScratchDir>();
  static const torch::jit::Module model = [] {
    ProcessSpec spec;
    spec.argv = {ADVISOR_PYTHON, SOURCE_MODELS_SCRIPT, dir->path()};
    spec.timeout = std::chrono::seconds(120);
    const ProcessOutcome outcome = RunProcess(spec);
    if (!outcome.Succeeded()) {
      throw std::runtime_error("exporting the op-source model failed: " + outcome.Describe() +
                               "\n" + outcome.stderr_tail);
    }
    return torch::jit::load(*dir / "calls.pt");
  }();
  return model;
}

TEST(OpSource, AnOpOfTorchsOwnModuleIsShownWhereTheModelCallsIt) {
  // body.0 is an nn.Linear inside an nn.Sequential: its F.linear is in torch/nn/modules/linear.py
  // and the Sequential's call in container.py; the user's line is `h = self.body(x)`.
  const std::optional<SourceLocation> source = FindOpSource(CallsModel(), "body.0", "aten::linear");
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ(source->file, SOURCE_MODELS_SCRIPT);
  EXPECT_EQ(source->line, LineOf("# BODY_LINE"));
  EXPECT_EQ(source->text, "h = self.body(x)  # BODY_LINE");
}

TEST(OpSource, AnOpInTheModelsOwnCodeKeepsItsLine) {
  const std::optional<SourceLocation> source = FindOpSource(CallsModel(), "gate", "aten::sigmoid");
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ(source->file, SOURCE_MODELS_SCRIPT);
  EXPECT_EQ(source->line, LineOf("# GATE_LINE"));
}

TEST(OpSource, AnOpInTorchsFunctionsIsShownWhereTheModelCallsTheFunction) {
  // F.layer_norm's aten::layer_norm sits in torch/nn/functional.py; its inlined call stack holds
  // the model's call, a line inside Norm, not the line that calls Norm.
  const std::optional<SourceLocation> source =
      FindOpSource(CallsModel(), "norm", "aten::layer_norm");
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ(source->file, SOURCE_MODELS_SCRIPT);
  EXPECT_EQ(source->line, LineOf("# NORM_LINE"));
}

TEST(OpSource, AModuleIsShownWhereTheModelCallsIt) {
  const std::optional<SourceLocation> source = FindModuleCallSource(CallsModel(), "norm");
  ASSERT_TRUE(source.has_value());
  EXPECT_EQ(source->line, LineOf("# NORM_CALL_LINE"));
}

TEST(ModuleTree, TypesAreTheClassesTorchScriptMangledNamesStandFor) {
  const ModuleTree modules = DescribeModules(CallsModel());
  ASSERT_EQ(modules.count("heads.1"), 1u);
  EXPECT_EQ(modules.at("heads.0").type, "__torch__.Head");
  EXPECT_EQ(modules.at("heads.1").type, "__torch__.Head")
      << "TorchScript scripted it as __torch__.___torch_mangle_N.Head";
}

}  // namespace
}  // namespace advisor
