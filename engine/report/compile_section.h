// The report's compile section (RunReport::compile: what torch.compile did in a script) in each
// writer's form: report.json's object, and the sentence and table report.md and report.html show.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "engine/model/compile_report.h"
#include "engine/report/report_tables.h"

namespace advisor {

// report.json's `compile` (docs/report-schema.md#compile).
nlohmann::json CompileToJson(const CompileReport& compile);

// "torch.compile made 3 graphs in 2.41 s of compilation (dynamo and the backend), with 1 graph
// break and 1 recompilation."
std::string CompileSentence(const CompileReport& compile);

// One row per graph break, recompilation and recompile limit hit: what, where, why, how often.
// Empty where the compiler met none.
Table CompileTable(const CompileReport& compile);

}  // namespace advisor
