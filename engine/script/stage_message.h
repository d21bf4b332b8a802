// The input stage as a window's reply carries it ("stage", docs/script-mode.md "The protocol"):
// the batch records of the DataLoader's worker processes (or of the main process with workers 0),
// merged by the probe into tables of transforms and lines. Read like every probe message: checked
// field by field, indices and times in range, ProbeMessageError naming the first problem.
#pragma once

#include <nlohmann/json.hpp>

#include "engine/analysis/input_stage.h"

namespace advisor {

StageRecords ReadStageRecords(const nlohmann::json& stage);

}  // namespace advisor
