// The compile cache a script autotest's runs share: what advisor sets, and the user's own
// settings, which it never overrides.
#include "engine/script/compile_cache.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace advisor {
namespace {

TEST(CompileCache, TheFolderAndTheFxGraphCacheForEveryRun) {
  const CompileCacheSettings settings = CompileCacheEnvironment("/tmp/advisor-compile-cache-1", {});
  EXPECT_EQ(settings.env, (std::map<std::string, std::string>{
                              {"TORCHINDUCTOR_CACHE_DIR", "/tmp/advisor-compile-cache-1"},
                              {"TORCHINDUCTOR_FX_GRAPH_CACHE", "1"}}));
  EXPECT_TRUE(settings.kept.empty());
  EXPECT_EQ(DescribeCompileCache(settings),
            "torch.compile's caches in /tmp/advisor-compile-cache-1, shared by every run of the "
            "autotest and removed after it");
}

TEST(CompileCache, TheUsersCacheSettingsAreKeptAndNamed) {
  const CompileCacheSettings settings =
      CompileCacheEnvironment("", {{"TORCHINDUCTOR_CACHE_DIR", "/data/inductor"},
                                   {"TORCHINDUCTOR_FX_GRAPH_CACHE", "0"},
                                   {"TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1"},
                                   {"TORCHINDUCTOR_MAX_AUTOTUNE", "1"}});
  EXPECT_TRUE(settings.env.empty()) << "nothing of theirs overridden";
  EXPECT_EQ(settings.kept, (std::vector<std::string>{"TORCHINDUCTOR_CACHE_DIR=/data/inductor",
                                                     "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1",
                                                     "TORCHINDUCTOR_FX_GRAPH_CACHE=0"}))
      << "a setting that names no cache is not the cache's to mention";
  EXPECT_EQ(DescribeCompileCache(settings),
            "torch.compile's caches where your TORCHINDUCTOR_CACHE_DIR says, shared by every run; "
            "your settings kept: TORCHINDUCTOR_CACHE_DIR=/data/inductor "
            "TORCHINDUCTOR_FORCE_DISABLE_CACHES=1 TORCHINDUCTOR_FX_GRAPH_CACHE=0");
}

TEST(CompileCache, ReadsOnlyTheInductorVariablesOfTheEnvironment) {
  ASSERT_EQ(setenv("TORCHINDUCTOR_FX_GRAPH_CACHE", "0", 1), 0);
  const std::map<std::string, std::string> found = InductorEnvironment();
  unsetenv("TORCHINDUCTOR_FX_GRAPH_CACHE");
  EXPECT_EQ(found.at("TORCHINDUCTOR_FX_GRAPH_CACHE"), "0");
  for (const auto& [name, value] : found) EXPECT_EQ(name.rfind("TORCHINDUCTOR_", 0), 0u) << name;
}

}  // namespace
}  // namespace advisor
