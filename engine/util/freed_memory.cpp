#include "engine/util/freed_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace advisor {

void ReturnFreedMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

void ReturnPages(void* begin, std::size_t bytes) {
  static const auto kPage = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<std::uintptr_t>(begin);
  const std::uintptr_t first = (start + kPage - 1) & ~(kPage - 1);
  const std::uintptr_t last = (start + bytes) & ~(kPage - 1);
  if (begin == nullptr || last <= first) return;
  // Private anonymous pages read as zeros once returned: the block stays the caller's to free.
  madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace advisor
