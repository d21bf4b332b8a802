#include "engine/trace_analysis/collectives.h"

#include <algorithm>
#include <optional>
#include <string>

#include "engine/timeline/op_name_memo.h"
#include "engine/trace_analysis/event_names.h"

namespace advisor {
namespace {

// The op with this correlation id (ops are numbered from 1 in order), or -1.
int OpIndex(const MeasuredWindow& window, std::uint64_t correlation_id) {
  if (correlation_id == 0 || correlation_id > window.timeline.ops.size()) return -1;
  return static_cast<int>(correlation_id - 1);
}

// What the profiler's host events say of the collective the op, or an op around it, ran.
std::optional<CollectiveDescription> DescribeFromOps(const OpPlacements& placements,
                                                     const HostEvents& host, int op) {
  for (int at = op; at >= 0; at = placements[at].parent) {
    auto it = host.collective_of_op.find(static_cast<std::uint64_t>(at) + 1);  // its correlation
    if (it != host.collective_of_op.end()) return it->second;
  }
  return std::nullopt;
}

// Whether the op or an op around it is a collective's ("nccl:all_reduce", "c10d::allreduce_").
// A kernel launched where no op of its collective was recorded (DDP's reducer launches its
// all-reduces from the autograd engine's hooks) carries whatever op was open on that thread:
// its name and step say nothing of the collective and differ from rank to rank.
bool LaunchedByCommunication(const MeasuredWindow& window, int op) {
  for (int at = op; at >= 0; at = window.placements[at].parent) {
    if (IsCommunication(window.timeline.ops[at].name.str())) return true;
  }
  return false;
}

// The collective a NCCL kernel runs, from its own name ("ncclDevKernel_AllReduce_Sum_f32_RING_LL"
// -> "AllReduce"), without the algorithm and protocol NCCL picked for its size; the whole name
// where it says none.
std::string CollectiveOfKernelName(const std::string& kernel) {
  // ReduceScatter and AllReduce before Reduce, which both contain.
  for (const char* kind :
       {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "SendRecv", "AllToAll", "Reduce"}) {
    if (kernel.find(std::string("_") + kind) != std::string::npos) return kind;
  }
  return kernel;
}

// The step whose span holds `time`; -1 where none does.
int StepAt(const std::vector<StepSpan>& steps, TimeNs time) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].start_ns <= time && time < steps[i].end_ns) return static_cast<int>(i);
  }
  return -1;
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
    // The step of the op that launched it, where that op is the collective's; else the step it
    // ran in (in a window whose phases end synchronised, the device's work is inside the step).
    call.step = op >= 0 && LaunchedByCommunication(window, op)
                    ? window.placements[op].step
                    : StepAt(window.timeline.steps, kernel.start_ns);
    // Named alike on every rank, so that the ranks' calls match by name and order: the profiler's
    // description, else the kernel's collective, never the launching op's name.
    CollectiveDescription description{CollectiveOfKernelName(kernel.name), "", -1};
    if (auto it = collective_of_kernel.find(k); it != collective_of_kernel.end()) {
      description = it->second;
    } else if (op >= 0) {
      description = DescribeFromOps(window.placements, host, op).value_or(description);
    }
    call.name = description.name;
    call.process_group = description.process_group;
    call.seq = description.seq;
    calls.push_back(std::move(call));
  }
  // No NCCL kernel: gloo runs collectives on the host.
  if (calls.empty()) AddHostCollectives(window.timeline, window.placements, host, calls);
  SortByStart(calls);
  return calls;
}

void AddHostCollectives(const Timeline& timeline, const OpPlacements& placements,
                        const HostEvents& host, std::vector<CollectiveCall>& calls) {
  OpNameMemo is_gloo([](const std::string& name) { return name.rfind("gloo:", 0) == 0; });
  for (std::size_t i = placements.first(); i < placements.first() + placements.size(); ++i) {
    const OpEvent& op = timeline.ops[i];
    if (!is_gloo(op.name)) continue;
    const CollectiveDescription description =
        DescribeFromOps(placements, host, static_cast<int>(i))
            .value_or(CollectiveDescription{op.name.str(), "", -1});
    CollectiveCall call;
    call.name = description.name;
    call.process_group = description.process_group;
    call.seq = description.seq;
    call.start_ns = op.start_ns;
    call.end_ns = op.end_ns;
    call.step = placements[i].step;
    calls.push_back(std::move(call));
  }
}

void SortByStart(std::vector<CollectiveCall>& calls) {
  std::stable_sort(
      calls.begin(), calls.end(),
      [](const CollectiveCall& a, const CollectiveCall& b) { return a.start_ns < b.start_ns; });
}

}  // namespace advisor
