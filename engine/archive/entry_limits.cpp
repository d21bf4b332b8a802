#include "engine/archive/entry_limits.h"

namespace advisor {
namespace {

bool EndsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string WhyEntriesTooLarge(const std::vector<ZipEntry>& entries,
                               const std::string& workload_entry) {
  for (const ZipEntry& entry : entries) {
    const std::string named = "entry \"" + entry.name + "\" expands to " +
                              std::to_string(entry.uncompressed) + " bytes";
    const bool workload = EndsWith(entry.name, "/extra/" + workload_entry);
    if (workload && entry.uncompressed > kMaxWorkloadBytes) {
      return named + "; at most " + std::to_string(kMaxWorkloadBytes) +
             " (1 MiB) of the workload are read";
    }
    if (entry.uncompressed > kMaxWorkloadBytes &&
        entry.uncompressed / kMaxExpansion > entry.compressed) {
      return named + " from " + std::to_string(entry.compressed) + ", more than " +
             std::to_string(kMaxExpansion) + " times its size in the archive (a zip bomb?)";
    }
  }
  return "";
}

}  // namespace advisor
