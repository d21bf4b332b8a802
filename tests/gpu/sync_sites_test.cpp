#include "engine/gpu/sync_sites.h"

#include <gtest/gtest.h>

#include "engine/analysis/placement.h"
#include "tests/gpu/gpu_timeline_builders.h"

namespace advisor {
namespace {

using namespace testing;

// One step, 0..100us, in which head.fc calls .item() (forward) at 10..20us.
class SyncSitesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    timeline_.steps = {Step(0, 0, 100'000)};
    SetOps(timeline_, {Op("aten::item", 10'000, 20'000, 1, 0),
                       Op("aten::_local_scalar_dense", 10'100, 19'900, 2, 1)});
    placements_ = {Placed(0, Phase::kForward, "head.fc"), Placed(0, Phase::kForward, "head.fc")};
  }

  // What CUPTI records for at::cuda::memcpy_and_sync: an async D2H copy, then a stream
  // synchronisation seen as the runtime call, the driver call inside it and a sync record.
  void AddItemSync(TimeNs offset) {
    timeline_.api_calls.push_back(Api("cudaMemcpyAsync", offset + 10'200, offset + 10'400, 2));
    timeline_.memcpys.push_back(
        Memcpy(MemcpyKind::kDeviceToHost, offset + 15'000, offset + 15'100, 2, 4));
    timeline_.api_calls.push_back(
        Api("cudaStreamSynchronize", offset + 10'500, offset + 15'500, 2));
    timeline_.api_calls.push_back(
        Api("cuStreamSynchronize", offset + 10'600, offset + 15'400, 2, true));
    timeline_.syncs.push_back(Sync(SyncKind::kStream, offset + 10'700, offset + 15'300, 2));
  }

  Timeline timeline_;
  OpPlacements placements_;
};

TEST_F(SyncSitesTest, AnItemIsOneStreamSynchronizeFromAtenItem) {
  AddItemSync(0);
  const auto sites = FindSyncSites(timeline_, placements_);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].kind, "cudaStreamSynchronize");
  EXPECT_EQ(sites[0].op, "aten::item");
  EXPECT_EQ(sites[0].path, "head.fc");
  EXPECT_EQ(sites[0].phase, "forward");
  EXPECT_EQ(sites[0].count_per_step, 1);
  EXPECT_DOUBLE_EQ(sites[0].wait_ms, 0.005);
}

TEST_F(SyncSitesTest, AveragesOverSteps) {
  timeline_.steps.push_back(Step(1, 100'000, 200'000));
  AddOp(timeline_, Op("aten::item", 110'000, 120'000, 3, 0));
  AddOp(timeline_, Op("aten::_local_scalar_dense", 110'100, 119'900, 4, 1));
  placements_.push_back(Placed(1, Phase::kForward, "head.fc"));
  placements_.push_back(Placed(1, Phase::kForward, "head.fc"));
  AddItemSync(0);
  timeline_.api_calls.push_back(Api("cudaStreamSynchronize", 110'500, 113'500, 4));
  const auto sites = FindSyncSites(timeline_, placements_);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].count_per_step, 1);
  EXPECT_DOUBLE_EQ(sites[0].wait_ms, (0.005 + 0.003) / 2);
}

TEST_F(SyncSitesTest, ABlockingCopyIsNamedByItsDirection) {
  timeline_.api_calls.push_back(Api("cudaMemcpy", 10'500, 12'000, 2));
  timeline_.api_calls.push_back(Api("cuMemcpyDtoH", 10'600, 11'900, 2, true));
  timeline_.memcpys.push_back(Memcpy(MemcpyKind::kDeviceToHost, 11'000, 11'500, 2, 4, true));
  const auto sites = FindSyncSites(timeline_, placements_);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].kind, "blocking memcpy D2H");
  EXPECT_DOUBLE_EQ(sites[0].wait_ms, 0.0015);
}

TEST_F(SyncSitesTest, TheRunnersOwnSynchronisationIsNoSite) {
  timeline_.api_calls.push_back(Api("cudaDeviceSynchronize", 90'000, 99'000, 0));
  timeline_.syncs.push_back(Sync(SyncKind::kContext, 90'100, 98'900, 0));
  EXPECT_TRUE(FindSyncSites(timeline_, placements_).empty());
}

TEST_F(SyncSitesTest, AsynchronousCallsAndStreamWaitsAreNoSites) {
  timeline_.api_calls.push_back(Api("cudaMemcpyAsync", 10'200, 10'400, 2));
  timeline_.api_calls.push_back(Api("cudaLaunchKernel", 10'500, 10'600, 2));
  timeline_.syncs.push_back(Sync(SyncKind::kStreamWaitEvent, 10'700, 10'800, 2));
  EXPECT_TRUE(FindSyncSites(timeline_, placements_).empty());
}

TEST_F(SyncSitesTest, WaitsOutsideStepsAreNoSites) {
  placements_ = {Placed(-1, Phase::kOutside), Placed(-1, Phase::kOutside)};
  AddItemSync(0);
  EXPECT_TRUE(FindSyncSites(timeline_, placements_).empty());
}

TEST_F(SyncSitesTest, ADriverOnlyWaitKeepsTheDriverName) {
  timeline_.api_calls.push_back(Api("cuCtxSynchronize", 10'500, 11'000, 2, true));
  timeline_.syncs.push_back(Sync(SyncKind::kContext, 10'600, 10'900, 2));
  const auto sites = FindSyncSites(timeline_, placements_);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].kind, "cuCtxSynchronize");
}

TEST_F(SyncSitesTest, SitesComeLongestWaitFirst) {
  AddOp(timeline_, Op("aten::nonzero", 30'000, 60'000, 3, 0, 1));
  placements_.push_back(Placed(0, Phase::kForward, "mask"));
  AddItemSync(0);                                                     // 5us
  timeline_.syncs.push_back(Sync(SyncKind::kStream, 31'000, 59'000, 3));  // 28us, record only
  const auto sites = FindSyncSites(timeline_, placements_);
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0].op, "aten::nonzero");
  EXPECT_EQ(sites[0].kind, "stream synchronize");
  EXPECT_EQ(sites[0].path, "mask");
  EXPECT_EQ(sites[1].op, "aten::item");
}

TEST_F(SyncSitesTest, WorksOnPlacementsFromPlaceOps) {
  timeline_.markers = {MarkerEvent{"head.fc", MarkerKind::kForwardEnter, 1, 5'000},
                       MarkerEvent{"head.fc", MarkerKind::kForwardExit, 1, 25'000}};
  AddItemSync(0);
  const auto sites = FindSyncSites(timeline_, PlaceOps(timeline_));
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].path, "head.fc");
  EXPECT_EQ(sites[0].phase, "forward");
}

}  // namespace
}  // namespace advisor
