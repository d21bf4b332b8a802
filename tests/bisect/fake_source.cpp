#include "tests/bisect/fake_source.h"

#include <functional>
#include <set>

namespace advisor::testing {
namespace {

constexpr ThreadId kMainThread = 1;
constexpr TimeNs kOptimizerNs = 1'000'000;

TimeNs Ns(double ms) { return static_cast<TimeNs>(ms * 1e6); }

bool IsChild(const std::string& path, const std::string& parent) {
  return parent.empty() ? path.find('.') == std::string::npos
                        : path.size() > parent.size() + 1 &&
                              path.compare(0, parent.size() + 1, parent + ".") == 0 &&
                              path.find('.', parent.size() + 1) == std::string::npos;
}

}  // namespace

// Writes one step's ops and markers, bracketing the instrumented modules as marker ops would.
struct FakeSource::Emitter {
  const std::set<std::string>& instrumented;
  const std::function<double(const std::string&)>& scale;           // of a module's own op times
  const std::function<double(const std::string&)>& backward_scale;  // of its backward node too
  const std::function<double(const std::string&)>& fault_ms;        // added to its forward op
  Timeline& timeline;
  double kernel_share;  // 0: no device activity recorded
  TimeNs now;
  std::int64_t next_seq = 0;
  std::map<std::string, std::int64_t> seq_of;  // each module's forward op

  void Op(const std::string& name, OpScope scope, double ms, std::int64_t seq,
          double page_fault_ms = 0) {
    OpEvent op;
    op.name = name;
    op.scope = scope;
    op.thread = kMainThread;
    op.start_ns = now;
    now += Ns(ms + page_fault_ms);
    op.end_ns = now;
    OpCounts counts;
    if (page_fault_ms > 0) {
      counts.page_faults =
          static_cast<std::int64_t>(page_fault_ms * 1e6 / FakeSource::kPageFaultNs);
    }
    std::uint64_t correlation_id = 0;  // none without device activity
    if (kernel_share > 0) {
      correlation_id = timeline.ops.size() + 1;
      KernelEvent kernel;
      kernel.name = name + "_kernel";
      kernel.start_ns = op.start_ns;
      kernel.end_ns = op.start_ns + Ns(ms * kernel_share);
      kernel.external_id = correlation_id;
      timeline.kernels.push_back(kernel);
    }
    timeline.ops.push_back(op);
    timeline.SetCorrelation(timeline.ops.size() - 1, correlation_id);
    timeline.SetCounts(timeline.ops.size() - 1, counts);
    timeline.SetSequence(timeline.ops.size() - 1,
                         {seq, scope == OpScope::kBackward ? kMainThread : 0});
  }

  // Runs `body` inside a range named `name` where `enclose`, as a compiled graph's call encloses
  // the ops it runs.
  void Enclosed(bool enclose, const std::string& name, OpScope scope,
                const std::function<void()>& body) {
    if (!enclose) {
      body();
      return;
    }
    const std::size_t at = timeline.ops.size();
    OpEvent range;
    range.name = name;
    range.scope = scope;
    range.thread = kMainThread;
    range.start_ns = now;
    timeline.ops.push_back(range);
    body();
    timeline.ops[at].end_ns = now;
  }

  void Mark(const std::string& path, MarkerKind kind) {
    if (instrumented.count(path)) timeline.markers.push_back({path, kind, kMainThread, now});
  }

  void Forward(const FakeModule& module) {
    Mark(module.path, MarkerKind::kForwardEnter);
    Enclosed(module.compiled, "CompiledFunction", OpScope::kForward, [&] {
      seq_of[module.path] = next_seq;
      if (module.has_forward) {
        Op(module.forward_op, OpScope::kForward, module.forward_ms * scale(module.path), next_seq++,
           fault_ms(module.path));
      }
      for (const FakeModule& child : module.children) Forward(child);
    });
    Mark(module.path, MarkerKind::kForwardExit);
  }

  void Backward(const FakeModule& module) {
    Mark(module.path, MarkerKind::kBackwardBegin);
    Enclosed(module.compiled, "CompiledFunctionBackward", OpScope::kBackward, [&] {
      for (auto child = module.children.rbegin(); child != module.children.rend(); ++child) {
        Backward(*child);
      }
      if (module.has_forward) {
        Op(module.backward_op, OpScope::kBackward,
           module.backward_ms * scale(module.path) * backward_scale(module.path),
           seq_of[module.path]);
      }
    });
    Mark(module.path, MarkerKind::kBackwardEnd);
  }
};

FakeModule Leaf(const std::string& path, double forward_ms, double backward_ms) {
  FakeModule module;
  module.path = path;
  module.type = "Linear";
  module.forward_ms = forward_ms;
  module.backward_ms = backward_ms;
  return module;
}

FakeSource::FakeSource(FakeModule root) : root_(std::move(root)) {
  description_.run.mode = Door::kModel;
  description_.run.device = "cpu";
  Describe(root_);
}

long long FakeSource::Describe(const FakeModule& module) {
  ModuleInfo info;
  info.path = module.path;
  info.type = module.type;
  info.has_forward = module.has_forward;
  info.calls_submodules = !module.children.empty();
  info.opaque_reason = module.opaque_reason;
  info.compiled = module.compiled;
  info.parameters = module.parameters;
  for (const FakeModule& child : module.children) info.parameters += Describe(child);
  modules_[module.path] = info;
  return info.parameters;
}

void FakeSource::RunOnGpu(double kernel_share) {
  kernel_share_ = kernel_share;
  description_.run.device = "cuda";
}

TimedSteps FakeSource::TimeSteps(int steps) {
  return {Record({Instrumentation::kNone, "", steps, false}).timeline.steps,
          StepTiming::kHostClock};
}

RecordedWindow FakeSource::Record(const WindowRequest& request) {
  requests_.push_back(request);
  // What TorchScript brackets when asked for the children of `parent`: the parent's own call and
  // its children's, a container's children standing in for the container.
  std::set<std::string> instrumented;
  for (const auto& [path, info] : modules_) {
    if (path.empty()) continue;
    switch (request.instrumentation) {
      case Instrumentation::kNone:
        break;
      case Instrumentation::kEveryModule:
        instrumented.insert(path);
        break;
      case Instrumentation::kChildrenOf: {
        const std::string& parent = request.parent;
        const bool child = IsChild(path, parent);
        const bool in_container = !child && IsChild(ParentPath(path), parent) &&
                                  !modules_.at(ParentPath(path)).has_forward;
        if (path == parent || (child && info.has_forward) || in_container) {
          instrumented.insert(path);
        }
        break;
      }
    }
  }
  RecordedWindow window;
  const int window_index = static_cast<int>(requests_.size()) - 1;
  for (int i = 0; i < request.steps; ++i) {
    const std::function<double(const std::string&)> scale = [&](const std::string& path) {
      return slowdown ? slowdown(window_index, i, path) : 1.0;
    };
    const std::function<double(const std::string&)> backward_scale = [&](const std::string& path) {
      return backward_slowdown ? backward_slowdown(window_index, i, path) : 1.0;
    };
    const std::function<double(const std::string&)> fault_ms = [&](const std::string& path) {
      return page_fault_ms ? page_fault_ms(window_index, i, path) : 0.0;
    };
    const double kernel_share = request.device_activity ? kernel_share_ : 0;
    Emitter emitter{instrumented,
                    scale,
                    backward_scale,
                    fault_ms,
                    window.timeline,
                    kernel_share,
                    clock_,
                    0,
                    {}};
    const TimeNs start = emitter.now;
    emitter.Forward(root_);
    const TimeNs forward_end = emitter.now;
    emitter.Backward(root_);
    const TimeNs backward_end = emitter.now;
    emitter.Op("Optimizer.step#SGD.step", OpScope::kUser, 1.0, -1);
    const TimeNs end = emitter.now;
    window.timeline.steps.push_back(StepOfPhases(i, start, start, forward_end, backward_end, end));
    clock_ = end + kOptimizerNs;
  }
  window.timeline.probes.push_back({"ops", true, "fake", 0});
  if (page_fault_ms) window.timeline.page_fault_ns = kPageFaultNs;
  window.losses = losses;
  if (request.instrumentation == Instrumentation::kNone) window.compiled_graphs = compiled_graphs;
  if (input_stage_ && request.instrumentation == Instrumentation::kNone) {
    window.input_stage = input_stage_;
    window.input_stage->batches = window_index;
  }
  if (kernel_share_ > 0 && request.device_activity) {
    window.timeline.probes.push_back({"cupti", true, "fake", 0});
  }
  return window;
}

void FakeSource::HaveInputStage(DataWait settings, InputStageProfile profile) {
  description_.input = std::move(settings);
  input_stage_ = std::move(profile);
}

std::optional<SourceLocation> FakeSource::SourceOf(const std::string& path, const std::string& op) {
  source_queries_.emplace_back(path, op);
  return SourceLocation{"model.py", 42, "x = " + op + "(x)"};
}

}  // namespace advisor::testing
