// Where the host waits for the device inside a step: synchronising calls (stream, device and
// event synchronisation, blocking copies, cudaFree) and CUPTI's synchronisation records, each
// localised through its external id to the op and module that made it. An .item() shows as
// cudaStreamSynchronize from aten::item (its aten::_local_scalar_dense copies to the host).
#pragma once

#include <vector>

#include "engine/analysis/placement.h"
#include "engine/model/run_report.h"
#include "engine/timeline/timeline.h"

namespace advisor {

// Sites hottest first. One wait seen several ways (the runtime call, the driver call inside it,
// CUPTI's synchronisation record) counts once, named after the runtime call. Waits that no op
// made, such as the runner's own end-of-step synchronisation, are no site.
std::vector<SyncSite> FindSyncSites(const Timeline& timeline, const OpPlacements& placements);

}  // namespace advisor
