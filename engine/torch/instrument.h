// Inserting marker ops (probes/markers) into TorchScript graphs around submodule calls: the C++
// stand-in for Python's module forward and backward hooks.
//
// TorchScript compiles one graph per module type, so instrumenting the calls in one type's graph
// instruments every instance of that type. Each marker reads its label at run time from a string
// attribute of the called instance, so events carry instance paths ("blocks.5.mlp", not "Mlp").
// Instrument before the module's first forward: executors cache their optimised plans.
#pragma once

#include <torch/script.h>

#include <set>
#include <string>

namespace advisor {

inline constexpr const char* kPathAttribute = "__advisor_path";

// Gives every module instance under `root` the attribute holding its path.
void AssignInstancePaths(torch::jit::Module& root);

struct InstrumentStats {
  int call_sites = 0;        // calls bracketed by markers
  int untensored_ends = 0;   // call ends with no tensor to carry a backward marker
};

class Instrumenter {
 public:
  // Brackets every submodule call in the forward of `module`'s type and in the methods of its own
  // that forward calls. A type is instrumented once, however often it is asked for.
  InstrumentStats InstrumentCallsIn(const torch::jit::Module& module);

 private:
  std::set<std::string> instrumented_types_;
};

}  // namespace advisor
