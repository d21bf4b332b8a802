// facts.run.host_allocator: how the host's malloc treats freed memory, from the environment the
// training process inherits. glibc's malloc hands large freed blocks back to the kernel, so the
// next step faults their pages in again (rule fresh-memory-pages); a preloaded jemalloc or
// tcmalloc, or glibc told to keep them, reuses them instead.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace advisor {

// The variables that decide it, as read from the environment: LD_PRELOAD, MALLOC_MMAP_MAX_,
// MALLOC_TRIM_THRESHOLD_ and GLIBC_TUNABLES, where set.
std::map<std::string, std::string> ReadHostAllocatorEnvironment();

// {"env": the variables above, "keeps_freed_memory": whether freed blocks stay for reuse}: a
// preloaded jemalloc, tcmalloc or mimalloc, or glibc with mmap off (mmap_max 0) and a trim
// threshold set, by its MALLOC_*_ variables or GLIBC_TUNABLES.
nlohmann::json HostAllocatorFacts(const std::map<std::string, std::string>& env);

}  // namespace advisor
