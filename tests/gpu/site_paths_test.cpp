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

TEST(RefineSitePaths, TakesTheDeepestPathALevelSawAndKeepsTheBaselineTimings) {
  std::vector<SyncSite> baseline = {Sync("", "aten::item", 2.0), Sync("", "aten::nonzero", 1.0)};
  RefineSitePaths(baseline, {Sync("encoder", "aten::item", 2.4)});
  RefineSitePaths(baseline, {Sync("encoder.layers.2.router", "aten::item", 2.6),
                             Sync("encoder.layers", "aten::item", 2.5)});
  RefineSitePaths(baseline, {Sync("encoder", "aten::item", 2.4)});  // a shallower one later
  EXPECT_EQ(baseline[0].path, "encoder.layers.2.router");
  EXPECT_DOUBLE_EQ(baseline[0].wait_ms, 2.0);
  EXPECT_EQ(baseline[1].path, "") << "no level saw aten::nonzero's site";
}

TEST(RefineSitePaths, CopiesMatchOnOpPhaseAndPageability) {
  CopySite pinned;
  pinned.op = "aten::to";
  pinned.phase = "forward";
  CopySite pageable = pinned;
  pageable.pageable = true;
  std::vector<CopySite> baseline = {pinned};
  pageable.path = "frontend.augment";
  RefineSitePaths(baseline, {pageable});
  EXPECT_EQ(baseline[0].path, "");
  pinned.path = "blocks.table";
  RefineSitePaths(baseline, {pinned});
  EXPECT_EQ(baseline[0].path, "blocks.table");
}

}  // namespace
}  // namespace advisor
