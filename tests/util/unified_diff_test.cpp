#include "engine/util/unified_diff.h"

#include <gtest/gtest.h>

namespace advisor {
namespace {

TEST(UnifiedDiff, EqualTextsHaveNoDiff) { EXPECT_EQ(UnifiedDiff("a\nb\n", "a\nb\n"), ""); }

TEST(UnifiedDiff, OneChangedLineWithItsContext) {
  const std::string before = "1\n2\n3\nold\n5\n6\n7\n";
  const std::string after = "1\n2\n3\nnew\nnewer\n5\n6\n7\n";
  EXPECT_EQ(UnifiedDiff(before, after), "@@ -2,5 +2,6 @@\n 2\n 3\n-old\n+new\n+newer\n 5\n 6\n");
}

TEST(UnifiedDiff, DistantChangesAreSeparateHunks) {
  const std::string before = "a\nb\nc\nd\ne\nf\ng\nh\ni\n";
  const std::string after = "A\nb\nc\nd\ne\nf\ng\nh\nI\n";
  EXPECT_EQ(UnifiedDiff(before, after, {1, 40}),
            "@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -8,2 +8,2 @@\n h\n-i\n+I\n");
}

TEST(UnifiedDiff, ALongDiffIsShortenedAndSaysHowMuchIsLeftOut) {
  std::string before, after;
  for (int i = 0; i < 30; ++i) {
    before += "x" + std::to_string(i) + "\n";
    after += "y" + std::to_string(i) + "\n";
  }
  const std::string diff = UnifiedDiff(before, after, {2, 10});
  EXPECT_EQ(diff.rfind("@@ -1,30 +1,30 @@\n-x0\n", 0), 0u) << diff;
  EXPECT_NE(diff.find("... 51 more lines of the diff\n"), std::string::npos) << diff;
}

}  // namespace
}  // namespace advisor
