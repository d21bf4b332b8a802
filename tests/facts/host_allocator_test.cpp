#include "engine/facts/host_allocator.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

bool Keeps(const std::map<std::string, std::string>& env) {
  return HostAllocatorFacts(env).at("keeps_freed_memory").get<bool>();
}

TEST(HostAllocatorFacts, GlibcByDefaultHandsFreedMemoryBack) {
  const nlohmann::json facts = HostAllocatorFacts({});
  EXPECT_TRUE(facts.at("env").empty());
  EXPECT_FALSE(facts.at("keeps_freed_memory").get<bool>());
}

TEST(HostAllocatorFacts, APreloadedCachingAllocatorKeepsIt) {
  EXPECT_TRUE(Keeps({{"LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"}}));
  EXPECT_TRUE(Keeps({{"LD_PRELOAD", "libtcmalloc_minimal.so.4"}}));
  EXPECT_FALSE(Keeps({{"LD_PRELOAD", "libasan.so.8"}}));
}

TEST(HostAllocatorFacts, GlibcKeepsItWithMmapOffAndATrimThresholdBothSet) {
  EXPECT_FALSE(Keeps({{"MALLOC_MMAP_MAX_", "0"}})) << "the heap's top is still trimmed";
  EXPECT_FALSE(Keeps({{"MALLOC_TRIM_THRESHOLD_", "137438953472"}})) << "large blocks still mmap";
  EXPECT_TRUE(Keeps({{"MALLOC_MMAP_MAX_", "0"}, {"MALLOC_TRIM_THRESHOLD_", "137438953472"}}));
  EXPECT_TRUE(Keeps({{"GLIBC_TUNABLES", "glibc.malloc.check=0:glibc.malloc.mmap_max=0:"
                                        "glibc.malloc.trim_threshold=9"}}));
  EXPECT_FALSE(Keeps({{"GLIBC_TUNABLES", "glibc.malloc.mmap_max=0"}}));
  const nlohmann::json facts = HostAllocatorFacts({{"MALLOC_MMAP_MAX_", "0"}});
  EXPECT_EQ(facts.at("env").at("MALLOC_MMAP_MAX_"), "0");
}

}  // namespace
}  // namespace advisor
