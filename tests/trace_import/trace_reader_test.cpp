#include "engine/trace_import/trace_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "engine/trace_import/trace_error.h"
#include "tests/report/scratch_dir.h"
#include "tests/trace_import/sample_trace.h"

namespace advisor {
namespace {

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

std::string Gzip(const std::string& text) {
  z_stream zlib{};
  deflateInit2(&zlib, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zlib, text.size()), '\0');
  zlib.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zlib.avail_in = static_cast<uInt>(text.size());
  zlib.next_out = reinterpret_cast<Bytef*>(out.data());
  zlib.avail_out = static_cast<uInt>(out.size());
  deflate(&zlib, Z_FINISH);
  out.resize(zlib.total_out);
  deflateEnd(&zlib);
  return out;
}

// Every event as one comparable row: category, phase, name, times and ids.
using Row = std::tuple<int, char, std::string, std::int64_t, std::int64_t, std::int64_t,
                       std::int64_t, std::int64_t, std::int64_t>;

std::vector<Row> Rows(const TraceStore& store) {
  std::vector<Row> rows;
  for (const EventChunk& chunk : store.chunks) {
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      rows.emplace_back(static_cast<int>(chunk.category[i]), chunk.phase[i],
                        store.strings[chunk.name[i]], chunk.pid[i], chunk.tid[i], chunk.ts_ns[i],
                        chunk.dur_ns[i], chunk.external_id[i], chunk.correlation[i]);
    }
  }
  return rows;
}

std::string ErrorReading(const std::string& path, ReadOptions options = {}) {
  try {
    ReadTrace(path, options);
  } catch (const TraceError& error) {
    return error.what();
  }
  return "";
}

TEST(TraceReader, ReadsEventsAndMetadataOfAKinetoTrace) {
  testing::ScratchDir dir;
  WriteFile(dir / "trace.json", testing::SampleKinetoTrace());
  const TraceStore store = ReadTrace(dir / "trace.json");
  EXPECT_EQ(store.events(), 12u);
  EXPECT_EQ(store.stats.skipped_events, 0u);
  EXPECT_TRUE(store.metadata.has_trace_events_object);
  ASSERT_EQ(store.metadata.devices.size(), 1u);
  EXPECT_EQ(store.metadata.devices[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(store.metadata.devices[0].sm_count, 132);
  EXPECT_EQ(store.metadata.devices[0].max_blocks_per_sm, 32);
  ASSERT_TRUE(store.metadata.distributed.has_value());
  EXPECT_EQ(store.metadata.distributed->rank, 1);
  EXPECT_EQ(store.metadata.distributed->world_size, 2);
  ASSERT_EQ(store.metadata.distributed->groups.size(), 1u);
  EXPECT_EQ(store.metadata.distributed->groups[0].ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(store.metadata.base_time_ns, 1759000000000000000);
  EXPECT_EQ(store.metadata.generator, "") << "Kineto names no generator";
  const std::vector<Row> rows = Rows(store);
  EXPECT_EQ(std::get<2>(rows[5]), "void gemm<float, \"quoted\\path\">(int)");
}

TEST(TraceReader, ThreadsBlocksAndCompressionReadTheSameEvents) {
  testing::ScratchDir dir;
  // Enough events for many batches and blocks.
  std::string text = "{\"traceEvents\": [";
  for (int i = 0; i < 5000; ++i) {
    if (i > 0) text += ",\n";
    text += R"({"ph": "X", "cat": "cpu_op", "name": "aten::op)" + std::to_string(i % 97) +
            R"(", "pid": 1, "tid": )" + std::to_string(i % 3) + R"(, "ts": )" +
            std::to_string(i) + ".5" + R"(, "dur": 0.25, "args": {"External id": )" +
            std::to_string(i) + "}}";
  }
  text += "]}";
  WriteFile(dir / "trace.json", text);
  WriteFile(dir / "trace.json.gz", Gzip(text));
  // Two gzip members, as `cat a.gz b.gz` makes: one stream of text.
  const std::size_t half = text.size() / 2;
  WriteFile(dir / "members.json.gz", Gzip(text.substr(0, half)) + Gzip(text.substr(half)));

  const std::vector<Row> expected = Rows(ReadTrace(dir / "trace.json", {1}));
  ASSERT_EQ(expected.size(), 5000u);
  EXPECT_EQ(std::get<5>(expected[3]), 3500);
  for (const std::string name : {"trace.json", "trace.json.gz", "members.json.gz"}) {
    for (int threads : {1, 2, 4}) {
      for (std::size_t block : {std::size_t{97}, std::size_t{4096}, std::size_t{8u << 20}}) {
        ReadOptions options;
        options.threads = threads;
        options.block_bytes = block;
        options.chunk_bytes = block;
        const TraceStore store = ReadTrace(dir / name, options);
        EXPECT_EQ(Rows(store), expected) << name << " threads " << threads << " block " << block;
        EXPECT_EQ(store.stats.json_bytes, text.size());
        EXPECT_EQ(store.stats.compressed, name != std::string("trace.json"));
      }
    }
  }
}

TEST(TraceReader, ReadsTheLegacyExportersBareArray) {
  testing::ScratchDir dir;
  WriteFile(dir / "legacy.json", testing::SampleLegacyTrace());
  const TraceStore store = ReadTrace(dir / "legacy.json");
  EXPECT_FALSE(store.metadata.has_trace_events_object);
  const std::vector<Row> rows = Rows(store);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(std::get<0>(rows[1]), static_cast<int>(EventCategory::kNone));
  EXPECT_EQ(std::get<3>(rows[1]), kAbsent);  // pid "CPU functions"
  EXPECT_EQ(std::get<5>(rows[1]), 120000);
}

// A 3.6 MB .json.gz of tiny events took 45 s and 4.9 GB: the inflated size and the event count
// are bounded, on one thread and on several, from a plain file and a compressed one.
TEST(TraceReader, TooManyEventsOrAGzipBombEndTheReadWithOneLine) {
  testing::ScratchDir dir;
  std::string tiny = "[";
  for (int i = 0; i < 100000; ++i) tiny += "{\"ph\":\"i\"},";
  tiny += "{\"ph\":\"i\"}]";
  WriteFile(dir / "tiny.json", tiny);
  WriteFile(dir / "tiny.json.gz", Gzip(tiny));
  for (int threads : {1, 2}) {
    ReadOptions options;
    options.threads = threads;
    options.chunk_bytes = 4096;
    options.block_bytes = 4096;
    options.max_events = 1000;
    EXPECT_EQ(ErrorReading(dir / "tiny.json", options),
              dir / "tiny.json" +
                  ": more than 1000 events, the most one trace may hold (docs/security.md)");
    EXPECT_EQ(ErrorReading(dir / "tiny.json.gz", options)
                  .rfind(dir / "tiny.json.gz: more than 1000 events", 0),
              0u);
    options.max_events = ReadOptions{}.max_events;
    EXPECT_NE(ErrorReading(dir / "tiny.json.gz", options)
                  .find(": inflates to more than 200 times its compressed size ("),
              std::string::npos)
        << "100,000 tiny events compress more than 200 times";
    EXPECT_EQ(ErrorReading(dir / "tiny.json", options), "") << "a plain file has no inflation";
  }
  const std::string sample = Gzip(testing::SampleKinetoTrace());
  WriteFile(dir / "sample.json.gz", sample);
  EXPECT_EQ(ErrorReading(dir / "sample.json.gz"), "") << "a real trace is far below the bounds";
}

TEST(TraceReader, BadFilesFailWithOneLineNamingFileAndProblem) {
  testing::ScratchDir dir;
  EXPECT_EQ(ErrorReading(dir / "missing.json"),
            dir / "missing.json" + ": no such file");
  EXPECT_EQ(ErrorReading(dir.path()), dir.path() + ": is a directory");
  const std::string gz = Gzip(testing::SampleKinetoTrace());
  WriteFile(dir / "cut.json.gz", gz.substr(0, gz.size() / 2));
  EXPECT_EQ(ErrorReading(dir / "cut.json.gz"),
            dir / "cut.json.gz" + ": byte " + std::to_string(gz.size() / 2) +
                ": the gzip data ends early (the file is cut off)");
  std::string corrupt = gz;
  for (std::size_t i = 20; i < 60; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  WriteFile(dir / "corrupt.json.gz", corrupt);
  const std::string error = ErrorReading(dir / "corrupt.json.gz");
  EXPECT_EQ(error.rfind(dir / "corrupt.json.gz" + ": byte ", 0), 0u) << error;
  EXPECT_NE(error.find("corrupt gzip data"), std::string::npos) << error;
  WriteFile(dir / "huge.json", "[{\"name\": \"" + std::string(300, 'x') + "\"}]");
  ReadOptions small;
  small.block_bytes = 64;
  small.max_event_bytes = 128;
  EXPECT_EQ(ErrorReading(dir / "huge.json", small),
            dir / "huge.json" + ": byte 1: an event larger than 0 MiB: not a trace this reader "
                                "accepts");
}

TEST(TraceReader, SkippedEventsAreCountedWithTheirOffsets) {
  testing::ScratchDir dir;
  WriteFile(dir / "trace.json",
            R"({"traceEvents": [{"ph": "X", "ts": 1}, {"ph": "X", "ts": 1 "dur": 1}, 7]})");
  const TraceStore store = ReadTrace(dir / "trace.json");
  EXPECT_EQ(store.events(), 1u);
  EXPECT_EQ(store.stats.skipped_events, 2u);
  ASSERT_EQ(store.stats.problems.size(), 2u);
  // In file order: the parser's problem, then the scanner's.
  EXPECT_EQ(store.stats.problems[0],
            "byte 59: expected ',' or '}' in an object; the event is skipped");
  EXPECT_EQ(store.stats.problems[1],
            "byte 70: an element of the event array is not a JSON object; the event is skipped");
}

// On one thread a .json.gz's events are parsed where the scanner meets them, and where one does
// not parse whole within its block (a malformed event, or one cut by the block's end) the scanner
// finds its end and it is parsed then: the events, skips and problems are a plain file's, in file
// order. With parsers, a batch's problems come after the scanner's found meanwhile (the first
// five are kept): the same events and counts.
TEST(TraceReader, ACompressedTraceOnOneThreadKeepsTheFileOrderOfEventsAndSkips) {
  testing::ScratchDir dir;
  std::string text = "[";
  for (int i = 0; i < 300; ++i) {
    if (i > 0) text += ", ";
    if (i % 50 == 7) {
      text += R"({"ph": "X", "ts": 1 "dur": 1})";  // a comma missing
    } else if (i % 50 == 31) {
      text += std::to_string(i);  // not an object
    } else {
      text += R"({"ph": "X", "name": "aten::op)" + std::to_string(i % 13) + R"(", "ts": )" +
              std::to_string(i) + R"(, "dur": 1, "tid": 2})";
    }
  }
  text += "]";
  WriteFile(dir / "trace.json", text);
  WriteFile(dir / "trace.json.gz", Gzip(text));
  const TraceStore expected = ReadTrace(dir / "trace.json", {1});
  ASSERT_EQ(expected.events(), 288u);
  ASSERT_EQ(expected.stats.skipped_events, 12u);
  for (int threads : {1, 2}) {
    for (std::size_t block : {std::size_t{40}, std::size_t{1000}, std::size_t{8u << 20}}) {
      ReadOptions options;
      options.threads = threads;
      options.block_bytes = block;
      const TraceStore store = ReadTrace(dir / "trace.json.gz", options);
      const std::string where = "threads " + std::to_string(threads) + ", blocks of " +
                                std::to_string(block);
      EXPECT_EQ(Rows(store), Rows(expected)) << where;
      EXPECT_EQ(store.stats.skipped_events, expected.stats.skipped_events) << where;
      if (threads == 1) {
        EXPECT_EQ(store.stats.problems, expected.stats.problems) << where;
      }
    }
  }
}

// The parallel split guesses each chunk's start state; wherever the guess is wrong, the result
// must still be the serial scan's: the same events, skips, problems, metadata and errors.
void ExpectSameAsSerial(const std::string& name, const std::string& text) {
  testing::ScratchDir dir;
  WriteFile(dir / "trace.json", text);
  ReadOptions serial;
  serial.threads = 1;
  serial.chunk_bytes = std::size_t{1} << 40;  // one chunk: no cut, no guess
  const std::string expected_error = ErrorReading(dir / "trace.json", serial);
  const TraceStore expected = expected_error.empty() ? ReadTrace(dir / "trace.json", serial)
                                                     : TraceStore{};
  for (int threads : {2, 4}) {
    for (std::size_t chunk : {1, 7, 64, 1000}) {
      ReadOptions options;
      options.threads = threads;
      options.chunk_bytes = chunk;
      const std::string where = name + ", threads " + std::to_string(threads) + ", chunks of " +
                                std::to_string(chunk);
      if (!expected_error.empty()) {
        EXPECT_EQ(ErrorReading(dir / "trace.json", options), expected_error) << where;
        continue;
      }
      const TraceStore store = ReadTrace(dir / "trace.json", options);
      EXPECT_EQ(Rows(store), Rows(expected)) << where;
      EXPECT_EQ(store.stats.skipped_events, expected.stats.skipped_events) << where;
      EXPECT_EQ(store.stats.problems, expected.stats.problems) << where;
      EXPECT_EQ(store.stats.truncated, expected.stats.truncated) << where;
      EXPECT_EQ(store.metadata.has_trace_events_object, expected.metadata.has_trace_events_object);
      EXPECT_EQ(store.metadata.base_time_ns, expected.metadata.base_time_ns) << where;
      ASSERT_EQ(store.metadata.devices.size(), expected.metadata.devices.size()) << where;
      for (std::size_t i = 0; i < store.metadata.devices.size(); ++i) {
        EXPECT_EQ(store.metadata.devices[i].name, expected.metadata.devices[i].name) << where;
      }
      EXPECT_EQ(store.metadata.distributed.has_value(), expected.metadata.distributed.has_value());
    }
  }
}

std::string Event(int i, const std::string& name, const std::string& args = "") {
  return R"({"ph": "X", "cat": "cpu_op", "name": ")" + name + R"(", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(i) + R"(, "dur": 1, "args": {"External id": )" + std::to_string(i) +
         args + "}}";
}

TEST(TraceReader, TheParallelSplitReadsWhatTheSerialScanReads) {
  ExpectSameAsSerial("the Kineto sample", testing::SampleKinetoTrace());
  ExpectSameAsSerial("the legacy sample", testing::SampleLegacyTrace());
  // Cuts inside strings: names that hold "}, {", an escaped quote before one, and an escaped
  // newline inside one.
  ExpectSameAsSerial("a chunk that starts inside a string",
                     "{\"traceEvents\": [" + Event(1, "a}, {b") + ",\n" +
                         Event(2, R"(c\"}, {\"d)") + ",\n" + Event(3, R"(e},\n{f)") + ",\n" +
                         Event(4, "g") + "]}");
  // One line, no newline anywhere, as the legacy exporter writes.
  std::string one_line = "[";
  for (int i = 0; i < 200; ++i) {
    one_line += (i > 0 ? ", " : "") + Event(i, "aten::op" + std::to_string(i % 7));
  }
  ExpectSameAsSerial("a document without newlines", one_line + "]");
  // Cuts inside events: arrays of objects in the arguments, and an event longer than a chunk.
  ExpectSameAsSerial("events across chunk boundaries",
                     "{\"traceEvents\": [\n" +
                         Event(1, "a", R"(, "x": [{"a": 1}, {"b": [{}, {}]}])") + ",\n" +
                         Event(2, std::string(3000, 'n')) + ",\n" +
                         Event(3, "b", R"(, "y": [{}, {}, {}])") + "\n]}");
  // Members after the events, one an array of objects (cuts in it), and a trace cut off.
  const std::string after =
      "{\"traceEvents\": [\n" + Event(1, "a") + ",\n" + Event(2, "b") + "\n],\n" +
      R"("deviceProperties": [{"id": 0, "name": "A"}, {"id": 1, "name": "B"}],)" + "\n" +
      R"("distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},)" + "\n" +
      R"("baseTimeNanoseconds": 17})";
  ExpectSameAsSerial("metadata after traceEvents", after);
  ExpectSameAsSerial("a trace cut off", after.substr(0, after.find("\n],")));
  // Broken elements and documents: skips and errors at the same bytes.
  ExpectSameAsSerial("elements that are no events",
                     "[" + Event(1, "a") +
                         R"(, 7, "x", {"ph": 1}, {"ph": "X", "ts": 1 "dur": 1}, )" +
                         Event(2, "b") + "]");
  ExpectSameAsSerial("an error after a cut", "[" + Event(1, "a") + ", " + Event(2, "b") + "] x");
}

// advisor's trace.json names itself in otherData, before or after the events; an otherData that
// is no object is a problem line, and the trace is read as anyone's.
TEST(TraceReader, OtherDataNamesTheGenerator) {
  testing::ScratchDir dir;
  const std::string events = "\"traceEvents\": [" + Event(1, "a") + "]";
  const auto generator = [&](const std::string& text) {
    WriteFile(dir / "trace.json", text);
    const TraceStore store = ReadTrace(dir / "trace.json");
    return store.metadata.generator + (store.stats.problems.empty() ? "" : " (a problem)");
  };
  EXPECT_EQ(generator("{" + events + R"(, "otherData": {"generator": "advisor", "probes": []}})"),
            "advisor");
  EXPECT_EQ(generator(R"({"otherData": {"clock": "x", "generator": "advisor"}, )" + events + "}"),
            "advisor");
  EXPECT_EQ(generator("{" + events + R"(, "otherData": {"generator": 7}})"), "");
  EXPECT_EQ(generator("{" + events + R"(, "otherData": ["advisor"]})"), " (a problem)");
}

// A rank out of range would merge the trace as another rank's (or, read as "no rank", take its
// rank from the file name): the file is refused with one line naming the member and the range.
TEST(TraceReader, ADistributedInfoRankOutOfRangeIsRefused) {
  testing::ScratchDir dir;
  const std::string before = "{\"traceEvents\": [" + Event(1, "a") + "], \"distributedInfo\": ";
  const auto with_info = [&](const std::string& info) {
    WriteFile(dir / "rank.json", before + info + "}");
    return ErrorReading(dir / "rank.json");
  };
  const std::string at = dir / "rank.json" + ": byte " + std::to_string(before.size()) +
                         ": \"distributedInfo\" ";
  EXPECT_EQ(with_info(R"({"rank": -1, "world_size": 2})"),
            at + "rank -1 is not an integer from 0 to 1 (world_size 2)");
  EXPECT_EQ(with_info(R"({"rank": 3, "world_size": 3})"),
            at + "rank 3 is not an integer from 0 to 2 (world_size 3)");
  EXPECT_EQ(with_info(R"({"rank": 1000000000000000000})"),
            at + "rank 1000000000000000000 is not an integer from 0 to 1048575");
  EXPECT_EQ(with_info(R"({"rank": 0, "world_size": 18446744073709551615})"),
            at + "world_size 18446744073709551615 is not an integer from 1 to 1048576");
  EXPECT_EQ(with_info(R"({"rank": "0", "world_size": 2})"),
            at + "rank \"0\" is not an integer from 0 to 1 (world_size 2)");
  EXPECT_EQ(with_info(R"({"rank": 1, "world_size": 2})"), "") << "in range: read";
}

// The guess holds wherever Kineto's layout puts a cut, so no chunk is scanned twice; a name with
// "}, {" in it costs a second scan of the chunks cut there.
TEST(TraceReader, GuessesHoldAtTheCutsOfAKinetoTrace) {
  testing::ScratchDir dir;
  std::string text = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n";
  for (int i = 0; i < 300; ++i) {
    text += std::string(i > 0 ? ",\n" : "") + "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", " +
            "\"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1,\n    \"ts\": " + std::to_string(i) +
            ", \"dur\": 1,\n    \"args\": {\n      \"External id\": " + std::to_string(i) +
            "\n    }\n  }";
  }
  text += "\n  ],\n  \"baseTimeNanoseconds\": 1\n}\n";
  std::string tricky = text;
  for (std::size_t at = 0; (at = tricky.find("aten::mm", at)) != std::string::npos;) {
    tricky.replace(at, 8, "a}, {b");
  }
  WriteFile(dir / "trace.json", text);
  WriteFile(dir / "tricky.json", tricky);
  // Chunk sizes that land the searches everywhere in an event (each is about 150 bytes).
  std::uint64_t tricky_again = 0;
  for (std::size_t chunk = 1000; chunk < 1160; chunk += 10) {
    ReadOptions options;
    options.threads = 2;
    options.chunk_bytes = chunk;
    const TraceStore store = ReadTrace(dir / "trace.json", options);
    EXPECT_EQ(store.events(), 300u);
    EXPECT_GT(store.stats.chunks, 30u);
    EXPECT_EQ(store.stats.chunks_scanned_again, 0u) << "chunks of " << chunk;
    const TraceStore tricky_store = ReadTrace(dir / "tricky.json", options);
    EXPECT_EQ(Rows(tricky_store).size(), 300u);
    tricky_again += tricky_store.stats.chunks_scanned_again;
  }
  EXPECT_GT(tricky_again, 0u);
}

// Mutated traces must give a store or a TraceError: never a crash, a hang or another exception.
// (The fuzz target in fuzz/ does the same at scale.)
TEST(TraceReader, MutatedTracesAreReadOrRefusedWithoutCrashing) {
  testing::ScratchDir dir;
  const std::string sample = testing::SampleKinetoTrace();
  std::mt19937 random(1234);
  int refused = 0, read = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string text = sample;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = random() % text.size();
      switch (random() % 3) {
        case 0: text[at] = static_cast<char>(random() % 256); break;
        case 1: text.erase(at, 1 + random() % 16); break;
        default: text.insert(at, text.substr(random() % text.size(), 1 + random() % 32)); break;
      }
    }
    WriteFile(dir / "mutated.json", text);
    ReadOptions options;
    options.threads = 1 + round % 3;
    options.block_bytes = 16 + random() % 512;
    options.chunk_bytes = 1 + random() % 512;
    try {
      const TraceStore store = ReadTrace(dir / "mutated.json", options);
      ++read;
      EXPECT_LE(store.events(), 14u);
    } catch (const TraceError&) {
      ++refused;
    }
  }
  EXPECT_GT(read, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace advisor
