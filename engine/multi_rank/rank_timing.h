// How one rank's steps divide between compute and communication, from its own trace: the union
// of its collectives, the union of its compute (non-NCCL kernels, copies and memsets on a GPU;
// host ops outside communication on a CPU), and the communication that no compute overlaps.
#pragma once

#include "engine/multi_rank/rank_window.h"

namespace advisor {

struct RankTiming {
  double compute_ms = 0;       // per step
  double comm_ms = 0;          // per step
  double exposed_comm_ms = 0;  // per step
};

RankTiming TimingOf(const RankWindow& rank);

}  // namespace advisor
