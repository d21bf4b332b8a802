// Faulting in memory about to be written, on the thread that asks.
#pragma once

#include <cstddef>

namespace advisor {

// Maps the pages of [begin, begin + bytes) for writing (MADV_POPULATE_WRITE, Linux 5.14), as a
// first write would, without writing them: where several threads fill one large array, each
// takes the page faults of its own part, which the thread that writes it first would otherwise
// take alone. Where the kernel cannot, nothing happens, and the pages fault when first written.
void PrefaultForWriting(const void* begin, std::size_t bytes);

}  // namespace advisor
