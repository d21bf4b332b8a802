// The CUPTI-backed GPU probe: one activity-API session per recording window.
//
// CUPTI's buffer callbacks carry no user pointer, so the recording probe is a process-wide
// pointer, and only one probe records at a time. Records stay in their buffers until Stop, which
// converts them with both clock readings of the window in hand; DrainInto then only moves events.
#include <cupti.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "probes/cupti/activity_buffer_pool.h"
#include "probes/cupti/cupti_clock.h"
#include "probes/cupti/cupti_records.h"
#include "probes/cupti/gpu_probe.h"

namespace advisor {
namespace {

struct RecordedKind {
  CUpti_ActivityKind kind;
  const char* name;
  bool required;  // without it the probe's findings would be wrong, not merely thinner
};

// CONCURRENT_KERNEL, not KERNEL: the latter serialises kernels and would change what is measured.
std::vector<RecordedKind> KindsToRecord(const GpuProbeOptions& options) {
  std::vector<RecordedKind> kinds = {
      {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "kernels", true},
      {CUPTI_ACTIVITY_KIND_MEMCPY, "memcpys", true},
      {CUPTI_ACTIVITY_KIND_MEMSET, "memsets", false},
      {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "external correlation", true},
  };
  if (options.synchronization) {
    kinds.push_back({CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "synchronisations", false});
  }
  if (options.runtime_api) kinds.push_back({CUPTI_ACTIVITY_KIND_RUNTIME, "runtime API", true});
  if (options.driver_api) kinds.push_back({CUPTI_ACTIVITY_KIND_DRIVER, "driver API", false});
  return kinds;
}

// Readings of both clocks taken back to back; the tightest of a few wins.
constexpr int kClockReadings = 5;

// CUPTI's API version in CUDA 12.6, the first whose detach (cuptiFinalize) and re-attach are safe
// beside CUDA graphs (kineto detaches from 12.6 on by default). From 13.0 the versions read
// xxyyzz (130001), still larger.
constexpr std::uint32_t kFirstCuptiSafeToDetach = 24;

std::string CuptiError(CUptiResult result) {
  const char* text = nullptr;
  cuptiGetResultString(result, &text);
  return text != nullptr ? text : "CUPTI error " + std::to_string(static_cast<int>(result));
}

TimeNs SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ClockPair ReadBothClocks() {
  ClockPair best;
  best.uncertainty_ns = -1;
  for (int i = 0; i < kClockReadings; ++i) {
    const TimeNs before = SteadyNowNs();
    std::uint64_t cupti_ns = 0;
    if (cuptiGetTimestamp(&cupti_ns) != CUPTI_SUCCESS) continue;
    const TimeNs after = SteadyNowNs();
    if (best.uncertainty_ns < 0 || after - before < best.uncertainty_ns) {
      best = ClockPair{cupti_ns, before + (after - before) / 2, after - before};
    }
  }
  return best;
}

const char* CuptiApiName(bool driver, std::uint32_t cbid) {
  const char* name = nullptr;
  const CUpti_CallbackDomain domain =
      driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
  return cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS ? name : nullptr;
}

// Why CUPTI could not initialise, in words a user can act on.
std::string ExplainSubscribeFailure(CUptiResult result) {
  if (result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
    return "another CUPTI client is attached (Nsight Systems or Compute, cuda-gdb, "
           "compute-sanitizer, or a running torch.profiler)";
  }
  // CUPTI reports a missing driver as an unknown error: look for the driver to say so.
  if (void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
    dlclose(driver);
    return "CUPTI could not initialise: cuptiSubscribe returned " + CuptiError(result);
  }
  const char* why = dlerror();
  return std::string("no CUDA driver: libcuda.so.1 cannot be loaded (") +
         (why != nullptr ? why : "unknown reason") + ")";
}

// The subscription only claims CUPTI against other clients; it enables no callback.
void CUPTIAPI IgnoreCallback(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void*) {}

class CuptiGpuProbe;

// The probe whose window is open; CUPTI's buffer callbacks reach it through this.
std::mutex g_recording_mutex;
CuptiGpuProbe* g_recording_probe = nullptr;

// Per thread: one entry per PushCorrelation, true where CUPTI got the id, so that each Pop
// undoes exactly its own Push even across window boundaries.
thread_local std::vector<bool> t_pushed;

class CuptiGpuProbe final : public GpuActivityProbe {
 public:
  explicit CuptiGpuProbe(const GpuProbeOptions& options)
      : kinds_(KindsToRecord(options)), buffers_(options.buffer_bytes, options.max_buffers) {}

  ~CuptiGpuProbe() override { Stop(); }

  bool Start() override;
  void Stop() override;
  void DrainInto(Timeline& out) override;
  ProbeStatus Status() const override;

  void PushCorrelation(std::uint64_t op_correlation_id) override {
    const bool pushed = recording_.load(std::memory_order_relaxed) &&
                        cuptiActivityPushExternalCorrelationId(kOpCorrelationKind,
                                                               op_correlation_id) == CUPTI_SUCCESS;
    t_pushed.push_back(pushed);
  }

  void PopCorrelation() override {
    if (t_pushed.empty()) return;  // no Push on this thread to undo
    const bool pushed = t_pushed.back();
    t_pushed.pop_back();
    if (pushed) cuptiActivityPopExternalCorrelationId(kOpCorrelationKind, nullptr);
  }

  // CUPTI's buffer callbacks, run on CUPTI's threads or the application's.
  static void CUPTIAPI OnBufferRequested(std::uint8_t** buffer, std::size_t* size,
                                         std::size_t* max_records);
  static void CUPTIAPI OnBufferCompleted(CUcontext context, std::uint32_t stream_id,
                                         std::uint8_t* buffer, std::size_t size,
                                         std::size_t valid_size);

 private:
  std::string OpenWindow();  // "" on success, else why not
  void CloseWindow();
  void ConvertWindow(const ClockPair& at_stop);
  ProbeStatus StatusLocked() const;

  const std::vector<RecordedKind> kinds_;
  ActivityBufferPool buffers_;
  std::atomic<bool> recording_{false};
  std::atomic<std::uint64_t> dropped_in_window_{0};

  mutable std::mutex mutex_;  // everything below
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::vector<CUpti_ActivityKind> enabled_kinds_;
  std::string kinds_missing_;  // optional kinds CUPTI refused, with its reasons
  ClockPair clock_at_start_;
  std::uint64_t refused_before_window_ = 0;
  std::uint32_t cupti_version_ = 0;
  std::string unavailable_;    // why the last Start failed
  bool started_once_ = false;
  int windows_ = 0;            // closed since the last drain
  Timeline pending_;           // their converted events
  CuptiRecordCounts counts_;
  TimeNs largest_drift_ns_ = 0;
};

void CuptiGpuProbe::OnBufferRequested(std::uint8_t** buffer, std::size_t* size,
                                      std::size_t* max_records) {
  std::lock_guard<std::mutex> lock(g_recording_mutex);
  *max_records = 0;  // as many as fit
  *buffer = g_recording_probe != nullptr ? g_recording_probe->buffers_.Lend() : nullptr;
  *size = *buffer != nullptr ? g_recording_probe->buffers_.buffer_bytes() : 0;
}

void CuptiGpuProbe::OnBufferCompleted(CUcontext context, std::uint32_t stream_id,
                                      std::uint8_t* buffer, std::size_t, std::size_t valid_size) {
  // Asked before taking the lock: no CUPTI call is made while holding it, so a CUPTI-internal
  // lock held by a thread waiting in OnBufferRequested cannot deadlock with this one.
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) != CUPTI_SUCCESS) dropped = 0;
  std::lock_guard<std::mutex> lock(g_recording_mutex);
  if (g_recording_probe == nullptr) return;  // lent by a probe gone since: it leaked the buffer
  g_recording_probe->buffers_.Return(buffer, valid_size);
  g_recording_probe->dropped_in_window_ += dropped;
}

bool CuptiGpuProbe::Start() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (recording_) return true;
  unavailable_ = OpenWindow();
  if (!unavailable_.empty()) return false;
  started_once_ = true;
  recording_ = true;
  return true;
}

std::string CuptiGpuProbe::OpenWindow() {
  if (cuptiGetVersion(&cupti_version_) == CUPTI_SUCCESS &&
      cupti_version_ / 100 < CUPTI_API_VERSION / 100) {
    return "CUPTI library version " + std::to_string(cupti_version_) +
           " is older than the headers advisor was built with (" +
           std::to_string(CUPTI_API_VERSION) + "): its records would be misread";
  }
  {
    std::lock_guard<std::mutex> lock(g_recording_mutex);
    if (g_recording_probe != nullptr) return "another advisor GPU probe is recording";
    g_recording_probe = this;
  }
  const auto give_up = [this](const std::string& why) {
    for (CUpti_ActivityKind kind : enabled_kinds_) cuptiActivityDisable(kind);
    enabled_kinds_.clear();
    if (subscriber_ != nullptr) cuptiUnsubscribe(subscriber_);
    subscriber_ = nullptr;
    std::lock_guard<std::mutex> lock(g_recording_mutex);
    g_recording_probe = nullptr;
    return why;
  };

  const CUptiResult subscribed = cuptiSubscribe(&subscriber_, IgnoreCallback, nullptr);
  if (subscribed != CUPTI_SUCCESS) {
    subscriber_ = nullptr;
    return give_up(ExplainSubscribeFailure(subscribed));
  }
  // Kernel-level thread ids (gettid) rather than pthread_self values, to match other tools.
  cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  const CUptiResult registered =
      cuptiActivityRegisterCallbacks(OnBufferRequested, OnBufferCompleted);
  if (registered != CUPTI_SUCCESS) {
    return give_up("cuptiActivityRegisterCallbacks failed: " + CuptiError(registered));
  }
  kinds_missing_.clear();
  for (const RecordedKind& recorded : kinds_) {
    const CUptiResult enabled = cuptiActivityEnable(recorded.kind);
    if (enabled == CUPTI_SUCCESS) {
      enabled_kinds_.push_back(recorded.kind);
    } else if (recorded.required) {
      return give_up(std::string("CUPTI cannot record ") + recorded.name + ": " +
                     CuptiError(enabled));
    } else {
      kinds_missing_ +=
          std::string("; not recorded: ") + recorded.name + " (" + CuptiError(enabled) + ")";
    }
  }
  dropped_in_window_ = 0;
  refused_before_window_ = buffers_.refused();
  clock_at_start_ = ReadBothClocks();
  return "";
}

void CuptiGpuProbe::Stop() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!recording_) return;
  recording_ = false;  // ops starting from here push no id
  const ClockPair at_stop = ReadBothClocks();
  CloseWindow();
  ConvertWindow(at_stop);
}

void CuptiGpuProbe::CloseWindow() {
  for (CUpti_ActivityKind kind : enabled_kinds_) cuptiActivityDisable(kind);
  enabled_kinds_.clear();
  // Forced: also hands back buffers holding records of work that has not finished.
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  std::size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS) {
    dropped_in_window_ += dropped;
  }
  {
    std::lock_guard<std::mutex> lock(g_recording_mutex);
    g_recording_probe = nullptr;
  }
  cuptiUnsubscribe(subscriber_);
  subscriber_ = nullptr;
  // Detach CUPTI until the next window: attached, it slows every later CUDA call of the process,
  // recorded or not (torch.profiler's runs stayed 10-20 % slower after profiling until kineto
  // called cuptiFinalize, pytorch#146604; a launch-bound script's later windows ran about 2x its
  // step here). Its records are flushed above and the window ended on a device synchronisation.
  // Before CUDA 12.6 re-attaching could crash a process that replays CUDA graphs, so older
  // CUPTIs stay attached.
  if (cupti_version_ >= kFirstCuptiSafeToDetach) cuptiFinalize();
}

void CuptiGpuProbe::ConvertWindow(const ClockPair& at_stop) {
  const CuptiClockMap clock(clock_at_start_, at_stop);
  CuptiRecordConverter converter(clock, CuptiApiName);
  buffers_.ReadReturned([&converter](std::uint8_t* data, std::size_t valid_bytes) {
    CUpti_Activity* record = nullptr;
    for (;;) {
      const CUptiResult next = cuptiActivityGetNextRecord(data, valid_bytes, &record);
      if (next == CUPTI_SUCCESS) {
        converter.Consume(*record);
        continue;
      }
      if (next != CUPTI_ERROR_MAX_LIMIT_REACHED) converter.CountUnreadableBuffer();
      break;
    }
  });
  converter.CountDroppedByCupti(dropped_in_window_.exchange(0));
  converter.CountRefusedBuffers(buffers_.refused() - refused_before_window_);
  converter.AppendTo(pending_);
  counts_ += converter.counts();
  largest_drift_ns_ = std::max(largest_drift_ns_, std::abs(clock.drift_ns()));
  ++windows_;
}

void CuptiGpuProbe::DrainInto(Timeline& out) {
  Stop();
  std::lock_guard<std::mutex> lock(mutex_);
  const auto move_all = [](auto& from, auto& to) {
    to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
    from.clear();
  };
  move_all(pending_.kernels, out.kernels);
  move_all(pending_.memcpys, out.memcpys);
  move_all(pending_.memsets, out.memsets);
  move_all(pending_.syncs, out.syncs);
  move_all(pending_.api_calls, out.api_calls);
  out.probes.push_back(StatusLocked());
  windows_ = 0;
  counts_ = CuptiRecordCounts{};
  largest_drift_ns_ = 0;
}

ProbeStatus CuptiGpuProbe::Status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return StatusLocked();
}

ProbeStatus CuptiGpuProbe::StatusLocked() const {
  if (!unavailable_.empty() && windows_ == 0) return ProbeStatus{"cupti", false, unavailable_, 0};
  if (!started_once_) return ProbeStatus{"cupti", false, "GPU probe not started", 0};
  if (recording_) return ProbeStatus{"cupti", true, "recording" + kinds_missing_, 0};
  ProbeStatus status = DescribeCuptiWindows(counts_, buffers_.max_buffers(),
                                            buffers_.buffer_bytes(), largest_drift_ns_);
  status.detail = "CUPTI " + std::to_string(cupti_version_) + ", " + std::to_string(windows_) +
                  " window(s): " + status.detail + kinds_missing_;
  if (!unavailable_.empty()) status.detail += "; a later window could not start: " + unavailable_;
  return status;
}

}  // namespace

std::unique_ptr<GpuActivityProbe> MakeGpuActivityProbe(const GpuProbeOptions& options) {
  return std::make_unique<CuptiGpuProbe>(options);
}

}  // namespace advisor
