// Opening model.pt: the TorchScript module and the workload that travels inside it.
#pragma once

#include <torch/script.h>

#include <stdexcept>
#include <string>

#include "engine/workload/workload_spec.h"

namespace advisor {

inline constexpr const char* kWorkloadEntry = "advisor/workload.json";

// A model file advisor cannot use; what() is one line naming the file and the problem.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads the workload spec alone (cheap checks before the model is built).
WorkloadSpec ReadWorkload(const std::string& model_path);

// Loads a fresh copy of the module onto the CPU, in training mode. Each call gives new graphs
// and executors, which instrumentation needs (an executor caches its optimised plan). Throws
// ModelError when the input stage's method does not fit the archive's workload.
torch::jit::Module LoadModule(const std::string& model_path);

// Saves `module` (a changed copy of the model at `model_path`, before it ran a step) as a model
// file advisor can read again: the workload of `model_path` travels inside, as its own does.
// Throws ModelError naming `out_path` when the file cannot be written.
void SaveModel(const torch::jit::Module& module, const std::string& model_path,
               const std::string& out_path);

}  // namespace advisor
