// Whether a straggler that the profiled windows show is there outside them too. The probe costs
// every rank something in a profiled window (its op observer, CUPTI, synchronised phases), and not
// always as much on each: the rank it slows most reaches every collective there last and looks
// like a straggler, while the steps timed without a profiler show nothing of it.
//
// Those steps carry only the step clock's spans, no collectives, so the measure must be one that
// the other ranks' waits do not reach: a rank's data wait and forward, the step until its
// backward begins. Under DistributedDataParallel no collective blocks there (the gradients'
// all-reduce starts in the backward), so a rank with more work before its backward spends longer
// there, whichever rank is slow. On a GPU the spans are CUDA events' (StepTiming::kDeviceEvents):
// a rank slowed on its GPU alone queues its forward as fast as the others, and only the
// device's clock shows it spending longer there. The backward cannot tell the ranks apart: a
// fast rank's backward ends with the reducer's wait for the slow one, so every rank's backward
// lasts as long as the slowest's. Under FSDP a rank's forward can wait for the others'
// all-gathers; the measure then shows less of a real excess, and the check errs towards no
// finding. Torch-free.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/model/run_report.h"
#include "engine/multi_rank/rank_window.h"

namespace advisor {

// Fills the straggler's pre_backward_excess_ms, unprofiled_excess_ms and holds_unprofiled, where
// every rank has steps timed without a profiler (RankWindow::unprofiled_steps); leaves them
// absent otherwise. `straggler` is the index of its rank in `ranks`.
void CheckUnprofiled(const std::vector<RankWindow>& ranks, std::size_t straggler,
                     Straggler& result);

// The report's data-quality line for a straggler the steps outside the profiled windows do not
// confirm (holds_unprofiled false), saying why no straggler finding is raised; "" otherwise.
std::string UnconfirmedStragglerNote(const DistributedSummary& distributed);

}  // namespace advisor
