// A user's rule file: any text is loaded (compiled and run in the sandbox, its rule table
// validated) and its check run on the sample facts of `rules check`, its findings read back; every
// problem is a diagnostic, nothing escapes the sandbox. Limits are smaller than a run's so that
// the fuzzer spends its time on many inputs, not on loops that the time limit would end anyway.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "engine/facts/facts.h"
#include "engine/facts/sample_reports.h"
#include "engine/rules/rule_runner.h"
#include "engine/rules/rule_set.h"
#include "engine/util/scratch_paths.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const advisor::PrivateTempDir folder("advisor-fuzz-rules-");
  static const nlohmann::json facts = advisor::BuildFacts(advisor::SampleReportAllMeasured());
  const std::string path = folder.path() + "/rule.lua";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  std::vector<advisor::RuleDiagnostic> errors;
  const advisor::RuleSet rules = advisor::RuleSet::Load({path}, errors);
  advisor::SandboxLimits limits;
  limits.instructions = 1'000'000;
  limits.time = std::chrono::milliseconds(100);
  limits.memory_bytes = std::size_t{16} << 20;
  advisor::RunRules(rules, facts, limits);
  return 0;
}
