#include "engine/trace_analysis/launching_ops.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "engine/util/parallel_for.h"
#include "engine/util/sweep_blocks.h"

namespace advisor {
namespace {

constexpr std::uint64_t kNoOp = 0;

// The ops and advisor's ranges of every thread, by one index: host.ops, then
// host.advisor_ranges.
class Spans {
 public:
  explicit Spans(const HostEvents& host) : ops_(host.ops), own_(host.advisor_ranges) {}

  std::size_t size() const { return ops_.size() + own_.size(); }
  bool IsOp(std::size_t i) const { return i < ops_.size(); }
  ThreadId Thread(std::size_t i) const {
    return IsOp(i) ? ops_[i].thread : own_[i - ops_.size()].thread;
  }
  TimeNs Start(std::size_t i) const {
    return IsOp(i) ? ops_[i].start_ns : own_[i - ops_.size()].start_ns;
  }
  TimeNs End(std::size_t i) const {
    return IsOp(i) ? ops_[i].end_ns : own_[i - ops_.size()].end_ns;
  }
  // Start order, the enclosing one first.
  bool Before(std::size_t a, std::size_t b) const {
    if (Start(a) != Start(b)) return Start(a) < Start(b);
    return End(a) > End(b);
  }

 private:
  const std::vector<OpEvent>& ops_;
  const std::vector<HostRange>& own_;
};

// The indices of [0, n) whose thread_of(i) is `wanted`, by thread, each thread's in index order:
// gathered a block at a time on up to `threads` threads, the blocks' joined in order.
template <typename ThreadOf, typename Wanted>
std::map<ThreadId, std::vector<std::size_t>> IndicesByThread(std::size_t n,
                                                             const ThreadOf& thread_of,
                                                             const Wanted& wanted, int threads) {
  const SweepBlocks blocks(n, threads);
  std::vector<std::map<ThreadId, std::vector<std::size_t>>> found(blocks.count());
  ParallelFor(blocks.count(), threads, [&](std::size_t block) {
    for (std::size_t i = blocks.Begin(block); i < blocks.End(block); ++i) {
      const ThreadId thread = thread_of(i);
      if (wanted(thread)) found[block][thread].push_back(i);
    }
  });
  std::map<ThreadId, std::vector<std::size_t>> joined = std::move(found.front());
  for (std::size_t block = 1; block < found.size(); ++block) {
    for (const auto& [thread, indices] : found[block]) {
      std::vector<std::size_t>& to = joined[thread];
      to.insert(to.end(), indices.begin(), indices.end());
    }
  }
  return joined;
}

// One launching thread's spans and calls, each in start order.
struct LaunchingThread {
  std::vector<std::size_t> spans;
  std::vector<std::size_t> calls;
};

// A piece of one thread's sweep: its spans [first_span, end_span) of thread.spans, and the calls
// made from its first span's start to the next piece's, [first_call, end_call) of thread.calls.
struct SweepPiece {
  const LaunchingThread* thread = nullptr;
  std::size_t first_span = 0;
  std::size_t end_span = 0;
  std::size_t first_call = 0;
  std::size_t end_call = 0;
};

// Pushes the piece's spans in start order, each once every span that ended by its start is
// popped, and links each call to the innermost span open when it started.
void Sweep(const Spans& spans, const SweepPiece& piece, std::vector<ApiCallEvent>& calls) {
  const std::vector<std::size_t>& order = piece.thread->spans;
  std::vector<std::size_t> open;
  std::size_t next = piece.first_span;
  for (std::size_t c = piece.first_call; c < piece.end_call; ++c) {
    ApiCallEvent& call = calls[piece.thread->calls[c]];
    const TimeNs at = call.start_ns;
    for (; next < piece.end_span && spans.Start(order[next]) <= at; ++next) {
      const TimeNs start = spans.Start(order[next]);
      while (!open.empty() && spans.End(open.back()) <= start) open.pop_back();
      open.push_back(order[next]);
    }
    while (!open.empty() && spans.End(open.back()) <= at) open.pop_back();
    call.external_id = !open.empty() && spans.IsOp(open.back()) ? open.back() + 1 : kNoOp;
  }
}

}  // namespace

void LinkCallsToOps(const HostEvents& host, std::vector<ApiCallEvent>& calls, int threads) {
  // A CPU trace launches nothing: its millions of ops are not sorted by thread for no call.
  if (calls.empty()) return;
  const Spans spans(host);
  std::map<ThreadId, LaunchingThread> launching;
  for (auto& [thread, indices] : IndicesByThread(
           calls.size(), [&](std::size_t i) { return calls[i].thread; },
           [](ThreadId) { return true; }, threads)) {
    launching[thread].calls = std::move(indices);
  }
  for (auto& [thread, indices] : IndicesByThread(
           spans.size(), [&](std::size_t i) { return spans.Thread(i); },
           [&](ThreadId thread) { return launching.count(thread) > 0; }, threads)) {
    launching[thread].spans = std::move(indices);
  }

  std::vector<SweepPiece> pieces;
  for (auto& thread : launching) {
    // Not a structured binding: a lambda below captures it, which C++17 (and clang) refuse one.
    LaunchingThread& launches = thread.second;
    SortUnlessInOrder(
        launches.spans, [&](std::size_t a, std::size_t b) { return spans.Before(a, b); }, threads);
    SortUnlessInOrder(
        launches.calls,
        [&](std::size_t a, std::size_t b) { return calls[a].start_ns < calls[b].start_ns; },
        threads);
    // A call belongs to the last piece whose first span starts at or before it: the sweep's
    // stack when it is made holds no span of the pieces before.
    const auto first_call_from = [&](std::size_t span) {
      const TimeNs start = spans.Start(launches.spans[span]);
      return static_cast<std::size_t>(
          std::partition_point(launches.calls.begin(), launches.calls.end(),
                               [&](std::size_t call) { return calls[call].start_ns < start; }) -
          launches.calls.begin());
    };
    // Where the sweep may begin with none open: at a span that starts once every span before it
    // has ended, which the sweep's stack is emptied for.
    const std::vector<std::size_t> starts = FreshStarts<TimeNs>(
        launches.spans.size(), [&](std::size_t i) { return spans.End(launches.spans[i]); },
        [&](TimeNs latest_end, std::size_t i) {
          return spans.Start(launches.spans[i]) >= latest_end;
        },
        threads);
    for (std::size_t p = 0; p < starts.size(); ++p) {
      const bool last = p + 1 == starts.size();
      pieces.push_back({&launches, starts[p], last ? launches.spans.size() : starts[p + 1],
                        p == 0 ? 0 : first_call_from(starts[p]),
                        last ? launches.calls.size() : first_call_from(starts[p + 1])});
    }
  }
  // Each piece's calls are its own: the pieces' sweeps write apart.
  ParallelFor(pieces.size(), threads, [&](std::size_t p) { Sweep(spans, pieces[p], calls); });
}

}  // namespace advisor
