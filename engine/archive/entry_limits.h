// How large the entries of a model archive may be before anything is inflated: a 1.5 MB archive
// whose advisor/workload.json expanded to 1.5 GiB took 18 s and 3.7 GB of memory to end in
// std::bad_alloc. The zip directory says what each entry expands to; a limit refuses it first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/archive/zip_directory.h"

namespace advisor {

// The workload is a few hundred bytes of JSON; at most this much of it is read.
inline constexpr std::uint64_t kMaxWorkloadBytes = std::uint64_t{1} << 20;
// Any other entry: torch.jit.save stores entries uncompressed, and deflated code or weights
// shrink to no less than a tenth; one that expands more than this many times, to more than
// kMaxWorkloadBytes, is a zip bomb.
inline constexpr std::uint64_t kMaxExpansion = 100;

// "" when every entry is within the limits; otherwise one line naming the first entry that is
// not, e.g. `entry "m/extra/advisor/workload.json" expands to 1610612736 bytes; at most 1048576
// (1 MiB) of the workload are read`. `workload_entry` is the workload's name inside the archive
// ("advisor/workload.json"), matched at the end of the entry's name (TorchScript prefixes its
// archive name and "extra/").
std::string WhyEntriesTooLarge(const std::vector<ZipEntry>& entries,
                               const std::string& workload_entry);

}  // namespace advisor
