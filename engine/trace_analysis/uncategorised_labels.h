// Where the legacy exporter's uncategorised labels go, once every operator of their thread is
// read. In a trace without categories, an unknown name may be a record_function label or an op
// that C++ records under a bare name (torch 1.13's "detach_", recorded inside "aten::detach_").
// record_function is called from Python, never from inside an operator: an event nested in an
// operator on its thread is an op, any other a label, taken as a module.
#pragma once

#include <string>
#include <vector>

#include "engine/timeline/timeline.h"
#include "engine/trace_analysis/host_chunk_records.h"
#include "engine/trace_import/event_store.h"

namespace advisor {

// Places `labels` of `thread` among its `operators` (indices into `ops`; both sorted here): the
// labels found to be ops and the modules, in label order, as the records of chunks to add in
// turn. The walk is cut where no operator before is still open, its pieces walked on up to
// `threads` threads; the records are those of one walk.
std::vector<HostChunkRecords> PlaceThreadLabels(const std::vector<OpEvent>& ops,
                                                const StringTable& strings, ThreadId thread,
                                                std::vector<OperatorAt>& operators,
                                                std::vector<Label>& labels, int threads);

}  // namespace advisor
