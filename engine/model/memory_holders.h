// Who holds memory live at one moment: the bytes summed by category and by module instance, and
// the holder named from them. One rule for every moment advisor names a holder at: a bisection
// window's peak (engine/analysis/window_memory) and an out-of-memory failure (the graph's saved
// tensors by instance, engine/model/out_of_memory_failure).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "engine/model/memory.h"

namespace advisor {

// MB and allocations live, by name (a category, an instance's path).
using LiveSums = std::map<std::string, std::pair<double, std::int64_t>>;

// The by_module rows a report keeps: the instances holding the most.
inline constexpr std::size_t kModulesAtPeak = 10;
// Instances holding within this share of the most hold as much: repeated blocks whose activations
// are alike to the byte, which only their names order.
inline constexpr double kTiedShare = 0.01;

// Sets `live`'s by_category and category, by_module (the kModulesAtPeak holding most), path (the
// instance holding the most) and tied_with (those within kTiedShare of it), each most first and
// among equals by name. Names with nothing live are left out.
void NameHolders(const LiveSums& categories, const LiveSums& modules, MemoryPeak& live);

}  // namespace advisor
