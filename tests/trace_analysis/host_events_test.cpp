// Sorting a trace's host events into ops and ranges, on traces in torch.autograd.profiler's legacy
// format (no categories, no arguments), where only names and nesting tell them apart.
#include "engine/trace_analysis/host_events.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "engine/trace_import/trace_reader.h"
#include "tests/report/scratch_dir.h"

namespace advisor {
namespace {

// One event as the legacy exporter writes it, times in whole microseconds.
std::string Legacy(const std::string& name, int start_us, int dur_us) {
  return R"({"name": ")" + name + R"(", "ph": "X", "ts": )" + std::to_string(start_us) +
         R"(, "dur": )" + std::to_string(dur_us) +
         R"(, "tid": 1, "pid": "CPU functions", "args": {}})";
}

HostEvents Read(const std::string& events) {
  testing::ScratchDir dir;
  std::ofstream(dir / "trace.json") << "[" << events << "]";
  return ReadHostEvents(ReadTrace(dir / "trace.json"));
}

std::set<std::string> Modules(const HostEvents& host) {
  std::set<std::string> names;
  for (const ModuleRange& module : host.modules) names.insert(module.component);
  return names;
}

std::set<std::string> Ops(const HostEvents& host) {
  std::set<std::string> names;
  for (const OpEvent& op : host.ops) names.insert(op.name.str());
  return names;
}

TEST(HostEvents, AnUncategorisedEventInsideAnOperatorIsAnOpOutsideItALabel) {
  const HostEvents host = Read(Legacy("ProfilerStep#1", 0, 100) + "," +
                               Legacy("encoder", 5, 50) + "," +
                               Legacy("aten::detach_", 10, 4) + "," +
                               Legacy("detach_", 11, 2) + "," +
                               Legacy("aten::mm", 20, 10) + "," +
                               Legacy("mm_impl_step", 22, 3) + "," +
                               Legacy("after_mm", 32, 5));
  EXPECT_EQ(Modules(host), (std::set<std::string>{"encoder", "after_mm"}));
  EXPECT_EQ(Ops(host), (std::set<std::string>{"aten::detach_", "detach_", "aten::mm",
                                              "mm_impl_step"}));
}

TEST(HostEvents, NestingIsJudgedToTheExportersMicrosecond) {
  // Recorded by torch 1.13 (a DataLoader's batch): the op ends at 20 us, rounded, and the bare
  // name it recorded inside starts at 21 us, both of zero length.
  const HostEvents host = Read(Legacy("ProfilerStep#1", 0, 100) + "," +
                               Legacy("aten::detach_", 20, 0) + "," + Legacy("detach_", 21, 0) +
                               "," + Legacy("aten::mm", 30, 10) + "," + Legacy("after_mm", 42, 5));
  EXPECT_TRUE(Modules(host).count("after_mm")) << "2 us after an op is outside it";
  EXPECT_FALSE(Modules(host).count("detach_"));
  EXPECT_TRUE(Ops(host).count("detach_"));
}

TEST(HostEvents, OfTwoEventsWithOneIntervalTheFirstWrittenEnclosesTheOther) {
  // Whole microseconds make a label and its only op one interval; the label is written first.
  const HostEvents label_outside =
      Read(Legacy("ProfilerStep#1", 0, 100) + "," + Legacy("block", 10, 5) + "," +
           Legacy("aten::relu", 10, 5));
  EXPECT_EQ(Modules(label_outside), std::set<std::string>{"block"});
  const HostEvents op_outside =
      Read(Legacy("ProfilerStep#1", 0, 100) + "," + Legacy("aten::relu", 10, 5) + "," +
           Legacy("relu_kernel", 10, 5));
  EXPECT_TRUE(Modules(op_outside).empty());
  EXPECT_EQ(Ops(op_outside).count("relu_kernel"), 1u);
}

TEST(HostEvents, AdvisorsOwnRangesAreNeitherOpsNorModules) {
  // The script probe's wait at a step's end inside the user's optimizer step, and a marker op,
  // as a trace without categories names them: "::" would make them ops, a label a module.
  const HostEvents host = Read(Legacy("ProfilerStep#1", 0, 100) + "," +
                               Legacy("advisor::mark", 5, 1) + "," +
                               Legacy("Optimizer.step#SGD.step", 60, 30) + "," +
                               Legacy("advisor::synchronize", 70, 15));
  EXPECT_EQ(Ops(host), std::set<std::string>{"Optimizer.step#SGD.step"});
  EXPECT_TRUE(Modules(host).empty());
  ASSERT_EQ(host.advisor_ranges.size(), 2u);
  EXPECT_EQ(host.advisor_ranges[1].name, "advisor::synchronize");
  EXPECT_EQ(host.advisor_ranges[1].end_ns - host.advisor_ranges[1].start_ns, 15'000);
}

TEST(HostEvents, ALegacyTraceHoldsNoSequenceNumbers) {
  // Its exporter writes none: its millions of ops keep no column of absent numbers beside them.
  const HostEvents host = Read(Legacy("ProfilerStep#1", 0, 100) + "," +
                               Legacy("aten::mm", 20, 10) + "," + Legacy("MmBackward0", 40, 10));
  ASSERT_EQ(host.ops.size(), 2u);
  EXPECT_EQ(host.ops[1].scope, OpScope::kBackward);
  EXPECT_FALSE(host.has_sequence_numbers);
  EXPECT_TRUE(host.op_sequences.empty());
}

TEST(HostEvents, ListsEveryBackwardNodeByItsOpIndex) {
  // The label inside aten::mm is placed as an op once every operator is read, after the ops the
  // chunks held: the nodes' indices are the ops' final ones.
  const HostEvents host = Read(Legacy("ProfilerStep#1", 0, 100) + "," +
                               Legacy("MulBackward0", 10, 10) + "," + Legacy("aten::mm", 30, 10) +
                               "," + Legacy("mm_impl", 32, 2) + "," +
                               Legacy("MmBackward0", 50, 10) + "," + Legacy("aten::add_", 70, 5));
  ASSERT_EQ(host.ops.size(), 5u);
  std::vector<std::size_t> backward;
  for (std::size_t i = 0; i < host.ops.size(); ++i) {
    if (host.ops[i].scope == OpScope::kBackward) backward.push_back(i);
  }
  EXPECT_EQ(backward.size(), 2u);
  EXPECT_EQ(host.backward_nodes, backward);
}

}  // namespace
}  // namespace advisor
