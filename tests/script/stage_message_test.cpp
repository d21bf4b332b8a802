// The input stage as the probe sends it with a window: read, checked and summarised over the
// window's steps; anything malformed refused with the field named.
#include "engine/script/stage_message.h"

#include <gtest/gtest.h>

#include "engine/script/probe_messages.h"

namespace advisor {
namespace {

using nlohmann::json;

constexpr long long kMs = 1'000'000;

json Stage() {
  return {{"workers", 2},
          {"cores", 2},
          {"output", {{4, 224, 224}, "float32"}},
          {"pieces",
           {{{"path", "transform.transforms[0]"},
             {"name", "RandomDilation"},
             {"defined_at", {"/home/me/train.py", 39, "def __call__(self, sample):"}},
             {"called_at", {"/home/me/train.py", 29, "sample = transform(sample)"}},
             {"input_shape", {1, 256, 256}},
             {"output_shape", {1, 256, 256}},
             {"dtype", "float32"},
             {"input_is_binary", true}},
            {{"path", "collate_fn"}, {"name", "collate_fn"}}}},
          {"lines", {{"/home/me/train.py", 43, "grown = F.conv2d(mask, kernel)", "torch.conv2d"}}},
          {"batches",
           {{{"worker", 1},
             {"start", 10 * kMs},
             {"end", 50 * kMs},
             {"items", 8},
             {"items_ns", 38 * kMs},
             {"pieces", {{0, 30 * kMs}, {1, 2 * kMs}}},
             {"sampled", 2},
             {"sampled_ns", 38 * kMs / 4},
             {"lines", {{0, 7 * kMs}}}},
            {{"worker", 2},
             {"start", 900 * kMs},
             {"end", 940 * kMs},
             {"items", 8},
             {"items_ns", 38 * kMs},
             {"pieces", json::array()},
             {"sampled", 0},
             {"sampled_ns", 0},
             {"lines", json::array()}}}}};
}

json Window(const json& stage) {
  return {{"type", "window"},
          {"steps", {{0, 0, 100 * kMs, json::array()}}},
          {"events", {{"ops", json::array()}, {"markers", json::array()}}},
          {"memory", nullptr},
          {"stage", stage}};
}

TEST(StageMessage, AWindowCarriesItsInputStageSummarisedOverItsSteps) {
  const ProbeWindow window = ReadWindow(Window(Stage()));
  ASSERT_TRUE(window.window.input_stage.has_value());
  const InputStageProfile& stage = *window.window.input_stage;
  EXPECT_EQ(stage.batches, 1) << "the second batch came after the window's steps";
  EXPECT_DOUBLE_EQ(stage.batch_ms, 40.0);
  EXPECT_EQ(stage.cores, 2);
  EXPECT_EQ(stage.output_dtype, "float32");
  ASSERT_FALSE(stage.pieces.empty());
  EXPECT_EQ(stage.pieces[0].name, "RandomDilation");
  EXPECT_DOUBLE_EQ(stage.pieces[0].share, 0.75);
  ASSERT_TRUE(stage.pieces[0].source.has_value());
  EXPECT_EQ(stage.pieces[0].source->line, 29) << "the only transform called from that line";
  EXPECT_EQ(stage.pieces[0].input_is_binary, true);
  EXPECT_EQ(stage.pieces[1].name, "torch.conv2d");
  EXPECT_EQ(stage.pieces[1].kind, "line");
  EXPECT_DOUBLE_EQ(stage.pieces[1].ms, 28.0);

  EXPECT_FALSE(ReadWindow(Window(nullptr)).window.input_stage.has_value())
      << "no DataLoader iterated: no stage";
}

std::string StageError(const json& stage) {
  try {
    ReadStageRecords(JsonField(stage, "stage"));
  } catch (const ProbeMessageError& error) {
    return error.what();
  }
  return "";
}

TEST(StageMessage, RefusesAStageThatDoesNotHoldTogether) {
  json bad = Stage();
  bad["batches"][0]["pieces"][0][0] = 2;
  EXPECT_EQ(StageError(bad),
            "stage: field 'batches[0].pieces[0][0]' must be an integer from 0 to 1, got 2");
  bad = Stage();
  bad["batches"][0]["lines"][0][0] = -1;
  EXPECT_EQ(StageError(bad),
            "stage: field 'batches[0].lines[0][0]' must be an integer from 0 to 0, got -1");
  bad = Stage();
  bad["batches"][0]["worker"] = 3;
  EXPECT_EQ(StageError(bad),
            "stage: field 'batches[0].worker' must be an integer from 0 to 2, got 3");
  bad = Stage();
  bad["batches"][0]["end"] = 0;
  EXPECT_EQ(StageError(bad), "stage: field 'batches[0].end' must be an integer >= 10000000, got 0");
  bad = Stage();
  bad["batches"][0]["sampled"] = 9;
  EXPECT_EQ(StageError(bad),
            "stage: field 'batches[0].sampled' must be an integer from 0 to 8, got 9");
  bad = Stage();
  bad["batches"][0]["sampled_ns"] = 39 * kMs;
  EXPECT_EQ(StageError(bad),
            "stage: field 'batches[0].sampled_ns' must be an integer from 0 to 38000000, got "
            "39000000");
  bad = Stage();
  bad["pieces"][0]["name"] = "Dilation\n";
  EXPECT_EQ(StageError(bad),
            "stage: field 'pieces[0].name' must be a string of at most 4096 bytes without "
            "control characters, got \"Dilation\\n\"");
  bad = Stage();
  bad["pieces"][0]["called_at"] = json::array({"train.py", 29});
  EXPECT_EQ(StageError(bad),
            "stage: field 'pieces[0].called_at' must be an array of 3 elements, got "
            "[\"train.py\",29]");
  bad = Stage();
  bad["pieces"][0]["input_is_binary"] = "yes";
  EXPECT_EQ(StageError(bad),
            "stage: field 'pieces[0].input_is_binary' must be true or false, got \"yes\"");
  bad = Stage();
  bad["lines"][0] = json::array({"train.py", 43, "text"});
  EXPECT_EQ(StageError(bad),
            "stage: field 'lines[0]' must be an array of 4 elements, got "
            "[\"train.py\",43,\"text\"]");
  bad = Stage();
  bad["pieces"][0]["input_shape"] = json::array({1.5});
  EXPECT_EQ(StageError(bad),
            "stage: field 'pieces[0].input_shape[0]' must be an integer >= 0, got 1.5");
  bad = Stage();
  bad["workers"] = 1LL << 40;
  EXPECT_EQ(StageError(bad),
            "stage: field 'workers' must be an integer from 0 to 1073741824, got 1099511627776");
  bad = Stage();
  bad.erase("batches");
  EXPECT_EQ(StageError(bad), "stage: field 'batches' is missing");
  EXPECT_EQ(StageError(json::array()), "stage: top level must be an object, got []");
  EXPECT_THROW(ReadWindow(Window(json("stage"))), ProbeMessageError);
}

}  // namespace
}  // namespace advisor
