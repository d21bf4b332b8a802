// The probe of a build without CUPTI: it never records and says so in every status.
#include "probes/cupti/gpu_probe.h"

namespace advisor {
namespace {

class AbsentGpuProbe final : public GpuActivityProbe {
 public:
  bool Start() override { return false; }
  void Stop() override {}
  void DrainInto(Timeline& out) override { out.probes.push_back(Status()); }
  ProbeStatus Status() const override {
    return ProbeStatus{"cupti", false, "GPU probe absent: built without CUPTI", 0};
  }
  void PushCorrelation(std::uint64_t) override {}
  void PopCorrelation() override {}
};

}  // namespace

std::unique_ptr<GpuActivityProbe> MakeGpuActivityProbe(const GpuProbeOptions&) {
  return std::make_unique<AbsentGpuProbe>();
}

}  // namespace advisor
