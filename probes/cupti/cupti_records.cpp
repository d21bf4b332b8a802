#include "probes/cupti/cupti_records.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <sstream>

namespace advisor {
namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Strips one trailing "_v<digits>"; false when there is none.
bool StripVersionSuffix(std::string& name) {
  const std::size_t mark = name.rfind("_v");
  if (mark == std::string::npos || mark + 2 == name.size()) return false;
  for (std::size_t i = mark + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
  }
  name.erase(mark);
  return true;
}

// Per-thread default-stream variants of a call: the same call for the analysis.
bool StripStreamSuffix(std::string& name) {
  for (const char* suffix : {"_ptsz", "_ptds"}) {
    if (EndsWith(name, suffix)) {
      name.erase(name.size() - std::char_traits<char>::length(suffix));
      return true;
    }
  }
  return false;
}

std::string Demangle(const char* mangled) {
  if (mangled == nullptr) return "<unnamed kernel>";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  return status == 0 && demangled ? std::string(demangled.get()) : std::string(mangled);
}

MemcpyKind ToMemcpyKind(std::uint8_t copy_kind) {
  switch (copy_kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
      return MemcpyKind::kHostToDevice;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
      return MemcpyKind::kDeviceToHost;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
      return MemcpyKind::kDeviceToDevice;
    default:  // host to host, peer to peer across devices, unknown
      return MemcpyKind::kOther;
  }
}

SyncKind ToSyncKind(CUpti_ActivitySynchronizationType type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return SyncKind::kEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return SyncKind::kStreamWaitEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return SyncKind::kStream;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return SyncKind::kContext;
    default: return SyncKind::kOther;
  }
}

template <typename Event>
void JoinAll(std::vector<Event>& events, const std::function<std::uint64_t(std::uint32_t)>& join) {
  for (Event& event : events) event.external_id = join(event.correlation_id);
}

template <typename Event>
void AppendAll(std::vector<Event>& from, std::vector<Event>& to) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  from.clear();
}

std::string ByteSize(std::size_t bytes) {
  if (bytes >= (std::size_t{1} << 20) && bytes % (std::size_t{1} << 20) == 0) {
    return std::to_string(bytes >> 20) + " MiB";
  }
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

CuptiRecordCounts& CuptiRecordCounts::operator+=(const CuptiRecordCounts& other) {
  kernels += other.kernels;
  memcpys += other.memcpys;
  memsets += other.memsets;
  syncs += other.syncs;
  api_calls += other.api_calls;
  external_correlations += other.external_correlations;
  gpu_work_with_op += other.gpu_work_with_op;
  ignored += other.ignored;
  dropped_by_cupti += other.dropped_by_cupti;
  without_timestamps += other.without_timestamps;
  refused_buffers += other.refused_buffers;
  unreadable_buffers += other.unreadable_buffers;
  return *this;
}

std::string BaseApiName(const std::string& versioned_name) {
  std::string name = versioned_name;
  while (StripVersionSuffix(name) || StripStreamSuffix(name)) {
  }
  return name;
}

CuptiRecordConverter::CuptiRecordConverter(const CuptiClockMap& clock, ApiNameLookup api_name)
    : clock_(clock), api_name_lookup_(std::move(api_name)) {}

void CuptiRecordConverter::Consume(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      ConsumeKernel(reinterpret_cast<const CUpti_ActivityKernel10&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      ConsumeMemcpy(reinterpret_cast<const CUpti_ActivityMemcpy6&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      ConsumeMemset(reinterpret_cast<const CUpti_ActivityMemset4&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      ConsumeSync(reinterpret_cast<const CUpti_ActivitySynchronization2&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      ConsumeApi(reinterpret_cast<const CUpti_ActivityAPI&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
      ConsumeExternalCorrelation(
          reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record));
      break;
    default:
      ++counts_.ignored;
      break;
  }
}

bool CuptiRecordConverter::HasTimes(std::uint64_t start, std::uint64_t end) {
  if (start != 0 && end >= start) return true;
  ++counts_.without_timestamps;
  return false;
}

void CuptiRecordConverter::ConsumeKernel(const CUpti_ActivityKernel10& record) {
  if (!HasTimes(record.start, record.end)) return;
  KernelEvent kernel;
  kernel.name = KernelName(record.name);
  kernel.device = record.deviceId;
  kernel.stream = record.streamId;
  kernel.start_ns = clock_.ToSteady(record.start);
  kernel.end_ns = clock_.ToSteady(record.end);
  kernel.grid[0] = record.gridX;
  kernel.grid[1] = record.gridY;
  kernel.grid[2] = record.gridZ;
  kernel.block[0] = record.blockX;
  kernel.block[1] = record.blockY;
  kernel.block[2] = record.blockZ;
  kernel.registers_per_thread = record.registersPerThread;
  kernel.static_shared_bytes = record.staticSharedMemory;
  kernel.dynamic_shared_bytes = record.dynamicSharedMemory;
  kernel.correlation_id = record.correlationId;
  converted_.kernels.push_back(std::move(kernel));
  ++counts_.kernels;
}

void CuptiRecordConverter::ConsumeMemcpy(const CUpti_ActivityMemcpy6& record) {
  if (!HasTimes(record.start, record.end)) return;
  MemcpyEvent copy;
  copy.kind = ToMemcpyKind(record.copyKind);
  copy.bytes = record.bytes;
  copy.pageable_host = record.srcKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE ||
                       record.dstKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  copy.device = record.deviceId;
  copy.stream = record.streamId;
  copy.start_ns = clock_.ToSteady(record.start);
  copy.end_ns = clock_.ToSteady(record.end);
  copy.correlation_id = record.correlationId;
  converted_.memcpys.push_back(copy);
  memcpy_runtime_correlation_.push_back(record.runtimeCorrelationId);
  ++counts_.memcpys;
}

void CuptiRecordConverter::ConsumeMemset(const CUpti_ActivityMemset4& record) {
  if (!HasTimes(record.start, record.end)) return;
  MemsetEvent memset;
  memset.bytes = record.bytes;
  memset.device = record.deviceId;
  memset.stream = record.streamId;
  memset.start_ns = clock_.ToSteady(record.start);
  memset.end_ns = clock_.ToSteady(record.end);
  memset.correlation_id = record.correlationId;
  converted_.memsets.push_back(memset);
  ++counts_.memsets;
}

void CuptiRecordConverter::ConsumeSync(const CUpti_ActivitySynchronization2& record) {
  if (!HasTimes(record.start, record.end)) return;
  SyncEvent sync;
  sync.kind = ToSyncKind(record.type);
  // Not applicable (context and event synchronisation) reads as stream 0.
  sync.stream = record.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? 0 : record.streamId;
  sync.start_ns = clock_.ToSteady(record.start);
  sync.end_ns = clock_.ToSteady(record.end);
  sync.correlation_id = record.correlationId;
  converted_.syncs.push_back(sync);
  ++counts_.syncs;
}

void CuptiRecordConverter::ConsumeApi(const CUpti_ActivityAPI& record) {
  if (!HasTimes(record.start, record.end)) return;
  ApiCallEvent call;
  call.driver = record.kind == CUPTI_ACTIVITY_KIND_DRIVER;
  call.name = ApiName(call.driver, record.cbid);
  call.thread = record.threadId;
  call.start_ns = clock_.ToSteady(record.start);
  call.end_ns = clock_.ToSteady(record.end);
  call.correlation_id = record.correlationId;
  converted_.api_calls.push_back(std::move(call));
  ++counts_.api_calls;
}

void CuptiRecordConverter::ConsumeExternalCorrelation(
    const CUpti_ActivityExternalCorrelation& record) {
  if (record.externalKind != kOpCorrelationKind) {
    ++counts_.ignored;  // another tool's ids (kineto's user annotations use CUSTOM1)
    return;
  }
  external_id_by_correlation_[record.correlationId] = record.externalId;
  ++counts_.external_correlations;
}

std::uint64_t CuptiRecordConverter::ExternalIdOf(std::uint32_t correlation_id) const {
  auto it = external_id_by_correlation_.find(correlation_id);
  return it == external_id_by_correlation_.end() ? 0 : it->second;
}

const std::string& CuptiRecordConverter::KernelName(const char* mangled) {
  auto it = kernel_names_.find(mangled);
  if (it == kernel_names_.end()) it = kernel_names_.emplace(mangled, Demangle(mangled)).first;
  return it->second;
}

const std::string& CuptiRecordConverter::ApiName(bool driver, std::uint32_t cbid) {
  const std::uint64_t key = (std::uint64_t{driver} << 32) | cbid;
  auto it = api_names_.find(key);
  if (it == api_names_.end()) {
    const char* versioned = api_name_lookup_ ? api_name_lookup_(driver, cbid) : nullptr;
    std::string name = versioned != nullptr
                           ? BaseApiName(versioned)
                           : std::string(driver ? "driver call " : "runtime call ") +
                                 std::to_string(cbid);
    it = api_names_.emplace(key, std::move(name)).first;
  }
  return it->second;
}

void CuptiRecordConverter::AppendTo(Timeline& out) {
  const auto join = [this](std::uint32_t correlation_id) { return ExternalIdOf(correlation_id); };
  JoinAll(converted_.kernels, join);
  JoinAll(converted_.memsets, join);
  JoinAll(converted_.syncs, join);
  JoinAll(converted_.api_calls, join);
  // A copy carries the driver call's id and the runtime call's; either may be the one the
  // external-correlation record names.
  for (std::size_t i = 0; i < converted_.memcpys.size(); ++i) {
    MemcpyEvent& copy = converted_.memcpys[i];
    copy.external_id = ExternalIdOf(copy.correlation_id);
    if (copy.external_id == 0) copy.external_id = ExternalIdOf(memcpy_runtime_correlation_[i]);
  }
  for (const auto& kernel : converted_.kernels) counts_.gpu_work_with_op += kernel.external_id != 0;
  for (const auto& copy : converted_.memcpys) counts_.gpu_work_with_op += copy.external_id != 0;
  for (const auto& memset : converted_.memsets) counts_.gpu_work_with_op += memset.external_id != 0;

  AppendAll(converted_.kernels, out.kernels);
  AppendAll(converted_.memcpys, out.memcpys);
  AppendAll(converted_.memsets, out.memsets);
  AppendAll(converted_.syncs, out.syncs);
  AppendAll(converted_.api_calls, out.api_calls);
  memcpy_runtime_correlation_.clear();
}

ProbeStatus DescribeCuptiWindows(const CuptiRecordCounts& counts, std::size_t max_buffers,
                                 std::size_t buffer_bytes, TimeNs largest_clock_drift_ns) {
  ProbeStatus status;
  status.probe = "cupti";
  status.active = true;
  status.dropped_records = counts.lost_records();

  const std::uint64_t gpu_work = counts.kernels + counts.memcpys + counts.memsets;
  std::ostringstream detail;
  detail << counts.kernels << " kernels, " << counts.memcpys << " memcpys, " << counts.memsets
         << " memsets (" << counts.gpu_work_with_op << " of " << gpu_work << " tied to an op), "
         << counts.syncs << " synchronisations, " << counts.api_calls << " API calls; "
         << counts.lost_records() << " records dropped";
  if (counts.dropped_by_cupti > 0) {
    detail << "; " << counts.dropped_by_cupti << " dropped by CUPTI for lack of buffer space";
  }
  if (counts.refused_buffers > 0) {
    detail << "; " << counts.refused_buffers << " buffer requests refused at the bound of "
           << max_buffers << " x " << ByteSize(buffer_bytes);
  }
  if (counts.without_timestamps > 0) {
    detail << "; " << counts.without_timestamps << " untimed (work unfinished at the flush)";
  }
  if (counts.unreadable_buffers > 0) {
    detail << "; " << counts.unreadable_buffers
           << " buffers cut short by a malformed record (their remaining records are lost, count "
              "unknown)";
  }
  if (counts.ignored > 0) detail << "; " << counts.ignored << " records of other kinds ignored";
  detail << "; CUPTI clock drift " << largest_clock_drift_ns << " ns";
  status.detail = detail.str();
  return status;
}

}  // namespace advisor
