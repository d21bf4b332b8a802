#include "engine/facts/allocator_settings.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

using nlohmann::json;

TEST(AllocatorFacts, DefaultsWhenUnset) {
  EXPECT_EQ(AllocatorFacts(""), json({{"conf", ""},
                                      {"backend", "native"},
                                      {"expandable_segments", false},
                                      {"options", json::object()}}));
}

TEST(AllocatorFacts, ParsesKnownAndKeepsAllOptions) {
  const json allocator = AllocatorFacts(
      " expandable_segments:True, max_split_size_mb:128,garbage_collection_threshold:0.6,"
      "roundup_power2_divisions:[256:1,512:2,1024:4],backend:cudaMallocAsync");
  EXPECT_EQ(allocator.at("expandable_segments"), true);
  EXPECT_EQ(allocator.at("max_split_size_mb"), 128.0);
  EXPECT_EQ(allocator.at("garbage_collection_threshold"), 0.6);
  EXPECT_EQ(allocator.at("backend"), "cudaMallocAsync");
  EXPECT_EQ(allocator.at("options").at("roundup_power2_divisions"), "[256:1,512:2,1024:4]");
  EXPECT_EQ(allocator.at("options").size(), 5u);
}

TEST(AllocatorFacts, FalseAndMalformedValues) {
  const json allocator = AllocatorFacts("expandable_segments:False,max_split_size_mb:lots,odd");
  EXPECT_EQ(allocator.at("expandable_segments"), false);
  EXPECT_FALSE(allocator.contains("max_split_size_mb"));
  EXPECT_EQ(allocator.at("options").at("odd"), "");
}

}  // namespace
}  // namespace advisor
