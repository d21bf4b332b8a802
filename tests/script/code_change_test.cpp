// Fixes a script gets by a change to its code, shown against the user's line.
#include "engine/script/code_change.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

SourceLocation At(const std::string& text) { return {"/src/model.py", 57, text}; }

TEST(CodeChange, TimmsPatchDropoutGatherBecomesRowIndexing) {
  const auto change = SuggestCodeChange(
      "gather-to-index", At("x = torch.gather(x, dim=1, "
                            "index=keep_indices.unsqueeze(-1).expand(-1, -1, x.shape[-1]))"));
  ASSERT_TRUE(change.has_value());
  EXPECT_NE(change->advice.find("/src/model.py:57"), std::string::npos);
  EXPECT_EQ(
      Patch("/src/model.py", *change),
      "--- /src/model.py\n+++ /src/model.py\n@@ -57 +57 @@\n"
      "-x = torch.gather(x, dim=1, index=keep_indices.unsqueeze(-1).expand(-1, -1, x.shape[-1]))\n"
      "+x = x[torch.arange(x.shape[0], device=x.device).unsqueeze(-1), keep_indices]\n");
}

TEST(CodeChange, TheMethodFormToo) {
  const auto change = SuggestCodeChange(
      "gather-to-index", At("tokens = h.gather(1, idx.unsqueeze(-1).expand(B, K, D)) * scale"));
  ASSERT_TRUE(change.has_value());
  const std::string patch = Patch("/src/model.py", *change);
  EXPECT_NE(
      patch.find(
          "+tokens = h[torch.arange(h.shape[0], device=h.device).unsqueeze(-1), idx] * scale"),
      std::string::npos)
      << patch;
}

TEST(CodeChange, AnUnknownShapeGetsWordsOnly) {
  const auto change = SuggestCodeChange("gather-to-index", At("x = torch.gather(x, 2, index)"));
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(Patch("/src/model.py", *change), "")
      << "a gather on another dimension is not the same as row indexing";
  EXPECT_FALSE(change->advice.empty());
  EXPECT_FALSE(SuggestCodeChange("tf32-matmul", At("y = x @ w")).has_value());
  EXPECT_FALSE(SuggestCodeChange("gather-to-index", SourceLocation{}).has_value());
}

TEST(CodeChange, CropFirstIsASuggestionInWordsAtTheTransformsLine) {
  const auto change = SuggestCodeChange(
      "crop-first", At("data = Scenes(4096, Compose([RandomDilation(12), RandomCrop(224)]))"));
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->advice.rfind("a suggestion, not verified: ", 0), 0u) << change->advice;
  EXPECT_NE(change->advice.find("/src/model.py:57"), std::string::npos) << change->advice;
  EXPECT_EQ(Patch("/src/model.py", *change), "") << "a pipeline's order is not one line's change";
}

}  // namespace
}  // namespace advisor
