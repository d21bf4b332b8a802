// The GPU activity probe: what the device did during a profiled window (kernels, copies, memsets,
// synchronisations and the CUDA API calls behind them), tied to the ATen op that launched each.
//
// This header names no CUDA or CUPTI type, so the runner and the op probe include it on any build.
// A build without CUPTI gets a probe that never starts and says why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "engine/timeline/timeline.h"

namespace advisor {

class GpuActivityProbe {
 public:
  virtual ~GpuActivityProbe() = default;

  // Begins recording. False when CUPTI cannot run here (no driver, another CUPTI client attached,
  // built without CUPTI); Status() then says why. Starting a started probe does nothing.
  virtual bool Start() = 0;

  // Ends recording and collects every buffer CUPTI still holds. Synchronise the device first (the
  // runner's step end does): work still running has no end time yet and is counted as dropped.
  virtual void Stop() = 0;

  // Appends the converted records of every window since the last drain, then one
  // ProbeStatus{"cupti", ...} that counts what was lost. A probe still recording is stopped first.
  virtual void DrainInto(Timeline& out) = 0;

  virtual ProbeStatus Status() const = 0;

  // Marks the calling thread's CUDA calls, and the GPU work they launch, with an op's
  // correlation id (Timeline::CorrelationOf) until the matching PopCorrelation. Call from the op
  // probe's RecordFunction start and end callbacks, on the op's thread; both are cheap no-ops while
  // the probe is not recording. Nesting is allowed: the innermost op's id wins.
  virtual void PushCorrelation(std::uint64_t op_correlation_id) = 0;
  virtual void PopCorrelation() = 0;
};

struct GpuProbeOptions {
  // How much activity the probe may hold between Start and Stop. CUPTI asks for a buffer whenever
  // one fills; past max_buffers the request is refused and CUPTI drops (and counts) what follows.
  std::size_t buffer_bytes = std::size_t{4} << 20;
  std::size_t max_buffers = 64;  // 256 MiB at most, allocated only as CUPTI fills them

  // Kernels, memcpys, memsets and their ties to ops are always recorded. The CUDA API records
  // (one per runtime or driver call) and synchronisation records are what sync detection and the
  // allocation count read; bench/probe_overhead switches them off to measure what they cost.
  bool runtime_api = true;
  bool driver_api = true;
  bool synchronization = true;
};

// CUPTI-backed when the build found libcupti, else a probe whose Status() says
// "GPU probe absent: built without CUPTI".
std::unique_ptr<GpuActivityProbe> MakeGpuActivityProbe(const GpuProbeOptions& options = {});

}  // namespace advisor
