#include "engine/trace_import/event_store.h"

#include <array>
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

}  // namespace

EventCategory CategoryFromName(std::string_view cat) {
  for (const auto& [name, category] : kCategories) {
    if (name == cat) return category;
  }
  return EventCategory::kOther;
}

const char* CategoryName(EventCategory category) {
  if (category == EventCategory::kNone) return "";
  for (const auto& [name, known] : kCategories) {
    if (known == category) return name.data();
  }
  return "other";
}

StringTable::StringTable() { Intern(""); }

std::uint32_t StringTable::Intern(std::string_view text) {
  auto it = index_.find(text);
  if (it != index_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(strings_.size());
  const std::string& stored = strings_.emplace_back(text);
  index_.emplace(std::string_view(stored), id);
  return id;
}

std::size_t TraceStore::events() const {
  std::size_t total = 0;
  for (const EventChunk& chunk : chunks) total += chunk.size();
  return total;
}

}  // namespace advisor
