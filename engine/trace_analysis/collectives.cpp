#include "engine/trace_analysis/collectives.h"

#include <algorithm>

#include "engine/trace_analysis/event_names.h"

namespace advisor {
namespace {

// The op with this correlation id (ops are numbered from 1 in order), or -1.
int OpIndex(const MeasuredWindow& window, std::uint64_t correlation_id) {
  if (correlation_id == 0 || correlation_id > window.timeline.ops.size()) return -1;
  return static_cast<int>(correlation_id - 1);
}

// What the op or the ops around it say of the collective; the innermost op's name otherwise.
CollectiveDescription DescribeFromOps(const MeasuredWindow& window, const HostEvents& host,
                                      int op) {
  for (int at = op; at >= 0; at = window.placements[at].parent) {
    auto it = host.collective_of_op.find(window.timeline.ops[at].correlation_id);
    if (it != host.collective_of_op.end()) return it->second;
  }
  return {window.timeline.ops[op].name, "", -1};
}

}  // namespace

std::vector<CollectiveCall> CollectivesOf(
    const MeasuredWindow& window, const HostEvents& host,
    const std::unordered_map<std::size_t, CollectiveDescription>& collective_of_kernel) {
  std::vector<CollectiveCall> calls;
  const std::vector<KernelEvent>& kernels = window.timeline.kernels;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const KernelEvent& kernel = kernels[k];
    if (!IsNcclKernel(kernel.name)) continue;
    CollectiveCall call;
    call.start_ns = kernel.start_ns;
    call.end_ns = kernel.end_ns;
    call.on_device = true;
    const int op = OpIndex(window, kernel.external_id);
    if (op >= 0) call.step = window.placements[op].step;
    CollectiveDescription description{kernel.name, "", -1};
    if (auto it = collective_of_kernel.find(k); it != collective_of_kernel.end()) {
      description = it->second;
    } else if (op >= 0) {
      description = DescribeFromOps(window, host, op);
    }
    call.name = description.name;
    call.process_group = description.process_group;
    call.seq = description.seq;
    calls.push_back(std::move(call));
  }
  if (calls.empty()) {
    // No NCCL kernel: gloo runs collectives on the host, each as a "gloo:..." range.
    for (std::size_t i = 0; i < window.timeline.ops.size(); ++i) {
      const OpEvent& op = window.timeline.ops[i];
      if (op.name.rfind("gloo:", 0) != 0) continue;
      const CollectiveDescription description = DescribeFromOps(window, host, static_cast<int>(i));
      CollectiveCall call;
      call.name = description.name;
      call.process_group = description.process_group;
      call.seq = description.seq;
      call.start_ns = op.start_ns;
      call.end_ns = op.end_ns;
      call.step = window.placements[i].step;
      calls.push_back(std::move(call));
    }
  }
  std::stable_sort(
      calls.begin(), calls.end(),
      [](const CollectiveCall& a, const CollectiveCall& b) { return a.start_ns < b.start_ns; });
  return calls;
}

}  // namespace advisor
