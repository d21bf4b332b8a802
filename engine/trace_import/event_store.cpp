#include "engine/trace_import/event_store.h"

#include <array>
#include <cstring>
#include <utility>

namespace advisor {
namespace {

constexpr std::array<std::pair<std::string_view, EventCategory>, 16> kCategories = {{
    {"cpu_op", EventCategory::kCpuOp},
    {"user_annotation", EventCategory::kUserAnnotation},
    {"python_function", EventCategory::kPythonFunction},
    {"kernel", EventCategory::kKernel},
    {"gpu_memcpy", EventCategory::kGpuMemcpy},
    {"gpu_memset", EventCategory::kGpuMemset},
    {"cuda_runtime", EventCategory::kCudaRuntime},
    {"cuda_driver", EventCategory::kCudaDriver},
    {"cuda_sync", EventCategory::kCudaSync},
    {"gpu_user_annotation", EventCategory::kGpuUserAnnotation},
    {"cpu_instant_event", EventCategory::kInstant},
    {"memory", EventCategory::kInstant},
    {"fwdbwd", EventCategory::kFlowForwardBackward},
    {"ac2g", EventCategory::kFlowLaunch},
    // Kineto before 1.11 wrote these names.
    {"Kernel", EventCategory::kKernel},
    {"Runtime", EventCategory::kCudaRuntime},
}};

// A slot for `text` from its length and its first and last 8 bytes.
std::size_t RecentSlot(std::string_view text, std::size_t slots) {
  std::uint64_t mix = text.size();
  if (text.size() >= 8) {
    std::uint64_t head = 0;
    std::uint64_t tail = 0;
    std::memcpy(&head, text.data(), 8);
    std::memcpy(&tail, text.data() + text.size() - 8, 8);
    mix ^= head * 0x9E3779B97F4A7C15ull ^ tail * 0xC2B2AE3D27D4EB4Full;
  } else {
    for (char c : text) mix = mix * 131 + static_cast<unsigned char>(c);
  }
  return static_cast<std::size_t>((mix ^ (mix >> 32) ^ (mix >> 17)) % slots);
}

}  // namespace

EventCategory CategoryFromName(std::string_view cat) {
  for (const auto& [name, category] : kCategories) {
    if (name == cat) return category;
  }
  return EventCategory::kOther;
}

StringTable::StringTable() {
  // "" is id 0 before any lookup: the recent slots start out naming it.
  index_.emplace(std::string_view(strings_.emplace_back()), 0);
}

std::uint32_t StringTable::Intern(std::string_view text) {
  std::uint32_t& recent = recent_[RecentSlot(text, kRecentSlots)];
  if (strings_[recent] == text) return recent;
  auto it = index_.find(text);
  if (it != index_.end()) return recent = it->second;
  const auto id = static_cast<std::uint32_t>(strings_.size());
  const std::string& stored = strings_.emplace_back(text);
  index_.emplace(std::string_view(stored), id);
  return recent = id;
}

void EventChunk::DropMissingColumns() {
  pid.DropIfAllMissing();
  external_id.DropIfAllMissing();
  correlation.DropIfAllMissing();
  sequence_number.DropIfAllMissing();
  forward_thread.DropIfAllMissing();
  input_type.DropIfAllMissing();
  extra.DropIfAllMissing();
}

void EventChunk::FreeReturningPages() {
  advisor::FreeReturningPages(category);
  advisor::FreeReturningPages(phase);
  advisor::FreeReturningPages(name);
  pid.FreeReturningPages();
  advisor::FreeReturningPages(tid);
  advisor::FreeReturningPages(ts_ns);
  advisor::FreeReturningPages(dur_ns);
  external_id.FreeReturningPages();
  correlation.FreeReturningPages();
  sequence_number.FreeReturningPages();
  forward_thread.FreeReturningPages();
  input_type.FreeReturningPages();
  extra.FreeReturningPages();
  advisor::FreeReturningPages(extras);
  *this = EventChunk{};
}

std::size_t TraceStore::events() const {
  std::size_t total = 0;
  for (const EventChunk& chunk : chunks) total += chunk.size();
  return total;
}

}  // namespace advisor
