// Handing memory the process has freed, or is about to free, back to the system.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

namespace advisor {

// Small blocks freed into malloc's heap stay resident until malloc needs them again, and a large
// array is mapped afresh rather than taken from there: a process that frees gigabytes of small
// blocks and then builds large arrays would hold both. This returns the freed heap's pages (with
// glibc; elsewhere it does nothing). It walks every free block of every arena (one a thread that
// allocates), each under its arena's lock: where one block is known, ReturnPages returns it alone.
void ReturnFreedMemory();

// Hands back to the system, now, the pages that lie wholly inside [begin, begin + bytes): memory
// the caller holds and is about to free, whose contents it no longer needs (they read as zeros
// after; malloc's own fields around a block lie outside it). Nothing where the system cannot.
void ReturnPages(void* begin, std::size_t bytes);

// Frees `values`' storage, its pages handed back to the system first (ReturnPages).
template <typename T>
void FreeReturningPages(std::vector<T>& values) {
  static_assert(std::is_trivially_destructible_v<T>, "its elements are never destroyed");
  ReturnPages(values.data(), values.capacity() * sizeof(T));
  std::vector<T>().swap(values);
}

}  // namespace advisor
