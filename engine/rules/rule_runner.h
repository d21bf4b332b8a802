// Runs every rule of a RuleSet on one facts table, each in its own sandbox, and ranks what they
// found. A rule that fails (an error, its budget, bad findings) costs only its own findings.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/model/finding.h"
#include "engine/rules/lua_sandbox.h"
#include "engine/rules/rule_set.h"

namespace advisor {

struct RuleRun {
  std::vector<Finding> findings;    // ranked (RankFindings, engine/model/finding.h)
  std::vector<std::string> errors;  // one line each for the report's data-quality section,
                                    // "file:line: rule 'id': problem"
};

RuleRun RunRules(const RuleSet& rules, const nlohmann::json& facts,
                 const SandboxLimits& limits = {});

}  // namespace advisor
