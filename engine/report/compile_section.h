// The report's compile section (RunReport::compile: what torch.compile did in a script) in each
// writer's form: the sentence and table report.md and report.html show (report.json's object is
// engine/facts/compile_json's, the facts' own).
#pragma once

#include <string>

#include "engine/model/compile_report.h"
#include "engine/report/report_tables.h"

namespace advisor {

// "torch.compile made 3 graphs in 2.41 s of compilation (dynamo and the backend), with 1 graph
// break and 1 recompilation."
std::string CompileSentence(const CompileReport& compile);

// "CUDA graphs: 2 captures of 2 graphs, none captured again in a later step; ..." (its own line
// under the sentence above, where inductor captured or skipped one).
std::string CudaGraphsSentence(const CudaGraphs& graphs);

// One row per graph break, recompilation and recompile limit hit: what, where, why, how often.
// Empty where the compiler met none.
Table CompileTable(const CompileReport& compile);

}  // namespace advisor
