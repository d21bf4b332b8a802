#include "engine/util/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace advisor {

void PrefaultForWriting(const void* begin, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  if (bytes == 0) return;
  static const auto kPage = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  // madvise takes whole pages: from the start of the first.
  const std::size_t into_page = reinterpret_cast<std::uintptr_t>(begin) & (kPage - 1);
  char* first = const_cast<char*>(static_cast<const char*>(begin)) - into_page;
  // A kernel before 5.14 refuses it (EINVAL): the pages then fault when written.
  madvise(first, into_page + bytes, MADV_POPULATE_WRITE);
#else
  (void)begin;
  (void)bytes;
#endif
}

}  // namespace advisor
