#include "engine/autotest/candidate_process.h"

#include <filesystem>
#include <sstream>

#include "engine/autotest/process.h"
#include "engine/util/printable_text.h"

namespace advisor {
namespace {

// The last line of `text` that says "out of memory" (torch's "CUDA out of memory. Tried to
// allocate ...", under any exception's name); "" where none does. A candidate process whose
// probe wrote no result (a model.pt's `advisor candidate`) says it only there.
std::string OutOfMemoryLine(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::string found;
  while (std::getline(lines, line)) {
    if (line.find("out of memory") != std::string::npos) found = line;
  }
  return PrintableLine(found);
}

}  // namespace

CandidateProcessRun RunCandidateProcess(const CandidateRunner& runner,
                                        const CandidateSpec* candidate, const AbSettings& settings,
                                        const std::string& result_path) {
  std::error_code ignored;
  std::filesystem::remove(result_path, ignored);  // never read a previous run's file

  CandidateCommand command = runner.BenchmarkCommand(candidate, result_path);
  if (candidate) {
    for (const auto& [name, value] : candidate->env) command.env[name] = value;
  }
  ProcessSpec spec;
  spec.argv = command.argv;
  spec.env = command.env;
  spec.timeout = settings.candidate_timeout;
  spec.stderr_tail_bytes = settings.stderr_tail_bytes;
  const ProcessOutcome outcome = RunProcess(spec);

  CandidateProcessRun run;
  if (!outcome.Succeeded()) {
    // A script's probe writes where it ran out of memory before the interpreter exits.
    try {
      run.out_of_memory = ReadCandidateResult(result_path).out_of_memory;
    } catch (const CandidateResultError&) {
    }
    if (run.out_of_memory.empty()) run.out_of_memory = OutOfMemoryLine(outcome.stderr_tail);
    run.failure =
        run.out_of_memory.empty() ? outcome.Describe() : "ran out of memory " + run.out_of_memory;
    if (!outcome.stderr_tail.empty()) run.failure += "; stderr tail:\n" + outcome.stderr_tail;
    return run;
  }
  try {
    run.result = ReadCandidateResult(result_path);
  } catch (const CandidateResultError& error) {
    run.failure = error.what();
  }
  return run;
}

}  // namespace advisor
