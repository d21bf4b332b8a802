#include "engine/trace_analysis/module_markers.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

std::vector<std::string> Entered(const ModuleMarkers& markers) {
  std::vector<std::string> paths;
  for (const MarkerEvent& marker : markers.markers) {
    if (marker.kind == MarkerKind::kForwardEnter) paths.push_back(marker.path);
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

// Nested ranges cost O(depth^2) bytes of paths: 4,000 of them took 637 MB and wrote a 53 MB
// report. Depth and the paths' total size are bounded, with one line past either bound.
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

TEST(ModuleMarkers, PathsFillingMoreThanTheBoundAreRefused) {
  ModuleLimits limits;
  limits.max_path_bytes = 1 << 20;
  // 110 levels of 100-byte names: 6,105 components in the paths, each path twice: 1.2 MB.
  EXPECT_EQ(NestingError(Nested(110, std::string(100, 'x')), limits)
                .rfind("module paths fill more than 1 MiB (at 'xxx", 0),
            0u);
  EXPECT_EQ(NestingError(Nested(60, std::string(100, 'x')), limits), "");
}

}  // namespace
}  // namespace advisor
