// SummarizeInputStage: transforms and lines from the ops of each batch, medians per batch, the
// heaviest op's shapes, the checked batch's binary inputs; WorkerBusyShare's clipping.
#include "engine/analysis/input_stage_pieces.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

StageOpSample Op(const std::string& name, double ms, const std::string& transform, int call_line,
                 int line) {
  StageOpSample op;
  op.op = name;
  op.ms = ms;
  op.transform = transform;
  if (!transform.empty()) op.transform_call = SourceLocation{"model.py", call_line, ""};
  op.line = SourceLocation{"model.py", line, ""};
  op.input_shape = {8, 1, 256, 256};
  op.output_shape = {8, 1, 256, 256};
  op.dtype = "float32";
  return op;
}

// prepare_batch: line 30 calls random_dilation (its lines 12 and 13), line 31 crops.
StageBatchSample Batch(double dilation_ms) {
  return {dilation_ms + 1.0,
          {Op("aten::roll", dilation_ms * 0.25, "random_dilation", 30, 12),
           Op("aten::maximum", dilation_ms * 0.75, "random_dilation", 30, 13),
           Op("aten::slice", 0.5, "", 0, 31)}};
}

TEST(SummarizeInputStage, TransformsAndLinesByMedianWithTheirHeaviestOp) {
  const std::vector<StageBatchSample> batches{Batch(4.0), Batch(8.0), Batch(100.0)};
  const InputStageProfile profile = SummarizeInputStage(batches, nullptr);
  EXPECT_EQ(profile.batches, 3);
  EXPECT_DOUBLE_EQ(profile.batch_ms, 9.0);
  ASSERT_EQ(profile.pieces.size(), 4u);
  const InputStagePiece& transform = profile.pieces[0];
  EXPECT_EQ(transform.kind, "transform");
  EXPECT_EQ(transform.name, "random_dilation");
  EXPECT_EQ(transform.source->line, 30) << "where the stage calls it";
  EXPECT_DOUBLE_EQ(transform.ms, 8.0);
  EXPECT_DOUBLE_EQ(transform.share, 8.0 / 9.0);
  EXPECT_EQ(transform.dtype, "float32");
  EXPECT_FALSE(transform.input_is_binary.has_value()) << "no batch was checked";
  const InputStagePiece& line = profile.pieces[1];
  EXPECT_EQ(line.kind, "line");
  EXPECT_EQ(line.name, "aten::maximum") << "a line is named after its heaviest op";
  EXPECT_EQ(line.source->line, 13);
  EXPECT_DOUBLE_EQ(line.ms, 6.0);
  EXPECT_EQ(profile.pieces[3].name, "aten::slice");
  EXPECT_EQ(profile.pieces[3].source->line, 31);
}

TEST(SummarizeInputStage, APieceMissingFromABatchCountsZeroThere) {
  StageBatchSample without = Batch(4.0);
  without.ops.pop_back();
  const InputStageProfile profile =
      SummarizeInputStage({without, without, Batch(4.0)}, nullptr);
  for (const InputStagePiece& piece : profile.pieces) {
    if (piece.name == "aten::slice") {
      EXPECT_DOUBLE_EQ(piece.ms, 0.0);
    }
  }
}

TEST(SummarizeInputStage, BinaryInputsComeFromTheCheckedBatchWhereEveryCallWasBinary) {
  StageBatchSample checked = Batch(4.0);
  checked.ops[1].input_is_binary = true;   // aten::maximum, line 13
  checked.ops.push_back(checked.ops[1]);
  checked.ops.back().input_is_binary = false;  // a second call whose input was not
  checked.ops[0].input_is_binary = true;   // aten::roll, line 12
  const InputStageProfile profile = SummarizeInputStage({Batch(4.0)}, &checked);
  for (const InputStagePiece& piece : profile.pieces) {
    if (piece.name == "aten::maximum") {
      EXPECT_EQ(piece.input_is_binary, false);
    } else if (piece.name == "aten::roll") {
      EXPECT_EQ(piece.input_is_binary, true);
    } else if (piece.name == "random_dilation") {
      EXPECT_EQ(piece.input_is_binary, false) << "its heaviest op is aten::maximum";
    } else {
      EXPECT_FALSE(piece.input_is_binary.has_value()) << piece.name;
    }
  }
}

TEST(SummarizeInputStage, KeepsTheHeaviestPiecesOfEachKind) {
  StageBatchSample batch;
  for (int line = 1; line <= 20; ++line) batch.ops.push_back(Op("aten::add", line, "", 0, line));
  const InputStageProfile profile = SummarizeInputStage({batch}, nullptr);
  ASSERT_EQ(profile.pieces.size(), kInputStagePiecesPerKind);
  EXPECT_EQ(profile.pieces.front().source->line, 20);
  EXPECT_EQ(profile.pieces.back().source->line, 9);
}

TEST(WorkerBusyShare, SpansAreClippedToTheWindow) {
  // Two workers over [100, 200): one busy 50..150 (50 inside), one 120..180 (60).
  EXPECT_DOUBLE_EQ(*WorkerBusyShare({{50, 150}, {120, 180}}, 100, 200, 2), 110.0 / 200.0);
  EXPECT_FALSE(WorkerBusyShare({{50, 150}}, 100, 200, 0).has_value());
  EXPECT_FALSE(WorkerBusyShare({{50, 150}}, 200, 200, 1).has_value());
}

}  // namespace
}  // namespace advisor
