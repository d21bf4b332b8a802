#include "engine/model/out_of_memory_failure.h"

#include <cmath>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "engine/model/memory_holders.h"

namespace advisor {

std::optional<double> RequestedMbOf(const std::string& message) {
  // torch's format_size: "512 bytes", "20.00 MiB", "2.00 GiB" (1.13 to 2.x alike). Read by hand,
  // not with std::regex: the message is a probe's, of any length.
  static constexpr std::string_view kRequest = "Tried to allocate ";
  static constexpr std::pair<std::string_view, double> kUnits[] = {{"bytes", 1.0 / 1048576},
                                                                   {"KiB", 1.0 / 1024},
                                                                   {"MiB", 1.0},
                                                                   {"GiB", 1024.0},
                                                                   {"TiB", 1048576.0}};
  const std::size_t at = message.find(kRequest);
  if (at == std::string::npos) return std::nullopt;
  const char* number = message.c_str() + at + kRequest.size();
  if (*number < '0' || *number > '9') return std::nullopt;
  char* end = nullptr;
  const double amount = std::strtod(number, &end);
  std::string_view rest(end);
  if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  for (const auto& [unit, mb] : kUnits) {
    if (rest.substr(0, unit.size()) == unit && std::isfinite(amount * mb)) return amount * mb;
  }
  return std::nullopt;
}

std::optional<MemoryPeak> LiveAtFailure(const OutOfMemoryFailure& failure,
                                        const std::optional<TrainingState>& training_state) {
  LiveSums categories;
  LiveSums modules;
  for (const MemoryShare& kept : failure.kept_for_backward) {
    auto& activations = categories["activations"];
    activations.first += kept.mb;
    activations.second += kept.allocations;
    if (!kept.name.empty()) modules[kept.name] = {kept.mb, kept.allocations};
  }
  if (training_state) {
    categories["parameters"].first += training_state->parameter_mb;
    categories["gradients"].first += training_state->gradient_mb;
    categories["optimizer_state"].first += training_state->optimizer_state_mb;
  }
  double known = 0;
  for (const auto& [name, sum] : categories) known += sum.first;
  if (known <= 0) return std::nullopt;
  MemoryPeak live;
  live.phase = failure.phase;
  live.mb = known;
  if (failure.allocator && failure.allocator->allocated_mb > known) {
    // The batch, outputs and temporaries the stack still held, and what no category counts.
    categories["other"].first = failure.allocator->allocated_mb - known;
    live.mb = failure.allocator->allocated_mb;
  }
  NameHolders(categories, modules, live);
  return live;
}

}  // namespace advisor
