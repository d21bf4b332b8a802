#include "engine/analysis/broadcast_temporaries.h"

#include <gtest/gtest.h>

#include "tests/analysis/timeline_builder.h"

namespace advisor {
namespace {

using testing::TimelineBuilder;

constexpr std::int64_t kTokens = 32 * 64 * 16;      // z: [32, 64, 16]
constexpr std::int64_t kPairs = 32 * 64 * 64 * 16;  // z.unsqueeze(2) - z.unsqueeze(1)

// trainer_encoder's pool: a projection, pairwise differences by broadcasting, squared and summed,
// then a mask over the [32, 64, 64] result; and an RBF beside it that expands 16x and reduces
// nothing. Forward on thread 1, backward on the autograd thread 2.
Timeline PoolBesideRbf() {
  TimelineBuilder b;
  b.Step(0, 20, 60, 70)
      .Forward("pool", 1, 12)
      .Op("aten::linear", 1, 2, 1, OpScope::kForward, 1)
      .Inputs(4 * kTokens, -1)
      .Op("aten::sub", 2, 5, 1, OpScope::kForward, 2)
      .Inputs(kTokens, kPairs)
      .Op("aten::pow", 5, 7, 1, OpScope::kForward, 3)
      .Inputs(kPairs, kPairs)
      .Op("aten::sum", 7, 8, 1, OpScope::kForward, 4)
      .Inputs(kPairs, kPairs)
      .Op("aten::masked_fill", 8, 9, 1, OpScope::kForward, 5)
      .Inputs(kPairs / 16, kPairs / 16)
      .Forward("rbf", 13, 16)
      .Op("aten::sub", 13, 14, 1, OpScope::kForward, 6)
      .Inputs(9216, 9216 * 16)
      .Op("aten::exp", 14, 15, 1, OpScope::kForward, 7)
      .Inputs(9216 * 16, 9216 * 16)
      .Backward("rbf", 21, 25, 2)
      .Op("ExpBackward0", 22, 23, 2, OpScope::kBackward, 7, 1)
      .Op("SubBackward0", 23, 24, 2, OpScope::kBackward, 6, 1)
      .Backward("pool", 26, 50, 2)
      .Op("MaskedFillBackward0", 27, 28, 2, OpScope::kBackward, 5, 1)
      .Op("SumBackward1", 28, 31, 2, OpScope::kBackward, 4, 1)
      .Op("PowBackward0", 31, 37, 2, OpScope::kBackward, 3, 1)
      .Op("SubBackward0", 37, 39, 2, OpScope::kBackward, 2, 1)
      .Op("aten::sum", 39, 43, 2)  // the engine reduces the broadcast operand's gradient
      .Op("AddmmBackward0", 44, 46, 2, OpScope::kBackward, 1, 1);
  return b.Build();
}

TEST(BroadcastTemporaries, FindsATemporaryManyTimesItsInputsWithTheOpsThatReadIt) {
  const Timeline timeline = PoolBesideRbf();
  const std::vector<BroadcastTemporary> found =
      FindBroadcastTemporaries(timeline, PlaceOps(timeline), 70);
  ASSERT_EQ(found.size(), 2u);
  const BroadcastTemporary& pairs = found.front();
  EXPECT_EQ(pairs.path, "pool");
  EXPECT_EQ(pairs.op, "aten::sub");
  EXPECT_EQ(pairs.elements, kPairs);
  EXPECT_EQ(pairs.input_elements, kTokens);
  EXPECT_EQ(pairs.reads, (std::vector<std::string>{"aten::pow", "aten::sum"}))
      << "the mask reads the reduced result, not the temporary";
  // Forward 3 + 2 + 1 ms; backward SumBackward1 3, PowBackward0 6, SubBackward0 2 and the
  // engine's sum after it 4; not the projection's or the mask's.
  EXPECT_NEAR(pairs.ms, 21.0, 1e-6);
  EXPECT_NEAR(pairs.share, 0.3, 1e-6);

  // The RBF's 16x expansion is found too (the rules see that nothing reduces it).
  EXPECT_EQ(found[1].path, "rbf");
  EXPECT_EQ(found[1].reads, (std::vector<std::string>{"aten::exp"}));
  EXPECT_NEAR(found[1].ms, 4.0, 1e-6);
}

TEST(BroadcastTemporaries, ABroadcastOfFewerThanEightTimesItsInputIsNone) {
  TimelineBuilder b;
  b.Step(0, 10, 20, 25)
      .Forward("attn", 1, 9)
      .Op("aten::add", 2, 5, 1, OpScope::kForward, 1)
      .Inputs(kPairs, kPairs)  // scores + mask: as many as the scores
      .Op("aten::mul", 5, 8, 1, OpScope::kForward, 2)
      .Inputs(kTokens, 4 * kTokens);
  const Timeline timeline = b.Build();
  EXPECT_TRUE(FindBroadcastTemporaries(timeline, PlaceOps(timeline), 25).empty());
}

}  // namespace
}  // namespace advisor
