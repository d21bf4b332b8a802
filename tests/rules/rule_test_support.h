// Helpers for rule tests: rule files written from inline Lua into a scratch folder, so each test
// shows the exact text (and line numbers) its diagnostics refer to.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/rules/rule_runner.h"
#include "engine/rules/rule_set.h"

namespace advisor::testing {

// A fresh folder under the system temp dir, removed when the object goes away.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  // Writes `text` to `name` inside the folder and returns the file's path.
  std::string Write(const std::string& name, const std::string& text) const;

 private:
  std::string path_;
};

// The diagnostics as "file:line: message" lines, for readable failure output.
std::vector<std::string> Lines(const std::vector<RuleDiagnostic>& diagnostics);

// Loads one rule from `text` (as file `name` in `dir`) and runs it on `facts`.
RuleRun RunOneRule(const ScratchDir& dir, const std::string& text, const nlohmann::json& facts,
                   const SandboxLimits& limits = {}, const std::string& name = "rule.lua");

// Small valid facts: a CPU run of 10 ms with two ops, nothing optional measured.
nlohmann::json MinimalFacts();

}  // namespace advisor::testing
