#include "engine/gpu/site_paths.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

SyncSite Sync(const std::string& path, const std::string& op, double wait_ms) {
  SyncSite site;
  site.kind = "cudaStreamSynchronize";
  site.path = path;
  site.op = op;
  site.phase = "forward";
  site.count_per_step = 1;
  site.wait_ms = wait_ms;
  return site;
}

TEST(NameSitePaths, TakesTheCostliestMatchingSitesPathAndKeepsTheBaselineTimings) {
  std::vector<SyncSite> baseline = {Sync("", "aten::item", 2.0), Sync("", "aten::nonzero", 1.0)};
  NameSitePaths(baseline, {Sync("encoder.layers.0.router", "aten::item", 0.4),
                           Sync("encoder.layers.2.router", "aten::item", 2.2),
                           Sync("", "aten::item", 3.0),  // outside every module: names nothing
                           Sync("decoder.head", "aten::nonzero", 0.9)});
  EXPECT_EQ(baseline[0].path, "encoder.layers.2.router");
  EXPECT_DOUBLE_EQ(baseline[0].wait_ms, 2.0);
  EXPECT_EQ(baseline[1].path, "decoder.head");
  EXPECT_DOUBLE_EQ(baseline[1].wait_ms, 1.0);
}

TEST(NameSitePaths, ASiteTheInstrumentedWindowDidNotSeeKeepsItsPath) {
  std::vector<SyncSite> baseline = {Sync("", "aten::item", 2.0)};
  SyncSite other_kind = Sync("encoder", "aten::item", 2.0);
  other_kind.kind = "cudaDeviceSynchronize";
  SyncSite other_phase = Sync("encoder", "aten::item", 2.0);
  other_phase.phase = "backward";
  NameSitePaths(baseline, {other_kind, other_phase});
  EXPECT_EQ(baseline[0].path, "");
}

TEST(NameSitePaths, CopiesMatchOnOpPhaseAndPageability) {
  CopySite pinned;
  pinned.op = "aten::to";
  pinned.phase = "forward";
  CopySite pageable = pinned;
  pageable.pageable = true;
  std::vector<CopySite> baseline = {pinned};
  pageable.path = "frontend.augment";
  NameSitePaths(baseline, {pageable});
  EXPECT_EQ(baseline[0].path, "");
  pinned.path = "blocks.table";
  NameSitePaths(baseline, {pinned});
  EXPECT_EQ(baseline[0].path, "blocks.table");
}

}  // namespace
}  // namespace advisor
