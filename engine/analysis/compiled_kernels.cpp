#include "engine/analysis/compiled_kernels.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace advisor {
namespace {

constexpr std::string_view kCallPrefix = "## Call CompiledFxGraph";
constexpr std::string_view kForwardRange = "CompiledFunction";
constexpr std::string_view kBackwardRange = "CompiledFunctionBackward";
constexpr std::string_view kAtenPrefix = "aten::";

bool StartsWith(const std::string& text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

struct CompiledCall {
  std::size_t op = 0;
  bool backward = false;
  std::vector<std::size_t> children;  // the ops directly inside it, in time order
};

// Where an op sits: the compiled call around it and its op directly inside that call (-1: none).
struct CallPlace {
  int call = -1;
  int child = -1;
};

bool Contains(const OpEvent& outer, const OpEvent& inner) {
  return inner.start_ns >= outer.start_ns && inner.end_ns <= outer.end_ns;
}

bool IsAotFunction(const std::string& name) {
  return name == kForwardRange || name == kBackwardRange;
}

// Each thread's ops, outer before inner where they start together.
std::vector<std::vector<std::size_t>> OpsByThread(const Timeline& timeline) {
  std::unordered_map<ThreadId, std::vector<std::size_t>> by_thread;
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    by_thread[timeline.ops[i].thread].push_back(i);
  }
  std::vector<std::vector<std::size_t>> lists;
  for (auto& [thread, ops] : by_thread) {
    std::sort(ops.begin(), ops.end(), [&](std::size_t a, std::size_t b) {
      const OpEvent& x = timeline.ops[a];
      const OpEvent& y = timeline.ops[b];
      if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
      if (x.end_ns != y.end_ns) return x.end_ns > y.end_ns;  // the outer first
      return a < b;
    });
    lists.push_back(std::move(ops));
  }
  return lists;
}

// The ops that are compiled graphs' calls: every `## Call CompiledFxGraph` range, and an
// AOTAutograd function's range (CompiledFunction, CompiledFunctionBackward) with none inside it,
// which is what an op observer sees (inductor records its range only under torch.profiler).
std::vector<bool> CallOps(const Timeline& timeline,
                          const std::vector<std::vector<std::size_t>>& threads) {
  std::vector<bool> call(timeline.ops.size(), false);
  std::vector<bool> holds_graph_call(timeline.ops.size(), false);
  for (const std::vector<std::size_t>& ops : threads) {
    std::vector<std::size_t> open;
    for (const std::size_t i : ops) {
      while (!open.empty() && !Contains(timeline.ops[open.back()], timeline.ops[i])) {
        open.pop_back();
      }
      if (StartsWith(timeline.ops[i].name.str(), kCallPrefix)) {
        call[i] = true;
        for (const std::size_t outer : open) holds_graph_call[outer] = true;
      }
      open.push_back(i);
    }
  }
  for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
    if (!holds_graph_call[i] && IsAotFunction(timeline.ops[i].name.str())) call[i] = true;
  }
  return call;
}

// The compiled calls of the timeline and each op's place among them, by nesting in time on each
// thread (a trace records no depth).
std::vector<CompiledCall> FindCalls(const Timeline& timeline, std::vector<CallPlace>& places) {
  const std::vector<std::vector<std::size_t>> threads = OpsByThread(timeline);
  const std::vector<bool> is_call = CallOps(timeline, threads);
  std::vector<CompiledCall> calls;
  places.assign(timeline.ops.size(), {});
  for (const std::vector<std::size_t>& ops : threads) {
    std::vector<std::size_t> open;
    for (const std::size_t i : ops) {
      const OpEvent& op = timeline.ops[i];
      while (!open.empty() && !Contains(timeline.ops[open.back()], op)) open.pop_back();
      if (!open.empty()) {
        const std::size_t parent = open.back();
        places[i] = places[parent];
        const CallPlace& above = places[parent];
        if (above.call >= 0 && above.child < 0 &&
            calls[static_cast<std::size_t>(above.call)].op == parent) {
          places[i].child = static_cast<int>(i);
          calls[static_cast<std::size_t>(above.call)].children.push_back(i);
        }
      }
      if (is_call[i] && places[i].call < 0) {
        CompiledCall call;
        call.op = i;
        call.backward = op.name == kBackwardRange ||
                        std::any_of(open.begin(), open.end(), [&](std::size_t outer) {
                          return timeline.ops[outer].name == kBackwardRange;
                        });
        places[i] = {static_cast<int>(calls.size()), -1};
        calls.push_back(std::move(call));
      }
      open.push_back(i);
    }
  }
  return calls;
}

// The graph of the call's direction whose extern calls its ATen ops are, one for one (the call's
// ATen ops of other names left out), and the extern call of each such op; nullptr where none is.
const CompiledGraphSources* MatchExternCalls(
    const Timeline& timeline, const CompiledCall& call,
    const std::vector<CompiledGraphSources>& graphs,
    std::unordered_map<std::size_t, const CompiledKernelSource*>& extern_of) {
  for (const CompiledGraphSources& graph : graphs) {
    if (graph.backward != call.backward) continue;
    std::unordered_set<std::string> names;
    for (const CompiledKernelSource& extern_call : graph.extern_calls)
      names.insert(extern_call.name);
    std::vector<std::size_t> aten;
    for (const std::size_t child : call.children) {
      const std::string& name = timeline.ops[child].name.str();
      if (StartsWith(name, kAtenPrefix) && names.count(name) != 0) aten.push_back(child);
    }
    if (aten.size() != graph.extern_calls.size()) continue;
    bool same = true;
    for (std::size_t k = 0; k < aten.size() && same; ++k) {
      same = timeline.ops[aten[k]].name == graph.extern_calls[k].name;
    }
    if (!same) continue;
    for (std::size_t k = 0; k < aten.size(); ++k) extern_of[aten[k]] = &graph.extern_calls[k];
    return &graph;
  }
  return nullptr;
}

// The graphs' generated kernels by name, indexed once: each graph's, and each direction's (where
// a graph of that direction has the name, the first such graph's kernel).
class GeneratedKernels {
 public:
  explicit GeneratedKernels(const std::vector<CompiledGraphSources>& graphs)
      : graphs_(graphs), by_graph_(graphs.size()) {
    for (std::size_t g = 0; g < graphs.size(); ++g) {
      for (const CompiledKernelSource& kernel : graphs[g].kernels) {
        by_graph_[g].emplace(kernel.name, &kernel);
        by_direction_[graphs[g].backward ? 1 : 0].emplace(kernel.name, &kernel);
      }
    }
  }

  // The kernel `name` of `graph` (the call's, nullptr where none matched it), else of any graph
  // of the call's direction; nullptr where none has it.
  const CompiledKernelSource* Find(const CompiledGraphSources* graph, bool backward,
                                   const std::string& name) const {
    if (graph != nullptr) {
      const auto& own = by_graph_[static_cast<std::size_t>(graph - graphs_.data())];
      if (const auto found = own.find(name); found != own.end()) return found->second;
    }
    const auto& any = by_direction_[backward ? 1 : 0];
    const auto found = any.find(name);
    return found != any.end() ? found->second : nullptr;
  }

 private:
  using ByName = std::unordered_map<std::string, const CompiledKernelSource*>;
  const std::vector<CompiledGraphSources>& graphs_;
  std::vector<ByName> by_graph_;
  ByName by_direction_[2];  // forward, backward
};

struct InstanceSums {
  double forward = 0;
  double backward = 0;
  double shared = 0;
};

TimeNs Rounded(double ns) { return static_cast<TimeNs>(std::llround(ns)); }

}  // namespace

CompiledKernelTime AttributeCompiledKernels(const Timeline& timeline,
                                            const std::vector<CompiledGraphSources>& graphs) {
  CompiledKernelTime result;
  result.steps = static_cast<int>(timeline.steps.size());
  std::vector<CallPlace> places;
  const std::vector<CompiledCall> calls = FindCalls(timeline, places);
  result.calls = static_cast<std::int64_t>(calls.size());
  result.device = !timeline.kernels.empty();

  std::unordered_map<std::size_t, const CompiledKernelSource*> extern_of;
  std::vector<const CompiledGraphSources*> graph_of(calls.size(), nullptr);
  for (std::size_t c = 0; c < calls.size(); ++c) {
    graph_of[c] = MatchExternCalls(timeline, calls[c], graphs, extern_of);
  }

  const GeneratedKernels generated(graphs);
  std::map<std::string, InstanceSums> sums;
  double attributed = 0, shared = 0, by_origins = 0, backward_attributed = 0;
  const auto charge = [&](int call, int child, const std::string& name, TimeNs ns) {
    const bool backward = calls[static_cast<std::size_t>(call)].backward;
    ++result.pieces;
    result.compiled_ns += ns;
    if (backward) result.backward_ns += ns;
    const CompiledKernelSource* source =
        generated.Find(graph_of[static_cast<std::size_t>(call)], backward, name);
    if (source == nullptr && child >= 0) {
      const auto found = extern_of.find(static_cast<std::size_t>(child));
      if (found != extern_of.end()) source = found->second;
    }
    if (source == nullptr) {
      ++result.unnamed;
      result.unnamed_ns += ns;
      return;
    }
    if (source->nodes_from == KernelNodesFrom::kNone) {
      ++result.nodeless;
      result.nodeless_ns += ns;
      return;
    }
    const bool split = source->shares.size() > 1;
    for (const KernelShare& share : source->shares) {
      const double part = static_cast<double>(ns) * share.share;
      InstanceSums& instance = sums[share.instance];
      (backward ? instance.backward : instance.forward) += part;
      attributed += part;
      if (backward) backward_attributed += part;
      if (source->nodes_from == KernelNodesFrom::kIrOrigins) by_origins += part;
      if (split) {
        instance.shared += part;
        shared += part;
      }
    }
  };

  if (result.device) {
    std::unordered_map<std::uint64_t, std::size_t> op_of_id;
    for (std::size_t i = 0; i < timeline.ops.size(); ++i) {
      const std::uint64_t id = timeline.CorrelationOf(i);
      if (id != 0 && places[i].call >= 0) op_of_id[id] = i;
    }
    for (const KernelEvent& kernel : timeline.kernels) {
      const auto launcher = op_of_id.find(kernel.external_id);
      if (kernel.external_id == 0 || launcher == op_of_id.end()) continue;
      const CallPlace& place = places[launcher->second];
      charge(place.call, place.child, kernel.name, kernel.end_ns - kernel.start_ns);
    }
  } else {
    for (std::size_t c = 0; c < calls.size(); ++c) {
      for (const std::size_t child : calls[c].children) {
        const OpEvent& op = timeline.ops[child];
        charge(static_cast<int>(c), static_cast<int>(child), op.name.str(),
               op.end_ns - op.start_ns);
      }
    }
  }

  result.attributed_ns = Rounded(attributed);
  result.shared_ns = Rounded(shared);
  result.origins_ns = Rounded(by_origins);
  result.backward_attributed_ns = Rounded(backward_attributed);
  for (const auto& [instance, sum] : sums) {
    result.instances.push_back(
        {instance, Rounded(sum.forward), Rounded(sum.backward), Rounded(sum.shared)});
  }
  std::stable_sort(result.instances.begin(), result.instances.end(),
                   [](const CompiledInstanceTime& a, const CompiledInstanceTime& b) {
                     return a.total_ns() > b.total_ns();
                   });
  return result;
}

}  // namespace advisor
