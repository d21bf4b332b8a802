// A legacy trace's labels placed among many operators of their thread: walked in pieces on
// several threads, they are placed as one walk on one thread places them, field for field.
#include "engine/trace_analysis/uncategorised_labels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace advisor {
namespace {

constexpr ThreadId kThread = 7;

// Top-level operators with gaps between them, each with nested ones, and labels of every kind:
// inside an operator, or inside the outer of nested ones only (an op C++ recorded under a bare
// name), around operators or between them (a record_function label: a module), and within the
// exporter's microsecond of an operator's end. A few operators come out of order, as threads'
// events may.
struct Thread {
  StringTable strings;
  std::vector<OpEvent> ops;
  std::vector<OperatorAt> operators;
  std::vector<Label> labels;
};

Thread MakeThread(unsigned seed) {
  Thread thread;
  std::mt19937 random(seed);
  const std::uint32_t bare_name = thread.strings.Intern("detach_");
  const std::uint32_t label_name = thread.strings.Intern("my_label");
  std::uint32_t order = 0;
  const auto add_operator = [&](TimeNs start, TimeNs end) {
    OpEvent op;
    op.name = OpName("aten::add");
    op.scope = OpScope::kForward;
    op.thread = kThread;
    op.start_ns = start;
    op.end_ns = end;
    thread.operators.push_back({static_cast<std::uint32_t>(thread.ops.size()), order++});
    thread.ops.push_back(op);
  };
  const auto add_label = [&](std::uint32_t name, TimeNs start, TimeNs end) {
    EventFields fields;
    fields.name = name;
    fields.start = start;
    fields.end = end;
    thread.labels.push_back({fields, order++});
  };
  TimeNs at = 0;
  for (int top = 0; top < 12000; ++top) {
    // Gaps of 0 to 3 us: some within the exporter's precision, where no walk may begin afresh.
    at += static_cast<TimeNs>(random() % 3000);
    const TimeNs start = at;
    const TimeNs end = start + 2000 + static_cast<TimeNs>(random() % 8000);
    if (random() % 16 == 0) add_label(label_name, start - 500, end + 500);  // around it
    add_operator(start, end);
    // Nested, 1 to 3 times over one interval, so that the pieces' cuts fall anywhere.
    const unsigned nested = 1 + static_cast<unsigned>(random() % 3);
    for (unsigned i = 0; i < nested; ++i) add_operator(start + 100, start + 900);
    if (random() % 4 == 0) add_label(bare_name, start + 200, start + 700);  // inside
    // Inside the outer operator only, past the nested ones' ends and the exporter's microsecond.
    if (random() % 4 == 0) add_label(bare_name, start + 1950, start + 1990);
    if (random() % 8 == 0) add_label(bare_name, end + 600, end + 600);  // within 1 us of its end
    at = end;
    if (random() % 8 == 0) add_label(label_name, at + 1500, at + 2500);  // between
  }
  // Out of order: a few swapped with their neighbours, as operators of a thread may come.
  for (std::size_t i = 1; i < thread.operators.size(); i += 997) {
    std::swap(thread.operators[i - 1], thread.operators[i]);
  }
  return thread;
}

// Every field of the placed records, a line an item: the pieces' ops, then their modules, as
// HostEventReader adds them to the trace's.
std::string Text(const std::vector<HostChunkRecords>& pieces) {
  std::ostringstream out;
  for (const HostChunkRecords& piece : pieces) {
    for (const OpEvent& op : piece.ops) {
      out << "op " << op.name << ' ' << static_cast<int>(op.scope) << ' ' << op.thread << ' '
          << op.start_ns << ' ' << op.end_ns << '\n';
    }
  }
  for (const HostChunkRecords& piece : pieces) {
    for (const ModuleRange& module : piece.modules) {
      out << "module " << module.component << ' ' << module.thread << ' ' << module.start_ns << ' '
          << module.end_ns << '\n';
    }
  }
  return out.str();
}

std::size_t Count(const std::vector<HostChunkRecords>& pieces, bool ops) {
  std::size_t count = 0;
  for (const HostChunkRecords& piece : pieces)
    count += ops ? piece.ops.size() : piece.modules.size();
  return count;
}

TEST(UncategorisedLabels, PlacedInPiecesOnSeveralThreadsAsOneWalkPlacesThem) {
  for (unsigned seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    Thread one = MakeThread(seed);
    const std::vector<HostChunkRecords> walked =
        PlaceThreadLabels(one.ops, one.strings, kThread, one.operators, one.labels, 1);
    ASSERT_EQ(walked.size(), 1u);  // one thread walks it whole
    // The labels compared are of both kinds.
    EXPECT_GT(Count(walked, /*ops=*/true), 1000u);
    EXPECT_GT(Count(walked, /*ops=*/false), 1000u);
    for (int threads : {2, 3, 8}) {
      SCOPED_TRACE(threads);
      Thread many = MakeThread(seed);
      const std::vector<HostChunkRecords> pieces =
          PlaceThreadLabels(many.ops, many.strings, kThread, many.operators, many.labels, threads);
      EXPECT_GT(pieces.size(), 1u);  // the walk was cut
      EXPECT_EQ(Text(pieces), Text(walked));
    }
  }
}

}  // namespace
}  // namespace advisor
