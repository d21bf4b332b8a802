#include "engine/trace_analysis/module_markers.h"

#include <gtest/gtest.h>

#include "tests/allocated_bytes.h"

namespace advisor {
namespace {

std::vector<std::string> Entered(const ModuleMarkers& markers) {
  std::vector<std::string> paths;
  for (const MarkerEvent& marker : markers.markers) {
    if (marker.kind == MarkerKind::kForwardEnter) paths.push_back(marker.path.str());
  }
  return paths;
}

TEST(ModuleMarkers, NestedRangesSpellPaths) {
  const ModuleMarkers markers = MarkersOfModuleRanges({
      {"gnn", "", 1, 100, 900},
      {"conv1", "", 1, 150, 400},
      {"aggregate", "Aggregate", 1, 200, 300},
      {"conv2", "", 1, 400, 800},  // starts where conv1 ends: a sibling
      {"head", "", 1, 950, 990},
      {"other", "", 2, 160, 170},  // another thread: no parent there
  });
  EXPECT_EQ(Entered(markers), (std::vector<std::string>{"gnn", "gnn.conv1", "gnn.conv1.aggregate",
                                                        "gnn.conv2", "head", "other"}));
  EXPECT_EQ(markers.types.at("gnn.conv1.aggregate"), "Aggregate");
  EXPECT_EQ(markers.types.count("gnn"), 0u);
  ASSERT_EQ(markers.markers.size(), 12u);
  EXPECT_EQ(markers.markers[1].kind, MarkerKind::kForwardExit);
  EXPECT_EQ(markers.markers[1].time_ns, 900);
}

TEST(ModuleMarkers, ALabelThatSpellsItsParentsPathIsAWholePath) {
  // blocks is a ModuleList (never called): blocks.0 is labelled by its whole path at the top.
  const ModuleMarkers markers = MarkersOfModuleRanges({
      {"blocks.0", "", 1, 0, 100},
      {"blocks.0.attn", "", 1, 10, 50},
      {"blocks.0x", "", 1, 60, 70},  // not a child path: a component
  });
  EXPECT_EQ(Entered(markers), (std::vector<std::string>{"blocks.0", "blocks.0.attn",
                                                        "blocks.0.blocks.0x"}));
}

TEST(ModuleMarkers, ARangeThatOnlyOverlapsAnotherIsNotItsChild) {
  const ModuleMarkers markers =
      MarkersOfModuleRanges({{"a", "", 1, 0, 100}, {"b", "", 1, 50, 150}});
  EXPECT_EQ(Entered(markers), (std::vector<std::string>{"a", "b"}));
}

// Nested ranges whose paths were spelt whole cost O(depth^2) bytes: 4,000 of them took 637 MB
// and wrote a 53 MB report. Each path now refers to its parent's, and depth is bounded, with one
// line past the bound.
std::vector<ModuleRange> Nested(int depth, const std::string& component) {
  std::vector<ModuleRange> ranges;
  for (int i = 0; i < depth; ++i) ranges.push_back({component, "", 1, i, 2 * depth - i});
  return ranges;
}

std::string NestingError(const std::vector<ModuleRange>& ranges, const ModuleLimits& limits) {
  try {
    MarkersOfModuleRanges(ranges, limits);
  } catch (const ModuleNestingError& error) {
    return error.what();
  }
  return "";
}

TEST(ModuleMarkers, NestingDeeperThanTheBoundIsRefused) {
  EXPECT_EQ(NestingError(Nested(128, "m"), {}), "") << "the default depth, reached";
  std::string first_80;  // where the message cuts the path
  for (int i = 0; i < 40; ++i) first_80 += "m.";
  EXPECT_EQ(NestingError(Nested(129, "m"), {}),
            "module ranges nest deeper than 128 levels (at '" + first_80 + "...')");
  EXPECT_EQ(NestingError(Nested(4000, "m"), {}).rfind("module ranges nest deeper than 128", 0), 0u);
}

// 128 levels of 1,000-byte names: spelt whole, their paths took 8.3 MB, and each was copied into
// its two markers and the open ranges (49 MB allocated). Shared, they cost about the names.
TEST(ModuleMarkers, NestedRangesCostTheirNamesNotTheirPaths) {
  std::vector<ModuleRange> ranges = Nested(128, std::string(1000, 'x'));
  const std::size_t before = testing::AllocatedBytes();
  const ModuleMarkers markers = MarkersOfModuleRanges(std::move(ranges));
  const std::size_t allocated = testing::AllocatedBytes() - before;
  EXPECT_LT(allocated, 4u * 128 * 1000) << "bytes allocated for 128 KB of names";
  ASSERT_EQ(markers.markers.size(), 256u);
  const ModulePath& deepest = markers.markers[254].path;
  EXPECT_EQ(deepest.Depth(), 128u);
  EXPECT_EQ(deepest.Size(), 128u * 1001 - 1);
}

}  // namespace
}  // namespace advisor
