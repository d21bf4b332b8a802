// --save-fixed DIR's folder: checked before any work, published whole with its README.md, or
// left as it was.
#include "engine/autotest/fixed_models.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/autotest/ab_benchmark.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

FixResult Fix(const std::string& recipe, const std::string& status) {
  FixResult fix;
  fix.recipe = recipe;
  fix.status = status;
  fix.speedup = 1.8;
  fix.speedup_ci_low = 1.6;
  fix.speedup_ci_high = 2.0;
  fix.rounds = 2;
  fix.sites = {"window"};
  return fix;
}

TEST(FixedModelsDir, RefusesAFolderThatIsNotEmptyAndAFile) {
  testing::ScratchDir dir;
  fs::create_directories(dir / "full");
  std::ofstream(dir / "full/x") << "x";
  std::ofstream(dir / "file") << "x";
  try {
    FixedModelsDir fixed(dir / "full");
    FAIL() << "a folder that is not empty was taken";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()),
              "--save-fixed " + dir / "full" +
                  ": exists and is not empty; give a new or an empty folder");
  }
  EXPECT_THROW(FixedModelsDir(dir / "file"), std::runtime_error);
  EXPECT_THROW(FixedModelsDir(dir / "missing/fixed"), std::runtime_error);
}

TEST(FixedModelsDir, PublishesOnlyTheVerifiedModelsWithAReadme) {
  testing::ScratchDir dir;
  RunReport report;
  report.run.model = "demo.pt";
  report.fixes = {Fix("gather-to-index", fix_status::kVerified),
                  Fix("sdpa-attention", fix_status::kNoChange)};
  {
    FixedModelsDir fixed(dir / "fixed");
    std::ofstream(fixed.StagedModel("gather-to-index")) << "model";
    std::ofstream(fixed.StagedModel("sdpa-attention")) << "model";
    EXPECT_FALSE(fs::exists(dir / "fixed"));
    fixed.Publish(report);
  }
  EXPECT_TRUE(fs::exists(dir / "fixed/gather-to-index.pt"));
  EXPECT_FALSE(fs::exists(dir / "fixed/sdpa-attention.pt"));
  EXPECT_EQ(report.fixes[0].saved_model, dir / "fixed/gather-to-index.pt");
  EXPECT_EQ(report.fixes[1].saved_model, "");
  std::ifstream readme(dir / "fixed/README.md");
  const std::string text((std::istreambuf_iterator<char>(readme)), {});
  EXPECT_THAT(text, HasSubstr("| `gather-to-index.pt` | gather-to-index | 1.80x (95% interval "
                              "1.60-2.00x, 2 rounds) | window |"));
  EXPECT_THAT(text, HasSubstr("torch.jit.load(\"gather-to-index.pt\")"));
  // Nothing but the published folder is left beside it.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(FixedModelsDir, LeavesNothingWhenNotPublished) {
  testing::ScratchDir dir;
  {
    FixedModelsDir fixed(dir / "fixed");
    std::ofstream(fixed.StagedModel("gather-to-index")) << "model";
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

}  // namespace
}  // namespace advisor
