#include "engine/timeline/op_name.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace advisor {
namespace {

TEST(OpName, OneTextIsOneIdAndSpellsItself) {
  const OpName gather("aten::gather");
  EXPECT_EQ(gather, OpName(std::string("aten::gather")));
  EXPECT_EQ(gather.id(), OpName("aten::gather").id());
  EXPECT_NE(gather, OpName("GatherBackward0"));
  EXPECT_EQ(gather.str(), "aten::gather");
  const std::string long_name(300, 'x');  // beyond std::string's inline buffer
  EXPECT_EQ(OpName(long_name).str(), long_name);
  EXPECT_EQ(OpName(std::string_view("a\0b", 3)).str(), std::string("a\0b", 3));
  EXPECT_NE(OpName(std::string_view("a\0b", 3)), OpName("a"));
}

TEST(OpName, TheEmptyNameIsIdZero) {
  EXPECT_TRUE(OpName().empty());
  EXPECT_EQ(OpName("").id(), 0u);
  EXPECT_EQ(OpName(), OpName(""));
  EXPECT_EQ(OpName().str(), "");
  EXPECT_FALSE(OpName("aten::mm").empty());
}

TEST(OpName, ComparesWithTextWithoutInterningIt) {
  const OpName mm("aten::mm");
  EXPECT_TRUE(mm == "aten::mm");
  EXPECT_TRUE(mm == std::string("aten::mm"));
  EXPECT_TRUE(mm == std::string_view("aten::mm"));
  EXPECT_TRUE(mm != "aten::addmm");
  EXPECT_TRUE(mm != std::string("aten::m"));
}

// Interned out of order, they sort as their strings do, so tables keyed by them list ops in the
// order the reports always have.
TEST(OpName, OrdersAsItsString) {
  const std::vector<std::string> texts = {"zeta::op",     "aten::mm",  "",         "aten::m",
                                          "AddBackward0", "aten::mm_", "\xc3\xa9", "aten::add"};
  std::vector<OpName> names(texts.begin(), texts.end());
  std::sort(names.begin(), names.end());
  std::vector<std::string> sorted = texts;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> spelt;
  for (const OpName& name : names) spelt.push_back(name.str());
  EXPECT_EQ(spelt, sorted);
  EXPECT_FALSE(OpName("aten::mm") < OpName("aten::mm"));
  std::map<OpName, int> by_name;
  for (const std::string& text : texts) ++by_name[text];
  std::vector<std::string> keys;
  for (const auto& [name, count] : by_name) keys.push_back(name.str());
  EXPECT_EQ(keys, sorted);
}

// A name read by its id is read without the table's lock: its text must not move while later
// names are added, however many.
TEST(OpName, ANamesTextStaysWhereItIsAsTheTableGrows) {
  const OpName first("op_name_test::first");
  const std::string* text = &first.str();
  for (int i = 0; i < 20000; ++i) OpName("op_name_test::later_" + std::to_string(i));
  EXPECT_EQ(&first.str(), text);
  EXPECT_EQ(first.str(), "op_name_test::first");
  EXPECT_EQ(OpName("op_name_test::later_19999").str(), "op_name_test::later_19999");
}

// Probes intern from every thread that runs an op: each text gets one id, whichever thread
// interned it first.
TEST(OpName, ThreadsInterningAtOnceAgreeOnEveryId) {
  constexpr int kThreads = 4;
  constexpr int kNames = 2000;
  std::vector<std::vector<OpName>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &seen] {
      for (int i = 0; i < kNames; ++i) {
        // Each thread walks the names from another place, so that they race for new ones.
        const int k = (i + t * kNames / kThreads) % kNames;
        seen[t].push_back(OpName("op_name_test::shared_" + std::to_string(k)));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int k = 0; k < kNames; ++k) {
    const OpName name("op_name_test::shared_" + std::to_string(k));
    EXPECT_EQ(name.str(), "op_name_test::shared_" + std::to_string(k));
    for (int t = 0; t < kThreads; ++t) {
      EXPECT_EQ(seen[t][(k - t * kNames / kThreads + kNames) % kNames], name) << k << " " << t;
    }
  }
}

// Names are never freed: a fuzz campaign's made-up names stop being stored at the table's bound
// (64 MiB of text), where they read as kTableFull and the names stored before keep their text.
// In a child process, so that this binary's other tests still intern into a table with room.
TEST(OpName, NewNamesPastTheBoundAreTableFull) {
  EXPECT_EXIT(
      {
        const OpName kept("op_name_test::kept");
        const auto big = [](char c) { return std::string(std::size_t{4} << 20, c); };
        char c = 'a';
        while (c < 'z' && OpName(big(c)) != OpName::kTableFull) ++c;  // 4 MiB each: 16 fill it
        const bool filled = c < 'z' && c > 'a';
        const bool next_is_full = OpName(big('z')) == OpName::kTableFull;
        const bool stored_stay = OpName(big('a')).str() == big('a') &&
                                 kept.str() == "op_name_test::kept" &&
                                 OpName("op_name_test::kept") == kept && OpName("").empty();
        std::exit(filled && next_is_full && stored_stay ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace advisor
