#include "engine/trace_import/event_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace advisor {
namespace {

ParsedBatch Parse(const std::string& event, std::uint64_t offset = 0) {
  ParsedBatch batch;
  ParseEvent(event.data(), event.data() + event.size(), offset, batch);
  return batch;
}

const std::string& Name(const ParsedBatch& batch, std::uint32_t id) {
  return batch.strings[id];
}

TEST(EventParser, ReadsTheFieldsOfAnOp) {
  const ParsedBatch batch = Parse(R"({"ph": "X", "cat": "cpu_op", "name": "aten::addmm",
      "pid": 100, "tid": 101, "ts": 1010.25, "dur": 40, "unknown": {"deep": [1, 2]},
      "args": {"External id": 2, "Sequence number": 7, "Fwd thread id": 1, "Input Dims": [[1]]}})");
  ASSERT_EQ(batch.chunk.size(), 1u);
  const EventChunk& chunk = batch.chunk;
  EXPECT_EQ(chunk.category[0], EventCategory::kCpuOp);
  EXPECT_EQ(chunk.phase[0], 'X');
  EXPECT_EQ(Name(batch, chunk.name[0]), "aten::addmm");
  EXPECT_EQ(chunk.pid[0], 100);
  EXPECT_EQ(chunk.tid[0], 101);
  EXPECT_EQ(chunk.ts_ns[0], 1010250);
  EXPECT_EQ(chunk.dur_ns[0], 40000);
  EXPECT_EQ(chunk.external_id[0], 2);
  EXPECT_EQ(chunk.sequence_number[0], 7);
  EXPECT_EQ(chunk.forward_thread[0], 1);
  EXPECT_EQ(chunk.correlation[0], kAbsent);
  EXPECT_EQ(chunk.extra[0], EventChunk::kNoExtra);
}

TEST(EventParser, ReadsAKernelsLaunchAndDecodesItsName) {
  const ParsedBatch batch = Parse(R"({"ph": "X", "cat": "kernel", "name": "k<\"a\\b\">", "pid": 0,
      "tid": "stream 7", "ts": 5, "dur": 1.5, "args": {"External id": 2, "device": 0, "stream": 7,
      "correlation": 55, "registers per thread": 96, "shared memory": 16384, "grid": [66, 2, 1],
      "block": [128, 1, 1], "blocks per SM": 0.5}})");
  ASSERT_EQ(batch.chunk.size(), 1u);
  EXPECT_EQ(Name(batch, batch.chunk.name[0]), "k<\"a\\b\">");
  EXPECT_EQ(batch.chunk.tid[0], 7);
  EXPECT_EQ(batch.chunk.correlation[0], 55);
  ASSERT_NE(batch.chunk.extra[0], EventChunk::kNoExtra);
  const GpuArgs& gpu = batch.chunk.extras[batch.chunk.extra[0]].gpu;
  EXPECT_EQ(gpu.device, 0);
  EXPECT_EQ(gpu.stream, 7);
  EXPECT_EQ(gpu.grid[0], 66);
  EXPECT_EQ(gpu.grid[1], 2);
  EXPECT_EQ(gpu.block[0], 128);
  EXPECT_EQ(gpu.registers_per_thread, 96);
  EXPECT_EQ(gpu.shared_memory, 16384);
}

TEST(EventParser, ReadsMemoryRecordsAndCollectives) {
  const ParsedBatch memory = Parse(R"({"ph": "i", "cat": "cpu_instant_event", "name": "[memory]",
      "pid": 1, "tid": 1, "ts": 9, "args": {"Total Reserved": 2097152, "Total Allocated": 1024,
      "Bytes": -512, "Addr": 139872387350528, "Device Id": 0, "Device Type": 1}})");
  ASSERT_EQ(memory.chunk.size(), 1u);
  const MemoryArgs& record = memory.chunk.extras[memory.chunk.extra[0]].memory;
  EXPECT_EQ(record.bytes, -512);
  EXPECT_EQ(record.total_allocated, 1024);
  EXPECT_EQ(record.total_reserved, 2097152);
  EXPECT_EQ(record.device_type, 1);

  const ParsedBatch collective = Parse(R"({"ph": "X", "cat": "cpu_op", "name": "record_param_comms",
      "pid": 1, "tid": 1, "ts": 9, "dur": 1, "args": {"Collective name": "allreduce",
      "Process Group Name": 0, "Seq": "41", "Group size": 2, "In msg nelems": 1024}})");
  ASSERT_EQ(collective.chunk.size(), 1u);
  const CollectiveArgs& args = collective.chunk.extras[collective.chunk.extra[0]].collective;
  EXPECT_EQ(Name(collective, args.name), "allreduce");
  EXPECT_EQ(Name(collective, args.process_group), "0");
  EXPECT_EQ(args.seq, 41);
  EXPECT_EQ(args.group_size, 2);
  EXPECT_EQ(args.in_elements, 1024);
}

TEST(EventParser, SkipsABrokenEventWithItsByteOffset) {
  const ParsedBatch batch = Parse(R"({"ph": "X", "name": "a", "ts": 1 "dur": 2})", 1000);
  EXPECT_EQ(batch.chunk.size(), 0u);
  EXPECT_EQ(batch.skipped, 1u);
  ASSERT_EQ(batch.problems.size(), 1u);
  EXPECT_EQ(batch.problems[0],
            "byte 1033: expected ',' or '}' in an object; the event is skipped");
}

TEST(EventParser, AnEventNeedsAPhaseAndATimeAndNoNegativeDuration) {
  EXPECT_EQ(Parse(R"({"name": "a", "ts": 1})").skipped, 1u);
  EXPECT_EQ(Parse(R"({"ph": "X", "name": "a"})").skipped, 1u);
  EXPECT_EQ(Parse(R"({"ph": "X", "name": "a", "ts": 1, "dur": -4})").skipped, 1u);
  EXPECT_EQ(Parse(R"({"ph": "X", "ts": "soon"})").skipped, 1u);
  // Metadata events carry no time.
  EXPECT_EQ(Parse(R"({"ph": "M", "name": "thread_name", "args": {"name": "x"}})").skipped, 0u);
}

// torch 1.13's own exporter writes no ids and a pid that is no number: a chunk of its events keeps
// none of those columns, and its events still read as without them.
TEST(EventParser, AChunkLetsGoTheColumnsNoEventFilled) {
  ParsedBatch batch = Parse(R"({"ph": "X", "name": "aten::mm", "ts": 1, "dur": 2, "tid": 1,
      "pid": "CPU functions", "args": {}})");
  const std::string with_id = R"({"ph": "X", "name": "aten::add", "ts": 3, "dur": 1, "tid": 1,
      "pid": "CPU functions", "args": {"External id": 9}})";
  ParseEvent(with_id.data(), with_id.data() + with_id.size(), 0, batch);
  EventChunk& chunk = batch.chunk;
  ASSERT_EQ(chunk.size(), 2u);
  chunk.DropMissingColumns();

  EXPECT_EQ(chunk.external_id[0], kAbsent);
  EXPECT_EQ(chunk.external_id[1], 9);
  EXPECT_NE(chunk.external_id.begin(), chunk.external_id.end());
  for (SparseColumn<std::int64_t, kAbsent>* dropped :
       {&chunk.pid, &chunk.sequence_number, &chunk.forward_thread, &chunk.correlation}) {
    EXPECT_EQ(dropped->begin(), dropped->end());
    EXPECT_EQ((*dropped)[1], kAbsent);
  }
  EXPECT_EQ(chunk.extra.begin(), chunk.extra.end());
  EXPECT_EQ(chunk.extra[0], EventChunk::kNoExtra);
  EXPECT_EQ(chunk.input_type[1], 0u);
  EXPECT_EQ(chunk.ts_ns[1], 3000);
}

}  // namespace
}  // namespace advisor
