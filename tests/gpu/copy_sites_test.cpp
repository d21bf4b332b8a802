#include "engine/gpu/copy_sites.h"

#include <gtest/gtest.h>

#include "tests/gpu/gpu_timeline_builders.h"

namespace advisor {
namespace {

using namespace testing;

// Two steps; in each, aten::to (calling aten::copy_) uploads 1 MiB from pageable memory.
class CopySitesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    timeline_.steps = {Step(0, 0, 100'000), Step(1, 100'000, 200'000)};
    for (int step = 0; step < 2; ++step) {
      const TimeNs base = step * 100'000;
      const std::uint64_t id = 10 * (step + 1);
      AddOp(timeline_, Op("aten::to", base + 1'000, base + 9'000, id, 0));
      AddOp(timeline_, Op("aten::copy_", base + 1'100, base + 8'900, id + 1, 1));
      placements_.push_back(Placed(step, Phase::kForward, "stem"));
      placements_.push_back(Placed(step, Phase::kForward, "stem"));
      timeline_.memcpys.push_back(Memcpy(MemcpyKind::kHostToDevice, base + 2'000, base + 6'000,
                                         id + 1, 1 << 20, /*pageable=*/true));
    }
  }

  Timeline timeline_;
  OpPlacements placements_;
};

TEST_F(CopySitesTest, ReportsAnUploadMadeEveryStep) {
  const auto sites = FindCopySites(timeline_, placements_);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].op, "aten::to");
  EXPECT_EQ(sites[0].path, "stem");
  EXPECT_EQ(sites[0].phase, "forward");
  EXPECT_TRUE(sites[0].pageable);
  EXPECT_EQ(sites[0].count_per_step, 1);
  EXPECT_DOUBLE_EQ(sites[0].bytes_per_step, 1 << 20);
  EXPECT_DOUBLE_EQ(sites[0].ms, 0.004);
}

TEST_F(CopySitesTest, LeavesOutCopiesOfOnlySomeSteps) {
  AddOp(timeline_, Op("aten::_to_copy", 50'000, 51'000, 99, 0));
  placements_.push_back(Placed(0, Phase::kForward, "head"));
  timeline_.memcpys.push_back(Memcpy(MemcpyKind::kHostToDevice, 50'100, 50'900, 99, 64));
  const auto sites = FindCopySites(timeline_, placements_);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].op, "aten::to");
}

TEST_F(CopySitesTest, PinnedAndPageableCopiesAreSeparateSites) {
  timeline_.memcpys.push_back(Memcpy(MemcpyKind::kHostToDevice, 7'000, 7'500, 11, 512, false));
  timeline_.memcpys.push_back(Memcpy(MemcpyKind::kHostToDevice, 107'000, 107'500, 21, 512, false));
  const auto sites = FindCopySites(timeline_, placements_);
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_TRUE(sites[0].pageable) << "the larger site first";
  EXPECT_FALSE(sites[1].pageable);
  EXPECT_DOUBLE_EQ(sites[1].bytes_per_step, 512);
}

TEST_F(CopySitesTest, IgnoresOtherDirectionsAndCopiesWithoutAnOp) {
  timeline_.memcpys = {Memcpy(MemcpyKind::kDeviceToHost, 2'000, 3'000, 11),
                       Memcpy(MemcpyKind::kDeviceToHost, 102'000, 103'000, 21),
                       Memcpy(MemcpyKind::kHostToDevice, 4'000, 5'000, 0),
                       Memcpy(MemcpyKind::kHostToDevice, 104'000, 105'000, 0)};
  EXPECT_TRUE(FindCopySites(timeline_, placements_).empty());
}

TEST_F(CopySitesTest, NoStepsNoSites) {
  timeline_.steps.clear();
  EXPECT_TRUE(FindCopySites(timeline_, placements_).empty());
}

}  // namespace
}  // namespace advisor
