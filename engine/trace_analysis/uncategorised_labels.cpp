#include "engine/trace_analysis/uncategorised_labels.h"

#include <algorithm>

#include "engine/trace_analysis/event_names.h"
#include "engine/util/parallel_for.h"
#include "engine/util/sweep_blocks.h"

namespace advisor {
namespace {

// Nesting is judged to the exporter's precision, whole microseconds: a zero-length "detach_" was
// written 1 us after its zero-length "aten::detach_" ended.
constexpr TimeNs kExporterPrecisionNs = 1000;

// Outer before inner; of two events with one interval, the one written first is outer.
bool OuterFirst(TimeNs start_a, TimeNs end_a, std::uint32_t order_a, TimeNs start_b, TimeNs end_b,
                std::uint32_t order_b) {
  if (start_a != start_b) return start_a < start_b;
  if (end_a != end_b) return end_a > end_b;
  return order_a < order_b;
}

}  // namespace

std::vector<HostChunkRecords> PlaceThreadLabels(const std::vector<OpEvent>& ops,
                                                const StringTable& strings, ThreadId thread,
                                                std::vector<OperatorAt>& operators,
                                                std::vector<Label>& labels, int threads) {
  const auto operator_first = [&](const OperatorAt& a, const OperatorAt& b) {
    const OpEvent& x = ops[a.op];
    const OpEvent& y = ops[b.op];
    return OuterFirst(x.start_ns, x.end_ns, a.order, y.start_ns, y.end_ns, b.order);
  };
  const auto label_first = [&](const Label& label, const OperatorAt& op) {
    const OpEvent& x = ops[op.op];
    return OuterFirst(label.fields.start, label.fields.end, label.order, x.start_ns, x.end_ns,
                      op.order);
  };
  const std::size_t n = operators.size();
  // The operators, nearly all of the events, mostly come in this order already: they are checked
  // a block at a time, and the few labels sorted.
  SortUnlessInOrder(operators, operator_first, threads);
  std::sort(labels.begin(), labels.end(), [&](const Label& a, const Label& b) {
    return OuterFirst(a.fields.start, a.fields.end, a.order, b.fields.start, b.fields.end, b.order);
  });

  // Where the walk may begin afresh, in operator order: at an operator that starts after every one
  // before it ended (to the exporter's precision), none is open.
  const std::vector<std::size_t> starts = FreshStarts<TimeNs>(
      n, [&](std::size_t i) { return ops[operators[i].op].end_ns; },
      [&](TimeNs latest_end, std::size_t i) {
        return latest_end < ops[operators[i].op].start_ns - kExporterPrecisionNs;
      },
      threads);
  // Each label is walked after the operators that come before it: in the last piece whose first
  // operator comes before it.
  std::vector<std::size_t> piece_of(labels.size());
  for (std::size_t l = 0; l < labels.size(); ++l) {
    const auto after = std::partition_point(
        starts.begin() + 1, starts.end(),
        [&](std::size_t start) { return !label_first(labels[l], operators[start]); });
    piece_of[l] = static_cast<std::size_t>(after - starts.begin()) - 1;
  }

  std::vector<HostChunkRecords> placed(starts.size());
  ParallelFor(starts.size(), threads, [&](std::size_t piece) {
    const auto first_label = static_cast<std::size_t>(
        std::lower_bound(piece_of.begin(), piece_of.end(), piece) - piece_of.begin());
    std::vector<TimeNs> open;  // ends of the operators enclosing the current event
    const auto close_before = [&open](TimeNs start) {
      while (!open.empty() && open.back() + kExporterPrecisionNs < start) open.pop_back();
    };
    std::size_t next_operator = starts[piece];
    for (std::size_t l = first_label; l < labels.size() && piece_of[l] == piece; ++l) {
      const Label& label = labels[l];
      for (; next_operator < n && !label_first(label, operators[next_operator]); ++next_operator) {
        const OpEvent& op = ops[operators[next_operator].op];
        close_before(op.start_ns);
        open.push_back(op.end_ns);
      }
      close_before(label.fields.start);
      const bool in_operator = std::any_of(open.begin(), open.end(), [&](TimeNs end) {
        return end + kExporterPrecisionNs >= label.fields.end;
      });
      const std::string& name = strings[label.fields.name];
      if (in_operator) {
        placed[piece].AddOp(label.fields, OpName(name), name, thread, OpScope::kForward);
      } else if (!IsParallelWrapperForward(name)) {
        placed[piece].modules.push_back({name, "", thread, label.fields.start, label.fields.end});
      }
    }
  });
  return placed;
}

}  // namespace advisor
