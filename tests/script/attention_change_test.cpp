// sdpa-attention as a change to the user's code: the call keeps the mask, the scale and the
// dropout the hand-written attention applied, or says plainly what it cannot keep.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/script/code_change.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

// A function of the user's file, starting at line 10; `at` is its line holding `marker`.
struct UserFunction {
  SourceBlock block;
  SourceLocation at;
};

UserFunction Function(const std::string& code, const std::string& marker) {
  UserFunction function;
  function.block.first_line = 10;
  std::istringstream in(code);
  for (std::string line; std::getline(in, line);) {
    const int number = function.block.first_line + static_cast<int>(function.block.lines.size());
    function.block.lines.push_back(line);
    if (line.find(marker) != std::string::npos) {
      function.at = {"/src/attention.py", number, line.substr(line.find_first_not_of(' '))};
    }
  }
  return function;
}

CodeChange SdpaOf(const UserFunction& function) {
  const auto change = SuggestCodeChange("sdpa-attention", function.at, &function.block);
  EXPECT_TRUE(change.has_value());
  return change.value_or(CodeChange{});
}

TEST(AttentionChange, KeepsTheMaskTheScaleAndTheDropout) {
  const UserFunction function = Function(R"(    def forward(self, x, mask):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) * self.scale
        scores = scores.masked_fill(mask == 0, float("-inf"))  # padding
        weights = scores.softmax(dim=-1)
        weights = self.attn_drop(weights)
        out = weights @ v
        return self.proj(out))",
                                         "softmax");
  const CodeChange change = SdpaOf(function);
  EXPECT_EQ(change.cannot_keep, "");
  EXPECT_EQ(change.first_line, 12);
  ASSERT_EQ(change.before.size(), 5u);
  EXPECT_EQ(change.before.front(), "scores = q @ k.transpose(-2, -1) * self.scale");
  EXPECT_EQ(change.before.back(), "out = weights @ v");
  EXPECT_EQ(change.after,
            std::vector<std::string>{
                "out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask "
                "!= 0, dropout_p=self.attn_drop.p if self.training else 0.0, scale=self.scale)"});
  EXPECT_NE(change.advice.find("/src/attention.py:14"), std::string::npos) << change.advice;
  EXPECT_NE(change.advice.find("replace lines 12-16"), std::string::npos) << change.advice;
  EXPECT_EQ(
      Patch("/src/attention.py", change)
          .rfind("--- /src/attention.py\n+++ /src/attention.py\n@@ -12,5 +12 @@\n-scores = ", 0),
      0u)
      << Patch("/src/attention.py", change);
}

TEST(AttentionChange, AnAddedMaskUnderItsNoneCheckAndFunctionalDropout) {
  const UserFunction function = Function(R"(    def forward(self, q, k, v, attention_mask=None):
        attn = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        if attention_mask is not None:
            attn = attn + attention_mask
        attn = F.softmax(attn, dim=-1)
        attn = F.dropout(attn, p=self.dropout, training=self.training)
        context = torch.matmul(attn, v).transpose(1, 2)
        return context)",
                                         "F.softmax");
  const CodeChange change = SdpaOf(function);
  EXPECT_EQ(change.cannot_keep, "");
  EXPECT_EQ(change.before.size(), 6u);
  EXPECT_EQ(change.after,
            std::vector<std::string>{
                "context = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask, "
                "dropout_p=self.dropout if self.training else 0.0, scale=1 / "
                "math.sqrt(self.head_dim)).transpose(1, 2)"});
}

TEST(AttentionChange, ScoresWithoutAFactorKeepScaleOne) {
  // SDPA's default would divide by sqrt(q.size(-1)), which this attention never did.
  const UserFunction function = Function(R"(    def forward(self, q, k, v):
        return (q @ k.mT).softmax(-1) @ v)",
                                         "softmax");
  const CodeChange change = SdpaOf(function);
  EXPECT_EQ(change.after, std::vector<std::string>{
                              "return torch.nn.functional.scaled_dot_product_attention(q, k, v, "
                              "scale=1.0)"});
}

TEST(AttentionChange, SaysWhatItCannotKeepInsteadOfDroppingIt) {
  const UserFunction returned = Function(R"(    def forward(self, q, k, v):
        weights = (q @ k.transpose(-2, -1) * self.scale).softmax(dim=-1)
        return weights @ v, weights)",
                                         "softmax");
  const CodeChange change = SdpaOf(returned);
  EXPECT_TRUE(change.before.empty()) << "no change to paste that would lose the weights";
  EXPECT_NE(change.cannot_keep.find("uses the attention weights, which SDPA does not return"),
            std::string::npos)
      << change.cannot_keep;
  EXPECT_NE(change.advice.find("line 12 (`return weights @ v, weights`)"), std::string::npos)
      << change.advice;

  const UserFunction head_mask = Function(R"(    def forward(self, q, k, v, head_mask):
        weights = (q @ k.transpose(-2, -1) * self.scale).softmax(dim=-1)
        weights = weights * head_mask
        return weights @ v)",
                                          "softmax");
  EXPECT_NE(SdpaOf(head_mask).cannot_keep.find("line 12 (`weights = weights * head_mask`)"),
            std::string::npos);

  const UserFunction two_masks = Function(R"(    def forward(self, q, k, v, bias, pad):
        s = q @ k.transpose(-2, -1) * self.scale
        s = s + bias
        s = s.masked_fill(pad, float("-inf"))
        return s.softmax(dim=-1) @ v)",
                                          "softmax");
  EXPECT_NE(SdpaOf(two_masks).cannot_keep.find("two masks (lines 12 and 13)"), std::string::npos);
}

// std::regex matches by recursion, as deep as the text it matches is long: a mask written as a
// literal of 200 000 characters overflowed the stack.
TEST(AttentionChange, AHugeLiteralGetsWordsNotACrash) {
  const std::string literal = std::string(200000, '1');
  const UserFunction function = Function(
      "    def forward(self, q, k, v):\n"
      "        s = q @ k.mT\n"
      "        s = s + torch.tensor([" +
          literal +
          "])\n"
          "        return s.softmax(-1) @ v",
      "softmax");
  const CodeChange change = SdpaOf(function);
  EXPECT_TRUE(change.before.empty());
  EXPECT_NE(change.advice.find("passing your mask as attn_mask"), std::string::npos);
}

TEST(AttentionChange, TheFunctionIsReadFromTheUsersFile) {
  testing::ScratchDir scratch;
  const std::string file = scratch.path() + "/model.py";
  std::ofstream(file) << "import torch\n\n\nclass Attention(torch.nn.Module):\n"
                         "    def forward(self, q, k, v, mask):\n"
                         "        s = q @ k.transpose(-2, -1) * self.scale\n"
                         "        s = s.masked_fill(~mask, float('-inf'))\n"
                         "        return s.softmax(dim=-1) @ v\n\n\n"
                         "def other():\n    pass\n";
  std::vector<Finding> findings(1);
  findings[0].recipe = "sdpa-attention";
  findings[0].source = SourceLocation{file, 8, "return s.softmax(dim=-1) @ v"};
  std::vector<Finding> from_a_model = findings;
  SuggestFindingChanges(findings, Door::kScript);
  ASSERT_TRUE(findings[0].change.has_value());
  EXPECT_EQ(findings[0].change->first_line, 6);
  EXPECT_EQ(findings[0].change->after,
            std::vector<std::string>{"return torch.nn.functional.scaled_dot_product_attention(q, "
                                     "k, v, attn_mask=mask, scale=self.scale)"});
  // A model's archive names files advisor does not read: its line alone, where the scores'
  // factor and mask are not to be seen, gets the change in words.
  SuggestFindingChanges(from_a_model, Door::kModel);
  ASSERT_TRUE(from_a_model[0].change.has_value());
  EXPECT_TRUE(from_a_model[0].change->before.empty());
  EXPECT_NE(from_a_model[0].change->advice.find("passing your mask as attn_mask"),
            std::string::npos);
}

}  // namespace
}  // namespace advisor
