#include "engine/util/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace advisor {

void PrefaultForWriting(const void* begin, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  if (bytes == 0) return;
  static const auto kPage = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto first = reinterpret_cast<std::uintptr_t>(begin) & ~(kPage - 1);
  const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(begin) + bytes;
  // A kernel before 5.14 refuses it (EINVAL): the pages then fault when written.
  madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE);
#else
  (void)begin;
  (void)bytes;
#endif
}

}  // namespace advisor
