// Host-to-device copies made in every step of the window (inputs re-uploaded, tensors built on
// the host, pageable staging), localised to the op and module that made them.
#pragma once

#include <vector>

#include "engine/analysis/placement.h"
#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"

namespace advisor {

// Sites by time per step, largest first. A site is an (op, module, phase, pageable) group; one
// seen in only some steps (a first-step upload, say) is not a per-step copy and is left out.
std::vector<CopySite> FindCopySites(const Timeline& timeline, const OpPlacements& placements);

}  // namespace advisor
