// CUDA calls linked to the op running on their thread when they were made: swept in pieces on
// several threads, each call gets the op one sweep on one thread gives it, the innermost open.
#include "engine/trace_analysis/launching_ops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>
#include <vector>

namespace advisor {
namespace {

constexpr ThreadId kLaunching = 1;
constexpr ThreadId kOther = 2;  // ops, and calls, of a second thread
constexpr ThreadId kNoOps = 3;  // calls only
constexpr TimeNs kLongOpNs = 400'000;

// One launching thread's ops in the shape that makes a cut matter: top-level ops with gaps
// between them (none, or a few ns: a cut may fall there), long ones enclosing hundreds of others
// (where a cut would find them open), ops nested 1 to 3 deep, advisor's own ranges around some;
// a second thread's ops interleaved in the file; calls made inside ops, at their first and last
// instants, as they end, inside advisor's ranges and on a thread without ops; each call with the
// op it was made in, by its correlation id (0: none, or advisor's range is innermost).
struct Trace {
  HostEvents host;
  std::vector<ApiCallEvent> calls;
  std::vector<std::uint64_t> made_in;  // by call
};

// The new op's correlation id.
std::uint64_t AddOp(Trace& trace, ThreadId thread, TimeNs start, TimeNs end) {
  OpEvent op;
  op.name = OpName("aten::mm");
  op.thread = thread;
  op.start_ns = start;
  op.end_ns = end;
  trace.host.ops.push_back(op);
  return trace.host.ops.size();
}

void AddCall(Trace& trace, ThreadId thread, TimeNs at, std::uint64_t made_in) {
  ApiCallEvent call;
  call.name = "cudaLaunchKernel";
  call.thread = thread;
  call.start_ns = at;
  call.end_ns = at + 5;
  call.correlation_id = static_cast<std::uint32_t>(trace.calls.size() + 1);
  trace.calls.push_back(call);
  trace.made_in.push_back(made_in);
}

Trace MakeTrace(unsigned seed) {
  Trace trace;
  std::mt19937 random(seed);
  const auto below = [&](TimeNs n) { return static_cast<TimeNs>(random() % n); };
  TimeNs at = 1000;
  std::optional<std::size_t> call_as_last_ended;  // made as the last top-level op ended
  for (int top = 0; top < 9000; ++top) {
    at += below(3) == 0 ? 0 : 1 + below(50);  // back to back, or a gap
    const bool long_op = below(40) == 0;
    const TimeNs start = at;
    const TimeNs end = start + (long_op ? kLongOpNs : 2000 + below(3000));
    std::uint64_t outer = 0;  // advisor's range
    if (below(30) == 0) {
      trace.host.advisor_ranges.push_back({"advisor::window", kLaunching, start, end});
    } else {
      outer = AddOp(trace, kLaunching, start, end);
    }
    if (call_as_last_ended && trace.calls[*call_as_last_ended].start_ns == start) {
      trace.made_in[*call_as_last_ended] = outer;  // the next began as it ended
    }
    AddCall(trace, kLaunching, start + 1, outer);
    // Nested ops, each inside the last, or (in a long op) many side by side, each with a child.
    const int children = long_op ? 150 : 1 + static_cast<int>(below(3));
    TimeNs inner_start = start;
    TimeNs inner_end = end;
    for (int child = 0; child < children; ++child) {
      if (long_op) {
        inner_start = start + 10 + child * 2600;
        inner_end = inner_start + 2500;
      } else {
        inner_start += 100;
        inner_end -= 100;
      }
      const std::uint64_t inner = AddOp(trace, kLaunching, inner_start, inner_end);
      if (long_op) AddOp(trace, kLaunching, inner_start + 100, inner_start + 200);
      if (below(2) == 0) {
        const std::uint64_t other = AddOp(trace, kOther, inner_start, inner_end);
        AddCall(trace, kOther, inner_start + 60, other);
      }
      AddCall(trace, kLaunching, inner_start + 50, inner);
      if (below(4) == 0) AddCall(trace, kLaunching, inner_end - 1, inner);  // its last instant
      if (below(8) == 0) AddCall(trace, kNoOps, inner_start + 60, 0);
    }
    AddCall(trace, kLaunching, end - 10, outer);  // inside the outer one only
    call_as_last_ended.reset();
    if (below(4) == 0) {
      call_as_last_ended = trace.calls.size();
      AddCall(trace, kLaunching, end, 0);  // as it ends: in none, unless the next begins
    }
    at = end;
  }
  return trace;
}

std::vector<std::uint64_t> Links(const Trace& trace, int threads) {
  std::vector<ApiCallEvent> calls = trace.calls;
  LinkCallsToOps(trace.host, calls, threads);
  std::vector<std::uint64_t> links;
  for (const ApiCallEvent& call : calls) links.push_back(call.external_id);
  return links;
}

// The first call whose link differs, named.
void ExpectSameLinks(const std::vector<std::uint64_t>& expected,
                     const std::vector<std::uint64_t>& links) {
  ASSERT_EQ(links.size(), expected.size());
  const auto differ = std::mismatch(expected.begin(), expected.end(), links.begin());
  EXPECT_TRUE(differ.first == expected.end())
      << "call " << (differ.first - expected.begin()) << ": op " << *differ.second
      << ", expected op " << *differ.first;
}

// Links on 2, 3 and 8 threads (the sweep cut into up to 32 pieces where no op is open) are those
// of one thread's one sweep, each call's the op it was made in. A cut where an op is open (any
// block's first op, say) links the calls after it inside that op to none, or to the wrong one.
TEST(LaunchingOps, LinkedInPiecesOnSeveralThreadsAsOneSweepLinksThem) {
  for (unsigned seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const Trace trace = MakeTrace(seed);
    ASSERT_GT(trace.host.ops.size(), 8u * 4096u);  // enough for 8 threads' blocks
    const std::vector<std::uint64_t> one = Links(trace, 1);
    ExpectSameLinks(trace.made_in, one);
    for (int threads : {2, 3, 8}) {
      SCOPED_TRACE(threads);
      ExpectSameLinks(one, Links(trace, threads));
    }
  }
}

// The same where the file's order is not start order: ops written out of order, and calls.
TEST(LaunchingOps, OpsAndCallsOutOfOrderAreSweptInStartOrder) {
  Trace trace = MakeTrace(4);
  std::vector<std::uint64_t> moved_to(trace.host.ops.size() + 1);  // by correlation id
  for (std::uint64_t id = 0; id < moved_to.size(); ++id) moved_to[id] = id;
  for (std::size_t i = 1; i < trace.host.ops.size(); i += 997) {
    std::swap(trace.host.ops[i - 1], trace.host.ops[i]);
    std::swap(moved_to[i], moved_to[i + 1]);
  }
  for (std::uint64_t& op : trace.made_in) op = moved_to[op];
  std::reverse(trace.calls.begin(), trace.calls.end());
  std::reverse(trace.made_in.begin(), trace.made_in.end());
  for (int threads : {1, 2, 8}) {
    SCOPED_TRACE(threads);
    ExpectSameLinks(trace.made_in, Links(trace, threads));
  }
}

// The calls compared are of every kind: in an op, in none, in advisor's range.
TEST(LaunchingOps, TheCallsComparedAreInOpsAndOutside) {
  const Trace trace = MakeTrace(1);
  const std::vector<std::uint64_t> links = Links(trace, 8);
  std::size_t linked = 0;
  std::size_t in_long_op = 0;
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i] == 0) continue;
    ++linked;
    const OpEvent& op = trace.host.ops[links[i] - 1];
    in_long_op += op.end_ns - op.start_ns == kLongOpNs;
  }
  EXPECT_GT(linked, links.size() / 2);
  EXPECT_GT(links.size() - linked, 1000u);
  EXPECT_GT(in_long_op, 100u);  // calls made in a long op, past its children
}

TEST(LaunchingOps, ACallOnAThreadWithoutOpsIsLinkedToNone) {
  Trace trace;
  AddOp(trace, kLaunching, 0, 100);
  AddCall(trace, kNoOps, 50, 0);
  AddCall(trace, kLaunching, 50, 1);
  EXPECT_EQ(Links(trace, 4), (std::vector<std::uint64_t>{0, 1}));
}

}  // namespace
}  // namespace advisor
