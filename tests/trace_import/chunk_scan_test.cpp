#include "engine/trace_import/chunk_scan.h"

#include <gtest/gtest.h>

#include <string>

namespace advisor {
namespace {

TEST(NextCut, IsTheBraceOfAnEventThatFollowsAnother) {
  const std::string kineto = "{\"traceEvents\": [\n  {\"a\": {}\n  },\n  {\"b\": 1}\n]}";
  EXPECT_EQ(NextCut(kineto.data(), 0, kineto.size()), kineto.find("{\"b\""));
  const std::string legacy = R"([{"args": {}}, {"n": 1},{"n": 2}])";
  EXPECT_EQ(NextCut(legacy.data(), 0, legacy.size()), legacy.find("{\"n\": 1"));
  EXPECT_EQ(NextCut(legacy.data(), legacy.find("{\"n\": 1") + 1, legacy.size()),
            legacy.find("{\"n\": 2"));
  // None before the limit: the limit, wherever it falls.
  EXPECT_EQ(NextCut(legacy.data(), 0, 5), 5u);
  const std::string none = R"([{"a": 1}])";
  EXPECT_EQ(NextCut(none.data(), 0, none.size()), none.size());
}

// Scans text in two chunks cut at `cut`, the second from the guess: whether the guess held.
bool GuessHolds(const std::string& text, std::uint64_t cut) {
  const DocumentScanner initial("trace.json");
  const ChunkScan first = ScanChunk(initial, text.data(), 0, cut);
  EXPECT_FALSE(first.error);
  return first.after.SameStateAs(initial.InEventArray(cut, text[0] == '['));
}

TEST(ChunkScan, TheGuessHoldsBetweenEventsAndFailsInsideOne) {
  const std::string kineto = "{\"traceEvents\": [\n  {\"ph\": \"X\", \"ts\": 1},\n  {\"ph\": "
                             "\"X\", \"ts\": 2}\n]}";
  EXPECT_TRUE(GuessHolds(kineto, NextCut(kineto.data(), 0, kineto.size())));
  const std::string bare = R"([{"ph": "X", "ts": 1}, {"ph": "X", "ts": 2}])";
  EXPECT_TRUE(GuessHolds(bare, NextCut(bare.data(), 0, bare.size())));
  // Inside a string, inside an event's arguments, before the event array.
  const std::string in_string = R"([{"ph": "X", "name": "a}, {b", "ts": 1}])";
  EXPECT_FALSE(GuessHolds(in_string, NextCut(in_string.data(), 0, in_string.size())));
  const std::string in_args = R"([{"ph": "X", "args": {"x": [{}, {}]}, "ts": 1}])";
  EXPECT_FALSE(GuessHolds(in_args, NextCut(in_args.data(), 0, in_args.size())));
  const std::string header = R"({"deviceProperties": [{"id": 0}, {"id": 1}], "traceEvents": []})";
  EXPECT_FALSE(GuessHolds(header, NextCut(header.data(), 0, header.size())));
}

TEST(ChunkScan, ParsesTheEventsItFindsAndKeepsAnErrorForLater) {
  const std::string text = R"({"traceEvents": [{"ph": "X", "ts": 1}, {"ph": "X", "ts": 2}, 7] x)";
  const DocumentScanner initial("trace.json");
  const ChunkScan whole = ScanChunk(initial, text.data(), 0, text.size());
  EXPECT_EQ(whole.parsed.chunk.size(), 2u);
  EXPECT_EQ(whole.parsed.skipped, 1u);
  ASSERT_EQ(whole.parsed.problems.size(), 1u);
  EXPECT_EQ(whole.parsed.problems[0].rfind("byte " + std::to_string(text.find('7')) + ": ", 0),
            0u);
  ASSERT_TRUE(whole.error);
  // An event cut by the chunk's end is left to the scanner, which carries it to the next chunk.
  const std::uint64_t middle = text.find("\"ts\": 2");
  const ChunkScan first = ScanChunk(initial, text.data(), 0, middle);
  EXPECT_EQ(first.parsed.chunk.size(), 1u);
  EXPECT_FALSE(first.error);
  EXPECT_EQ(first.after.RetainFrom(), text.find("{\"ph\": \"X\", \"ts\": 2"));
  const ChunkScan second = ScanChunk(first.after, text.data(), middle, text.size());
  EXPECT_EQ(second.parsed.chunk.size(), 1u);
  EXPECT_EQ(second.parsed.chunk.ts_ns[0], 2000);
}

}  // namespace
}  // namespace advisor
