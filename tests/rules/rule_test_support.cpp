#include "tests/rules/rule_test_support.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <unistd.h>

namespace advisor::testing {

namespace fs = std::filesystem;

ScratchDir::ScratchDir() {
  static std::atomic<int> counter{0};
  path_ = (fs::temp_directory_path() / ("advisor-rules-test-" + std::to_string(::getpid()) + "-" +
                                        std::to_string(counter++)))
              .string();
  fs::remove_all(path_);
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::string ScratchDir::Write(const std::string& name, const std::string& text) const {
  const std::string file = (fs::path(path_) / name).string();
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + file);
  return file;
}

std::vector<std::string> Lines(const std::vector<RuleDiagnostic>& diagnostics) {
  std::vector<std::string> lines;
  for (const RuleDiagnostic& diagnostic : diagnostics) lines.push_back(diagnostic.ToString());
  return lines;
}

RuleRun RunOneRule(const ScratchDir& dir, const std::string& text, const nlohmann::json& facts,
                   const SandboxLimits& limits, const std::string& name) {
  std::vector<RuleDiagnostic> errors;
  const RuleSet rules = RuleSet::Load({dir.Write(name, text)}, errors);
  if (!errors.empty()) throw std::runtime_error("rule did not load: " + errors[0].ToString());
  return RunRules(rules, facts, limits);
}

nlohmann::json MinimalFacts() {
  return nlohmann::json::parse(R"({
    "run": {"device": "cpu", "device_name": "CPU", "torch_version": "2.4.0",
            "deterministic": false, "window_steps": 10,
            "allocator": {"conf": "", "backend": "native", "expandable_segments": false,
                          "options": {}}},
    "step": {"ms": 10.0, "median_ms": 10.0, "min_ms": 9.0, "max_ms": 12.0, "forward_ms": 4.0,
             "backward_ms": 5.0, "optimizer_ms": 1.0},
    "modules": {"encoder": {"path": "encoder", "type": "Encoder", "measured": true,
                            "forward_ms": 3.0, "backward_ms": 4.0, "ms": 7.0,
                            "parameters": 10, "op_types": ["aten::gather"],
                            "has_op": {"aten::gather": true}}},
    "ops": [{"name": "aten::mm", "phase": "forward", "calls": 4, "ms": 3.0},
            {"name": "aten::add", "phase": "forward", "calls": 2, "ms": 1.0}]
  })");
}

}  // namespace advisor::testing
