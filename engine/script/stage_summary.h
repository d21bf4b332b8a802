// A script's input stage records (stage_message) as the report's InputStageProfile for one window,
// through the summary both doors share (engine/analysis/input_stage_pieces): the batches whose
// preparation overlapped the window's steps; each transform's time per batch; each line's own
// time, scaled from its batch's line-traced items to the batch; the workers' busy share.
#pragma once

#include <optional>

#include "engine/script/stage_message.h"

namespace advisor {

// nullopt where no batch overlapped [window_start, window_end].
std::optional<InputStageProfile> SummariseScriptStage(const StageRecords& records,
                                                      TimeNs window_start, TimeNs window_end);

}  // namespace advisor
