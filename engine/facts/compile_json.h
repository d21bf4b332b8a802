// torch.compile's report (engine/model/compile_report.h) as JSON: report.json's `compile` object
// (docs/report-schema.md#compile), which the facts table extends with what the rules derive from
// it (facts.compile, docs/facts.md).
#pragma once

#include <nlohmann/json.hpp>

#include "engine/model/compile_report.h"

namespace advisor {

nlohmann::json CompileJson(const CompileReport& compile);

}  // namespace advisor
