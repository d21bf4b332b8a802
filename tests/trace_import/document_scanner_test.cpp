#include "engine/trace_import/document_scanner.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/trace_import/trace_error.h"
#include "tests/trace_import/sample_trace.h"

namespace advisor {
namespace {

struct Found : ScanSink {
  std::vector<std::string> events;
  std::vector<std::pair<std::uint64_t, std::string>> skipped;
  std::vector<std::pair<std::string, std::string>> members;
  const std::string* text = nullptr;

  void Event(std::uint64_t begin, std::uint64_t end) override {
    events.push_back(text->substr(begin, end - begin));
  }
  void Skipped(std::uint64_t begin, const char* problem) override {
    skipped.emplace_back(begin, problem);
  }
  void Member(const std::string& key, std::uint64_t begin, std::uint64_t end) override {
    members.emplace_back(key, text->substr(begin, end - begin));
  }
};

// Scans `text` in blocks of `block` bytes, re-offering what the scanner retains, as the reader
// does.
Found ScanInBlocks(const std::string& text, std::size_t block, bool* truncated = nullptr) {
  Found found;
  found.text = &text;
  DocumentScanner scanner("trace.json");
  std::uint64_t read = 0;
  while (read < text.size()) {
    const std::uint64_t from = scanner.RetainFrom();
    read = std::min<std::uint64_t>(text.size(), read + block);
    const std::string window = text.substr(from, read - from);
    scanner.Scan(window.data(), from, window.size(), found);
  }
  scanner.Finish(found);
  if (truncated != nullptr) *truncated = scanner.truncated();
  return found;
}

std::string ErrorOf(const std::string& text) {
  try {
    ScanInBlocks(text, 7);
  } catch (const TraceError& error) {
    return error.what();
  }
  return "";
}

TEST(DocumentScanner, FindsEveryEventAndTheMetadataAroundTheArray) {
  const std::string text = testing::SampleKinetoTrace();
  const Found found = ScanInBlocks(text, text.size());
  ASSERT_EQ(found.events.size(), 12u);
  EXPECT_EQ(found.events.front().substr(0, 1), "{");
  EXPECT_NE(found.events.front().find("ProfilerStep#3"), std::string::npos);
  EXPECT_NE(found.events.back().find("thread_name"), std::string::npos);
  ASSERT_EQ(found.members.size(), 3u);
  EXPECT_EQ(found.members[0].first, "deviceProperties");
  EXPECT_EQ(found.members[1].first, "distributedInfo");
  EXPECT_EQ(found.members[2].first, "baseTimeNanoseconds");
  EXPECT_EQ(found.members[2].second, "1759000000000000000");
  EXPECT_TRUE(found.skipped.empty());
}

TEST(DocumentScanner, BlockBoundariesAnywhereFindTheSameEvents) {
  const std::string text = testing::SampleKinetoTrace();
  const Found whole = ScanInBlocks(text, text.size());
  for (std::size_t block = 1; block < 64; ++block) {
    const Found split = ScanInBlocks(text, block);
    EXPECT_EQ(split.events, whole.events) << "block " << block;
    EXPECT_EQ(split.members, whole.members) << "block " << block;
  }
}

TEST(DocumentScanner, ReadsTheBareArrayOfTheLegacyExporter) {
  const std::string text = testing::SampleLegacyTrace();
  const Found found = ScanInBlocks(text, 5);
  ASSERT_EQ(found.events.size(), 2u);
  EXPECT_NE(found.events[1].find("aten::mm"), std::string::npos);
}

TEST(DocumentScanner, CountsElementsThatAreNoObject) {
  const Found found =
      ScanInBlocks(R"({"traceEvents": [{"ph": "X"}, 42, "text", [1], {"ph": "i"}]})", 3);
  EXPECT_EQ(found.events.size(), 2u);
  ASSERT_EQ(found.skipped.size(), 3u);
  EXPECT_EQ(found.skipped[0].first, 30u);  // the byte offset of 42
}

TEST(DocumentScanner, BracketsInsideStringsDoNotEndAnEvent) {
  const Found found = ScanInBlocks(R"([{"name": "}]\"{[", "ph": "X"}, {"name": "b\\"}])", 2);
  ASSERT_EQ(found.events.size(), 2u);
  EXPECT_EQ(found.events[0], R"({"name": "}]\"{[", "ph": "X"})");
  EXPECT_EQ(found.events[1], R"({"name": "b\\"})");
}

TEST(DocumentScanner, AFileCutOffInsideTheArrayKeepsItsEvents) {
  const std::string text = testing::SampleKinetoTrace();
  const std::string cut = text.substr(0, text.find("record_param_comms"));
  bool truncated = false;
  const Found found = ScanInBlocks(cut, 11, &truncated);
  EXPECT_TRUE(truncated);
  EXPECT_EQ(found.events.size(), 8u);
  ASSERT_EQ(found.skipped.size(), 1u);
  EXPECT_EQ(found.skipped[0].second, std::string("the file ends inside this event"));
}

TEST(DocumentScanner, TextThatIsNoTraceFailsWithTheByteOffset) {
  EXPECT_EQ(ErrorOf("PK\x03\x04 zip"), "trace.json: byte 0: not a JSON trace: it starts with 'P' "
                                       "(a torch.profiler trace is a JSON object or array)");
  EXPECT_EQ(ErrorOf(""), "trace.json: byte 0: the file is empty");
  EXPECT_EQ(ErrorOf(R"({"a": 1, "b": [2]})"),
            "trace.json: byte 18: no \"traceEvents\" array: not a torch.profiler trace");
  EXPECT_EQ(ErrorOf(R"({"a": 1, "b": [2)"),
            "trace.json: byte 16: no \"traceEvents\" array: not a torch.profiler trace");
  EXPECT_EQ(ErrorOf(R"({"traceEvents": {"a": 1}})"),
            "trace.json: byte 16: \"traceEvents\" is not an array");
  EXPECT_EQ(ErrorOf(R"({"traceEvents": [{"ph": "X"} {"ph": "X"}]})"),
            "trace.json: byte 29: expected ',' or ']' after an event, found '{'");
  EXPECT_EQ(ErrorOf(R"([{"ph": "X"}] trailing)"),
            "trace.json: byte 14: unexpected 't' after the end of the trace");
  EXPECT_EQ(ErrorOf(R"({"traceEvents" [)"), "trace.json: byte 15: expected ':' after "
                                            "\"traceEvents\", found '['");
}

TEST(DocumentScanner, RetainsOnlyTheEventInProgress) {
  const std::string text =
      R"({"skipped": [)" + std::string(1000, ' ') + R"(1], "traceEvents": [{"a": 1}, {"b": )";
  Found found;
  found.text = &text;
  DocumentScanner scanner("trace.json");
  scanner.Scan(text.data(), 0, text.size(), found);
  EXPECT_EQ(scanner.RetainFrom(), text.rfind('{'));
}

}  // namespace
}  // namespace advisor
