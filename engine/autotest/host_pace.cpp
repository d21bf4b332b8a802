#include "engine/autotest/host_pace.h"

namespace advisor {
namespace {

std::optional<SidePace> SidePaceOf(const BlocksResult& result, const std::string& candidate,
                                   bool baseline, int block_steps) {
  const std::optional<double> lead = SideHostLeadMs(result, candidate, baseline, block_steps);
  const std::optional<double> step = SideMedianStepMs(result, candidate, baseline, block_steps);
  if (!lead || !step) return std::nullopt;
  SidePace pace;
  pace.host_lead_ms = *lead;
  pace.step_ms = *step;
  pace.host_paced = *lead < kHostPacedLeadSteps * *step;
  return pace;
}

}  // namespace

std::optional<CandidatePace> CandidatePaceOf(const BlocksResult& result,
                                             const std::string& candidate, int block_steps) {
  const std::optional<SidePace> baseline =
      SidePaceOf(result, candidate, /*baseline=*/true, block_steps);
  const std::optional<SidePace> measured =
      SidePaceOf(result, candidate, /*baseline=*/false, block_steps);
  if (!baseline || !measured) return std::nullopt;
  return CandidatePace{*baseline, *measured};
}

}  // namespace advisor
