// Which clock paces a side's steps in a run of blocks on a GPU: the device's, where the host
// keeps queued work ahead of it, or the host's, where it does not and the device waits for each
// step's launches. A speedup of a host-paced candidate over a device-paced baseline is the
// device's time over the host's, so it follows the host CPU's speed while the blocks ran: on the
// seed ViT on the H200, the same DataLoader worker's batch took 97-176 ms within one device call,
// and bf16's speedup measured by hand in long runs minutes apart ranged 3.05x-3.62x
// (docs/benchmarks.md, "bf16 on a host whose speed wanders"). The report says so beside it.
#pragma once

#include <optional>
#include <string>

#include "engine/autotest/step_blocks.h"

namespace advisor {

struct SidePace {
  double host_lead_ms = 0;  // SideHostLeadMs
  double step_ms = 0;       // SideMedianStepMs
  bool host_paced = false;  // its lead is under kHostPacedLeadSteps of its step
};

// A side whose host kept less than this share of a step queued ahead of the device at its
// blocks' ends is paced by the host. On the seed on the H200 the sides fall on either side of it
// with room: device-paced 0.96-1.5 steps (baseline, TF32, deterministic-off, torch.compile),
// host-paced 0.02-0.54 (bf16, its combinations).
constexpr double kHostPacedLeadSteps = 0.75;

struct CandidatePace {
  SidePace baseline;
  SidePace candidate;

  // The speedup is the baseline device's time over the candidate host's.
  bool SpeedupFollowsHost() const { return candidate.host_paced && !baseline.host_paced; }
};

// Both sides' pace from `candidate`'s full blocks; none where a side's blocks reported no lead
// (the host timed the steps: every side is the host's) or no steps.
std::optional<CandidatePace> CandidatePaceOf(const BlocksResult& result,
                                             const std::string& candidate, int block_steps);

}  // namespace advisor
