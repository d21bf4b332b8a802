// Turns CUPTI activity records into the timeline's plain structs: CUPTI's clock mapped onto the
// steady clock, kernel names demangled, API names without their version suffixes, and every
// kernel, copy, memset, synchronisation and API call joined to the op that launched it through
// CUPTI's external-correlation records. Needs CUPTI's headers, not its library, so tests feed it
// hand-built records on machines without a GPU.
#pragma once

#include <cupti_activity.h>

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/timeline/timeline.h"
#include "probes/cupti/cupti_clock.h"

namespace advisor {

// The ids the probe pushes: CUSTOM0, as kineto uses for its own op ids.
inline constexpr CUpti_ExternalCorrelationKind kOpCorrelationKind =
    CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;

// What one or more windows of records held and lost.
struct CuptiRecordCounts {
  std::uint64_t kernels = 0;
  std::uint64_t memcpys = 0;
  std::uint64_t memsets = 0;
  std::uint64_t syncs = 0;
  std::uint64_t api_calls = 0;
  std::uint64_t external_correlations = 0;
  std::uint64_t gpu_work_with_op = 0;   // kernels, memcpys and memsets joined to an op's id
  std::uint64_t ignored = 0;            // records of kinds not converted, or other external ids
  // Losses: every one is reported, none silently.
  std::uint64_t dropped_by_cupti = 0;   // cuptiActivityGetNumDroppedRecords: no buffer space
  std::uint64_t without_timestamps = 0; // CUPTI could not time them (incomplete at flush)
  std::uint64_t refused_buffers = 0;    // buffer requests refused at the pool's bound
  std::uint64_t unreadable_buffers = 0; // buffers whose records could not all be read

  CuptiRecordCounts& operator+=(const CuptiRecordCounts& other);
  std::uint64_t lost_records() const { return dropped_by_cupti + without_timestamps; }
};

// "cudaMemcpyAsync_ptsz_v7000" -> "cudaMemcpyAsync", "cuMemcpyHtoDAsync_v2_ptsz" ->
// "cuMemcpyHtoDAsync": the name the analysis and the user know, whichever variant ran.
std::string BaseApiName(const std::string& versioned_name);

// The converter of one recording window.
class CuptiRecordConverter {
 public:
  // CUPTI's name for a runtime or driver call (cuptiGetCallbackName in the probe), nullptr when
  // it has none.
  using ApiNameLookup = std::function<const char*(bool driver, std::uint32_t cbid)>;

  CuptiRecordConverter(const CuptiClockMap& clock, ApiNameLookup api_name);

  // Converts one record; kinds it does not know are counted in counts().ignored.
  void Consume(const CUpti_Activity& record);
  void CountDroppedByCupti(std::uint64_t records) { counts_.dropped_by_cupti += records; }
  void CountRefusedBuffers(std::uint64_t buffers) { counts_.refused_buffers += buffers; }
  void CountUnreadableBuffer() { ++counts_.unreadable_buffers; }

  // Joins every converted event to its op's id and appends them to out. Call once, after the
  // window's last record: external-correlation records may arrive after the work they describe.
  void AppendTo(Timeline& out);

  const CuptiRecordCounts& counts() const { return counts_; }

 private:
  void ConsumeKernel(const CUpti_ActivityKernel10& record);
  void ConsumeMemcpy(const CUpti_ActivityMemcpy6& record);
  void ConsumeMemset(const CUpti_ActivityMemset4& record);
  void ConsumeSync(const CUpti_ActivitySynchronization2& record);
  void ConsumeApi(const CUpti_ActivityAPI& record);
  void ConsumeExternalCorrelation(const CUpti_ActivityExternalCorrelation& record);
  // False (and counted) when CUPTI left the record untimed.
  bool HasTimes(std::uint64_t start, std::uint64_t end);
  std::uint64_t ExternalIdOf(std::uint32_t correlation_id) const;
  const std::string& KernelName(const char* mangled);
  const std::string& ApiName(bool driver, std::uint32_t cbid);

  CuptiClockMap clock_;
  ApiNameLookup api_name_lookup_;
  Timeline converted_;
  // A memcpy's runtime-API correlation id, beside its driver one, in converted_.memcpys order.
  std::vector<std::uint32_t> memcpy_runtime_correlation_;
  std::unordered_map<std::uint32_t, std::uint64_t> external_id_by_correlation_;
  std::unordered_map<const char*, std::string> kernel_names_;  // CUPTI shares one pointer a kernel
  std::unordered_map<std::uint64_t, std::string> api_names_;
  CuptiRecordCounts counts_;
};

// The probe's status line from what its windows held and lost.
ProbeStatus DescribeCuptiWindows(const CuptiRecordCounts& counts, std::size_t max_buffers,
                                 std::size_t buffer_bytes, TimeNs largest_clock_drift_ns);

}  // namespace advisor
