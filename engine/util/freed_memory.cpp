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
  if (begin == nullptr) return;
  const auto address = reinterpret_cast<std::uintptr_t>(begin);
  // The bytes before the first whole page, and after the last.
  const std::size_t before_first = (kPage - address % kPage) % kPage;
  const std::size_t after_last = (address + bytes) % kPage;
  if (before_first + after_last >= bytes) return;  // no whole page inside
  // Private anonymous pages read as zeros once returned: the block stays the caller's to free.
  madvise(static_cast<char*>(begin) + before_first, bytes - before_first - after_last,
          MADV_DONTNEED);
}

}  // namespace advisor
