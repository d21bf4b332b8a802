// `advisor bisect --autotest`: after the rules, try the recipes the findings name on the workload
// (the numerics check first where a recipe keeps the computation, then an A/B benchmark against
// the baseline, every run in a worker process of its own) and put the results into report.fixes.
#pragma once

#include "engine/autotest/fixed_models.h"
#include "engine/cli/bisect_command.h"
#include "engine/model/run_report.h"

namespace advisor {

// Progress goes to stderr unless options.quiet. A worker that crashes, hangs or writes nonsense
// fails its candidate, never advisor; problems with the recipes go to report.data_quality.
// With `fixed` (--save-fixed), the models of the verified rewrites are saved there.
void RunAutotestStep(const BisectCommandOptions& options, RunReport& report,
                     FixedModelsDir* fixed);

// After a run that ran out of memory, whose findings (the oom-* rules) offer fixes: each recipe
// they name run alone, without a baseline, which does not fit (engine/autotest/fit_runs.h), into
// report.fixes. Progress and failures as RunAutotestStep's.
void RunOutOfMemoryFixesStep(const BisectCommandOptions& options, RunReport& report);

}  // namespace advisor
