// The facts/findings boundary: any JSON document becomes the read-only facts of a rule that walks
// every table in them (pairs, ipairs, #, indexing), and of the built-in rules, which must fail
// with a diagnostic on facts they do not expect, never crash. What they return is read back as
// findings.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "engine/rules/rule_runner.h"
#include "engine/rules/rule_set.h"
#include "engine/util/scratch_paths.h"

namespace {

// Walks the facts depth-first and returns a finding built from what it saw.
constexpr char kWalker[] =
    R"(return {id = "walker", title = "Walks every fact", check = function(facts)
  local seen = 0
  local function walk(value, depth)
    if type(value) ~= "table" or depth > 50 then return end
    for key, inner in pairs(value) do
      seen = seen + 1
      walk(inner, depth + 1)
    end
    for index = 1, #value do walk(value[index], depth + 1) end
  end
  walk(facts, 0)
  return {{severity = "low", message = tostring(facts.run and facts.run.model),
           evidence = tostring(seen), path = tostring(facts.hotspot and facts.hotspot.path or "")}}
end}
)";

const advisor::RuleSet& Rules() {
  static const advisor::PrivateTempDir folder("advisor-fuzz-facts-");
  static const advisor::RuleSet rules = [] {
    std::ofstream(folder.path() + "/walker.lua") << kWalker;
    std::vector<advisor::RuleDiagnostic> errors;
    return advisor::RuleSet::Load({ADVISOR_FUZZ_DATA_DIR "/../rules", folder.path()}, errors);
  }();
  return rules;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const nlohmann::json facts = nlohmann::json::parse(data, data + size, nullptr, false);
  if (facts.is_discarded()) return 0;
  advisor::SandboxLimits limits;
  limits.time = std::chrono::milliseconds(200);
  advisor::RunRules(Rules(), facts, limits);
  return 0;
}
