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

}  // namespace
}  // namespace advisor
