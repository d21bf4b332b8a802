// The training loop's DataLoader as the probe's replies describe it: read, checked, and pooled
// over the windows into the epoch start the report gives; anything malformed refused with the
// field named.
#include "engine/script/loader_message.h"

#include <gtest/gtest.h>

#include "engine/script/loader_summary.h"

namespace advisor {
namespace {

using nlohmann::json;

constexpr long long kMs = 1'000'000;

json Reply(const json& loader) {
  return {{"type", "steps"}, {"steps", json::array()}, {"loader", loader}};
}

json Loader() {
  return {{"workers", 2},
          {"persistent", false},
          {"epoch_batches", 6},
          {"starts", {412 * kMs}},
          {"waits", {2 * kMs, 1 * kMs, 3 * kMs}}};
}

TEST(LoaderMessage, ReadsTheLoadersSettingsAndTimes) {
  const std::optional<LoaderRecords> records = ReadLoaderRecords(Reply(Loader()));
  ASSERT_TRUE(records.has_value());
  EXPECT_EQ(records->workers, 2);
  EXPECT_FALSE(records->persistent);
  EXPECT_EQ(records->epoch_batches, std::optional<int>(6));
  EXPECT_EQ(records->starts, std::vector<TimeNs>{412 * kMs});
  EXPECT_EQ(records->waits.size(), 3u);

  json iterable = Loader();
  iterable["epoch_batches"] = nullptr;
  EXPECT_FALSE(ReadLoaderRecords(Reply(iterable))->epoch_batches.has_value());
  EXPECT_FALSE(ReadLoaderRecords(Reply(nullptr)).has_value()) << "no batch backpropagated yet";
  EXPECT_FALSE(ReadLoaderRecords({{"type", "steps"}, {"steps", json::array()}}).has_value())
      << "an older probe sends none";
}

std::string LoaderError(const json& loader) {
  try {
    ReadLoaderRecords(Reply(loader));
  } catch (const ProbeMessageError& error) {
    return error.what();
  }
  return "";
}

TEST(LoaderMessage, RefusesALoaderThatDoesNotHoldTogether) {
  EXPECT_EQ(LoaderError("loader"),
            "probe message \"steps\": field 'loader' must be an object, got \"loader\"");
  json bad = Loader();
  bad["workers"] = -1;
  EXPECT_EQ(LoaderError(bad),
            "probe message \"steps\": field 'loader.workers' must be an integer from 0 to "
            "1073741824, got -1");
  bad = Loader();
  bad["workers"] = 1LL << 40;
  EXPECT_EQ(LoaderError(bad),
            "probe message \"steps\": field 'loader.workers' must be an integer from 0 to "
            "1073741824, got 1099511627776");
  bad = Loader();
  bad["persistent"] = 1;
  EXPECT_EQ(LoaderError(bad),
            "probe message \"steps\": field 'loader.persistent' must be true or false, got 1");
  bad = Loader();
  bad["workers"] = 0;
  bad["persistent"] = true;
  EXPECT_EQ(LoaderError(bad),
            "probe message \"steps\": field 'loader.workers' must be at least 1 with persistent "
            "workers");
  bad = Loader();
  bad["epoch_batches"] = 6.5;
  EXPECT_EQ(LoaderError(bad),
            "probe message \"steps\": field 'loader.epoch_batches' must be an integer from 0 to "
            "1073741824, got 6.5");
  bad = Loader();
  bad["starts"] = {-5};
  EXPECT_EQ(LoaderError(bad),
            "probe message \"steps\": field 'loader.starts[0]' must be an integer >= 0, got -5");
  bad = Loader();
  bad["waits"] = {{"ns", 5}};
  EXPECT_EQ(LoaderError(bad),
            "probe message \"steps\": field 'loader.waits' must be an array of at most 1000000 "
            "elements, got {\"ns\":5}");
  bad = Loader();
  bad["waits"] = json::array({json::array({5})});
  EXPECT_EQ(LoaderError(bad),
            "probe message \"steps\": field 'loader.waits[0]' must be an integer >= 0, got [5]");
  bad = Loader();
  bad.erase("starts");
  EXPECT_EQ(LoaderError(bad), "probe message \"steps\": field 'loader.starts' is missing");
}

LoaderRecords Records(std::vector<TimeNs> starts, std::vector<TimeNs> waits) {
  LoaderRecords records;
  records.workers = 2;
  records.epoch_batches = 6;
  records.starts = std::move(starts);
  records.waits = std::move(waits);
  return records;
}

TEST(LoaderSummary, TheEpochStartIsTheMedianRestartLessTheSteadyWait) {
  // Three windows of 5 steps: two held an epoch's start, one did not.
  const std::optional<LoaderEpochs> epochs =
      SummariseLoaderEpochs({{Records({400 * kMs}, {2 * kMs, 2 * kMs, 4 * kMs, 1 * kMs}), 5},
                             {Records({}, {2 * kMs, 3 * kMs, 2 * kMs, 2 * kMs, 2 * kMs}), 5},
                             {Records({900 * kMs, 420 * kMs}, {2 * kMs, 2 * kMs, 2 * kMs}), 5}});
  ASSERT_TRUE(epochs.has_value());
  EXPECT_EQ(epochs->workers, 2);
  EXPECT_FALSE(epochs->persistent);
  EXPECT_EQ(epochs->epoch_batches, std::optional<int>(6));
  EXPECT_EQ(epochs->epochs_seen, 3);
  EXPECT_DOUBLE_EQ(epochs->batches_per_step, 15.0 / 15.0);
  ASSERT_TRUE(epochs->epoch_start_ms.has_value());
  EXPECT_DOUBLE_EQ(*epochs->epoch_start_ms, 420.0 - 2.0) << "a slow restart stays one sample";
}

TEST(LoaderSummary, NoEpochStartSeenLeavesItUnmeasured) {
  const std::optional<LoaderEpochs> epochs =
      SummariseLoaderEpochs({{Records({}, {2 * kMs, 2 * kMs, 2 * kMs, 2 * kMs}), 2}});
  ASSERT_TRUE(epochs.has_value());
  EXPECT_EQ(epochs->epochs_seen, 0);
  EXPECT_FALSE(epochs->epoch_start_ms.has_value());
  EXPECT_DOUBLE_EQ(epochs->batches_per_step, 2.0) << "gradient accumulation: two per step";
  EXPECT_FALSE(SummariseLoaderEpochs({}).has_value()) << "no reply described a loader";
}

TEST(LoaderSummary, ARestartFasterThanTheSteadyWaitCostsNothing) {
  const std::optional<LoaderEpochs> epochs =
      SummariseLoaderEpochs({{Records({1 * kMs}, {5 * kMs, 5 * kMs}), 3}});
  ASSERT_TRUE(epochs && epochs->epoch_start_ms);
  EXPECT_DOUBLE_EQ(*epochs->epoch_start_ms, 0.0);
}

}  // namespace
}  // namespace advisor
