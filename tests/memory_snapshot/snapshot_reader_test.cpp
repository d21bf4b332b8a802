// A _dump_snapshot file into a MemorySnapshot: the layouts of torch 2.0 and later, frames
// interned, and each layout error naming the field (fixtures: make_snapshots.py).
#include "engine/memory_snapshot/snapshot_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/pickle_input/pickle_reader.h"

namespace advisor {
namespace {

const std::string kSnapshots = ADVISOR_TEST_SNAPSHOTS_DIR;
constexpr std::int64_t kMb = 1024 * 1024;

std::string ErrorOf(const std::string& name) {
  try {
    ReadMemorySnapshot(kSnapshots + "/" + name);
  } catch (const std::exception& error) {
    return error.what();
  }
  return "";
}

TEST(SnapshotReader, ReadsTheSegmentsHistoryAndRanges) {
  const MemorySnapshot snapshot = ReadMemorySnapshot(kSnapshots + "/hand_step.pickle");
  ASSERT_EQ(snapshot.segments.size(), 2u);
  const SnapshotSegment& first = snapshot.segments[0];
  EXPECT_EQ(first.address, 0x7F0000000000u);
  EXPECT_EQ(first.total_size, 20 * kMb);
  ASSERT_EQ(first.blocks.size(), 3u);
  EXPECT_EQ(first.blocks[1].address, 0x7F0000000000u + 4 * kMb);
  EXPECT_EQ(first.blocks[1].size, kMb);
  EXPECT_EQ(first.blocks[1].requested_size, 3 * kMb / 4);
  EXPECT_EQ(first.blocks[1].state, BlockState::kActiveAllocated);
  EXPECT_EQ(first.blocks[2].state, BlockState::kInactive);

  ASSERT_EQ(snapshot.device_traces.size(), 1u);
  const std::vector<TraceEntry>& trace = snapshot.device_traces[0];
  ASSERT_EQ(trace.size(), 12u);
  EXPECT_EQ(trace[0].action, TraceAction::kAlloc);
  EXPECT_EQ(trace[0].size, 5 * kMb / 2);
  EXPECT_EQ(trace[0].time_us, 1010);
  EXPECT_EQ(trace[3].action, TraceAction::kFreeCompleted);
  EXPECT_EQ(trace[7].action, TraceAction::kSegmentAlloc);
  EXPECT_EQ(trace[11].action, TraceAction::kOom);
  EXPECT_EQ(trace[11].addr, static_cast<std::uint64_t>(3 * kMb));  // device_free
  EXPECT_TRUE(snapshot.timed);

  // C and the free of C share one frames list: one stack, its frames interned once.
  EXPECT_EQ(trace[0].stack, trace[5].stack);
  const std::vector<std::uint32_t>& stack = snapshot.stacks[trace[0].stack];
  ASSERT_EQ(stack.size(), 5u);
  EXPECT_EQ(snapshot.frames[stack[2]].filename, "/home/user/model.py");
  EXPECT_EQ(snapshot.frames[stack[2]].line, 21);
  EXPECT_EQ(snapshot.frames[stack[2]].name, "forward");
  EXPECT_EQ(trace[4].stack, 0u);  // backward: no frames
  // The module.py frame is one frame in both the encoder's and the decoder's stacks.
  EXPECT_EQ(stack[1], snapshot.stacks[trace[1].stack][1]);

  ASSERT_EQ(snapshot.annotations.size(), 12u);
  EXPECT_EQ(snapshot.annotations[2].name, "encoder");
  EXPECT_TRUE(snapshot.annotations[2].start);
  EXPECT_FALSE(snapshot.annotations[3].start);
  EXPECT_EQ(snapshot.annotations[3].time_us, 1015);
  EXPECT_EQ(snapshot.annotations[3].device, 0);
}

TEST(SnapshotReader, ReadsTorch20sLayout) {
  const MemorySnapshot snapshot = ReadMemorySnapshot(kSnapshots + "/legacy_layout.pickle");
  EXPECT_FALSE(snapshot.timed);
  EXPECT_TRUE(snapshot.annotations.empty());
  // Blocks without "address" follow each other from their segment's.
  for (const SnapshotSegment& segment : snapshot.segments) {
    std::uint64_t next = segment.address;
    for (const SnapshotBlock& block : segment.blocks) {
      EXPECT_EQ(block.address, next);
      next += static_cast<std::uint64_t>(block.size);
    }
    EXPECT_EQ(next, segment.address + static_cast<std::uint64_t>(segment.total_size));
  }
}

TEST(SnapshotReader, LayoutErrorsNameTheField) {
  EXPECT_EQ(ErrorOf("hostile/wrong_type.pickle"),
            kSnapshots +
                "/hostile/wrong_type.pickle: 'device_traces[0][1].size' must be an int, "
                "got str");
  EXPECT_EQ(ErrorOf("hostile/not_a_snapshot.pickle"),
            kSnapshots +
                "/hostile/not_a_snapshot.pickle: not a memory snapshot: the pickle holds "
                "a list, not the dict torch.cuda.memory._dump_snapshot writes");
}

TEST(SnapshotReader, HostilePicklesAreOneLineAndNeverRun) {
  EXPECT_EQ(ErrorOf("hostile/global_os_system.pickle"),
            kSnapshots +
                "/hostile/global_os_system.pickle: byte 2: opcode GLOBAL (0x63) names a "
                "class or a function, and a pickle that does can run code when loaded: "
                "advisor reads only plain containers, numbers and strings");
  EXPECT_NE(ErrorOf("hostile/stack_global_in_snapshot.pickle").find("opcode STACK_GLOBAL (0x93)"),
            std::string::npos);
  EXPECT_NE(ErrorOf("hostile/deep_nesting.pickle").find("containers nest deeper than 64 levels"),
            std::string::npos);
  EXPECT_NE(ErrorOf("hostile/huge_length.pickle").find("BINUNICODE8 needs 4611686018427387904"),
            std::string::npos);
  EXPECT_NE(ErrorOf("hostile/truncated.pickle").find("the file is cut short"), std::string::npos);
}

TEST(SnapshotReader, MissingKeysAndWrongKindsAreNamed) {
  // {'segments': [], 'device_traces': 5}, {'segments': []}, protocol 4
  const auto error = [](const std::string& bytes) {
    try {
      SnapshotOfDocument(ParsePickle(bytes, "s.pickle"), "s.pickle");
    } catch (const SnapshotError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(std::string("\x80\x04}(\x8c\x08segments]\x8c\x0d"
                              "device_traces"
                              "K\x05u.",
                              34)),
            "s.pickle: 'device_traces' must be a list, got int");
  EXPECT_EQ(error(std::string("\x80\x04}(\x8c\x08segments]u.", 17)),
            "s.pickle: 'device_traces' is missing: not a torch.cuda.memory._dump_snapshot file");
}

TEST(SnapshotReader, SizesPastAnyDeviceAreRefused) {
  // {'segments': [], 'device_traces': [[{'action': 'alloc', 'addr': 1, 'size': 2**51}]]}
  const std::string hex =
      "80049556000000000000007d94288c087365676d656e7473945d948c0d6465766963655f747261636573945d"
      "945d947d94288c06616374696f6e948c05616c6c6f63948c0461646472944b018c0473697a65948a07000000"
      "00000008756161752e";
  std::string bytes;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  try {
    SnapshotOfDocument(ParsePickle(bytes, "s.pickle"), "s.pickle");
    FAIL() << "read a 2 PiB allocation";
  } catch (const SnapshotError& error) {
    EXPECT_EQ(std::string(error.what()),
              "s.pickle: 'device_traces[0][0].size' must be at most 2^50 bytes, got "
              "2251799813685248");
  }
}

TEST(SnapshotReader, SnapshotFileNames) {
  EXPECT_TRUE(IsSnapshotFileName("run/snapshot.pickle"));
  EXPECT_TRUE(IsSnapshotFileName("mem.pkl"));
  EXPECT_FALSE(IsSnapshotFileName("trace.json"));
  EXPECT_FALSE(IsSnapshotFileName(".pickle"));
}

}  // namespace
}  // namespace advisor
