#include "tests/allocated_bytes.h"

#include <atomic>
#include <cstdlib>
#include <new>

// The binary's operator new and delete replaced: malloc and free, counting what new asks for.
// The nothrow forms too (std::stable_sort's buffer comes from one): left to the runtime, their
// memory reached the replaced delete, which AddressSanitizer reports as new freed with free.

namespace {
std::atomic<std::size_t> allocated{0};
}  // namespace

void* operator new(std::size_t size) {
  allocated.fetch_add(size, std::memory_order_relaxed);
  if (void* memory = std::malloc(size == 0 ? 1 : size)) return memory;
  throw std::bad_alloc();
}

void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  allocated.fetch_add(size, std::memory_order_relaxed);
  return std::malloc(size == 0 ? 1 : size);
}

void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, const std::nothrow_t&) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }

namespace advisor::testing {

std::size_t AllocatedBytes() { return allocated.load(std::memory_order_relaxed); }

}  // namespace advisor::testing
