// A WindowSource that synthesises its windows from a described model: every module runs one
// forward op of its own and one backward node, for the milliseconds given, in call order. What the
// bisection asks for is recorded, so tests can check the windows it ran as well as its answer.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/window/window_source.h"

namespace advisor::testing {

struct FakeModule {
  std::string path;
  std::string type;
  double forward_ms = 0.1;   // its own forward op
  double backward_ms = 0.2;  // its own backward node
  std::string forward_op = "aten::linear";
  std::string backward_op = "AddmmBackward0";
  bool has_forward = true;   // false for a container such as ModuleList
  long long parameters = 0;  // its own, not its children's
  std::string opaque_reason;
  // torch.compile'd whole: in every window its forward runs inside a `CompiledFunction` range and
  // its backward inside a `CompiledFunctionBackward` range, as AOTAutograd's graph calls do.
  bool compiled = false;
  std::vector<FakeModule> children;
};

// A Linear at `path` whose forward and backward take the milliseconds given.
FakeModule Leaf(const std::string& path, double forward_ms, double backward_ms);

class FakeSource : public WindowSource {
 public:
  explicit FakeSource(FakeModule root);

  const SourceDescription& Describe() const override { return description_; }
  const ModuleTree& Modules() const override { return modules_; }
  TimedSteps TimeSteps(int steps) override;
  RecordedWindow Record(const WindowRequest& request) override;
  std::optional<SourceLocation> SourceOf(const std::string& path, const std::string& op) override;

  // Runs "on a GPU": each op launches one kernel lasting this share of the op's host time, which
  // windows that ask for device activity record (a "cupti" probe). The step's device busy share
  // is about `kernel_share`.
  void RunOnGpu(double kernel_share);

  // The loss check every recorded window reports; none by default (a door that cannot read it).
  std::optional<LossCheck> losses;

  // The kernel tables every uninstrumented window reports (a script probe's provenance); none by
  // default.
  std::vector<CompiledGraphSources> compiled_graphs;

  // Gives the run an input stage: `settings` is what Describe() says of it; every uninstrumented
  // window reports `profile`, its `batches` set to the window's index (timing steps included),
  // so that a test can tell which window's profile the report kept.
  void HaveInputStage(DataWait settings, InputStageProfile profile);

  // Scales a module's own op times in one step of one window (windows counted from 0, timing
  // steps included): what another process taking the CPU does to a real run. 1 by default.
  std::function<double(int window, int step, const std::string& path)> slowdown;
  // Scales a module's own backward node alone, on top of `slowdown`: the two halves of one call
  // taking turns to lead. 1 by default.
  std::function<double(int window, int step, const std::string& path)> backward_slowdown;

  // Milliseconds of page faults a module's forward op takes in one step of one window, on top of
  // its own time, counted at kPageFaultNs a fault as a CPU model's probe counts them; none by
  // default.
  static constexpr double kPageFaultNs = 1000;
  std::function<double(int window, int step, const std::string& path)> page_fault_ms;

  const std::vector<WindowRequest>& requests() const { return requests_; }
  const std::vector<std::pair<std::string, std::string>>& source_queries() const {
    return source_queries_;
  }

 private:
  struct Emitter;
  // Adds `module` and its descendants to the tree; returns its parameters and theirs.
  long long Describe(const FakeModule& module);

  FakeModule root_;
  SourceDescription description_;
  ModuleTree modules_;
  std::vector<WindowRequest> requests_;
  std::vector<std::pair<std::string, std::string>> source_queries_;
  TimeNs clock_ = 1'000'000;
  double kernel_share_ = 0;  // 0: a CPU run
  std::optional<InputStageProfile> input_stage_;
};

}  // namespace advisor::testing
