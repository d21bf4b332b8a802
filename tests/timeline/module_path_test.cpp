#include "engine/timeline/module_path.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace advisor {
namespace {

TEST(ModulePath, SpellsTheDottedStringItWasMadeFrom) {
  for (const std::string dotted : {"blocks.5.mlp", "a", "a..b", ".a", "a.", ".", "x.y.z.w"}) {
    const ModulePath path(dotted);
    EXPECT_EQ(path.str(), dotted);
    EXPECT_EQ(path.Size(), dotted.size());
    EXPECT_EQ(path.Depth(), std::count(dotted.begin(), dotted.end(), '.') + 1u) << dotted;
  }
  EXPECT_TRUE(ModulePath("").empty());
  EXPECT_EQ(ModulePath("").Depth(), 0u);
  EXPECT_EQ(ModulePath().str(), "");
}

TEST(ModulePath, AChildIsItsParentsPathAndItsOwnComponents) {
  const ModulePath encoder("encoder");
  EXPECT_EQ(encoder.Child("layer.0"), ModulePath("encoder.layer.0"));
  EXPECT_EQ(encoder.Child("layer.0").Depth(), 3u);
  EXPECT_EQ(encoder.Child(""), ModulePath("encoder."));
  EXPECT_EQ(ModulePath().Child("head"), ModulePath("head"));
  EXPECT_EQ(ModulePath().Child(""), ModulePath());
  EXPECT_EQ(ModulePath("a.b.c").Parent(), ModulePath("a.b"));
  EXPECT_EQ(ModulePath("a").Parent(), ModulePath());
  EXPECT_EQ(ModulePath().Parent(), ModulePath());
}

// Equality, order and hash are the dotted strings', however the paths were put together.
TEST(ModulePath, ComparesOrdersAndHashesAsItsString) {
  const std::vector<std::string> strings = {
      "",           "a",    "a.b",   "a-b",  "a.b.c", "ab",  "a.",   "a..b", "b",
      "a\x7f",      "a.b0", "a0",    "a/b",  "a.a",   "a.c", "aa.b", "a.bc", "\xc3\xa9",
      "a.\xc3\xa9", ".",    "a.b-c", "a.b.", "ab.c",  "a-",  "a.-"};
  std::vector<ModulePath> paths;
  for (const std::string& dotted : strings) {
    // Those with a first component built as its child, sharing nothing with the parsed ones.
    const std::size_t dot = dotted.find('.');
    paths.push_back(dot == std::string::npos || dot == 0
                        ? ModulePath(dotted)
                        : ModulePath(dotted.substr(0, dot)).Child(dotted.substr(dot + 1)));
  }
  for (std::size_t i = 0; i < strings.size(); ++i) {
    for (std::size_t j = 0; j < strings.size(); ++j) {
      const ModulePath parsed(strings[j]);
      EXPECT_EQ(paths[i] == parsed, strings[i] == strings[j]) << strings[i] << " " << strings[j];
      EXPECT_EQ(paths[i] < parsed, strings[i] < strings[j]) << strings[i] << " " << strings[j];
      if (strings[i] == strings[j]) {
        EXPECT_EQ(paths[i].Hash(), parsed.Hash()) << strings[i];
      }
    }
  }
}

TEST(ModulePath, IsInsideItsAncestorsOnly) {
  EXPECT_TRUE(IsSameOrDescendant("a.b", "a"));
  EXPECT_TRUE(IsSameOrDescendant("a.b", "a.b"));
  EXPECT_TRUE(IsSameOrDescendant("a.b", ""));
  EXPECT_TRUE(IsSameOrDescendant("", ""));
  EXPECT_FALSE(IsSameOrDescendant("ab", "a"));
  EXPECT_FALSE(IsSameOrDescendant("a", "a.b"));
  EXPECT_FALSE(IsSameOrDescendant("", "a"));
  EXPECT_FALSE(IsSameOrDescendant("b.a", "a"));
}

TEST(ModulePath, TellsWhetherATextSpellsItAndMore) {
  EXPECT_TRUE(ModulePath("encoder").PrefixesDotted("encoder.attn"));
  EXPECT_TRUE(ModulePath("a.b").PrefixesDotted("a.b.c.d"));
  EXPECT_FALSE(ModulePath("encoder").PrefixesDotted("encoder"));
  EXPECT_FALSE(ModulePath("encoder").PrefixesDotted("encoderx.attn"));
  EXPECT_FALSE(ModulePath("a.b").PrefixesDotted("a.bc"));
  EXPECT_FALSE(ModulePath("a.b").PrefixesDotted("a.c.d"));
  EXPECT_FALSE(ModulePath("a.b").PrefixesDotted("a-b.c"));
  EXPECT_FALSE(ModulePath().PrefixesDotted(".a"));
}

TEST(ModulePath, ShowsALongPathAsItsFirstAndLastComponents) {
  EXPECT_EQ(ModulePath("blocks.5.mlp").Shown(), "blocks.5.mlp");
  ModulePath deep;
  for (int i = 0; i < 200; ++i) deep = deep.Child("layer_" + std::to_string(1000 + i));
  ASSERT_GT(deep.Size(), ModulePath::kShownBytes);
  const std::string shown = deep.Shown();
  EXPECT_LE(shown.size(), ModulePath::kShownBytes);
  // 21 components of 10 bytes fit in each half (237 bytes) of the 512.
  EXPECT_EQ(shown.rfind("layer_1000.layer_1001.", 0), 0u) << shown;
  EXPECT_NE(shown.find(".layer_1020.…(158 levels)….layer_1179."), std::string::npos) << shown;
  EXPECT_EQ(shown.substr(shown.size() - 22), ".layer_1198.layer_1199") << shown;
}

TEST(ModulePath, ShowsComponentsLongerThanTheBoundByTheirStartsWithWholeCharacters) {
  std::string name;
  for (int i = 0; i < 1000; ++i) name += "\xc3\xa9";  // é, two bytes
  const std::string shown = ModulePath(name).Shown();
  EXPECT_LE(shown.size(), ModulePath::kShownBytes);
  const std::string mark = "…(1 level)…";
  ASSERT_EQ(shown.size() % 2, mark.size() % 2) << "whole é only";
  EXPECT_EQ(shown.substr(shown.size() - mark.size()), mark);
  EXPECT_EQ(shown.rfind("\xc3\xa9\xc3\xa9", 0), 0u);

  const std::string first(1000, 'a'), last = "last_" + std::string(1000, 'z');
  const std::string two = ModulePath(first).Child(last).Shown();
  EXPECT_LE(two.size(), ModulePath::kShownBytes);
  EXPECT_NE(two.find("aaa…(2 levels)…last_zzz"), std::string::npos) << two;
}

// A path parsed from a string of dots has a node per dot; releasing them one inside another's
// destructor ran out of stack.
TEST(ModulePath, AVeryDeepPathIsReleasedWithoutRecursion) {
  ModulePath shared;
  {
    const ModulePath deep(std::string(200'000, '.'));
    EXPECT_EQ(deep.Depth(), 200'001u);
    shared = deep.Parent();
  }  // the deepest node goes; the chain it shared stays
  EXPECT_EQ(shared.Depth(), 200'000u);
}  // and then the whole chain

}  // namespace
}  // namespace advisor
