// ReturnPages hands back exactly the whole pages inside the bytes it is given: they read as zeros
// after, and the bytes around them, which may be another block's or malloc's own, keep theirs.
#include "engine/util/freed_memory.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <vector>

namespace advisor {
namespace {

TEST(ReturnPages, ZeroesTheWholePagesInsideAndKeepsTheBytesAround) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  constexpr std::size_t kPages = 5;
  void* mapped =
      mmap(nullptr, kPages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  auto* bytes = static_cast<unsigned char*>(mapped);
  std::memset(bytes, 0xab, kPages * page);

  // From 100 bytes into page 0 to 100 bytes into page 4: pages 1 to 3 lie wholly inside.
  ReturnPages(bytes + 100, 4 * page);

  for (std::size_t i = 0; i < kPages * page; ++i) {
    const bool whole_page_inside = i >= page && i < 4 * page;
    ASSERT_EQ(bytes[i], whole_page_inside ? 0 : 0xab) << "byte " << i;
  }
  // Less than a page, or none at all: nothing is returned.
  std::memset(bytes, 0xab, kPages * page);
  ReturnPages(bytes + 1, page);
  ReturnPages(nullptr, 0);
  for (std::size_t i = 0; i < kPages * page; ++i) ASSERT_EQ(bytes[i], 0xab) << "byte " << i;
  munmap(mapped, kPages * page);
}

TEST(FreeReturningPages, LetsTheVectorsStorageGo) {
  std::vector<double> values(1 << 20, 1.5);
  FreeReturningPages(values);
  EXPECT_TRUE(values.empty());
  EXPECT_EQ(values.capacity(), 0u);
  values.assign(3, 2.0);  // usable again
  EXPECT_EQ(values, (std::vector<double>{2.0, 2.0, 2.0}));
}

}  // namespace
}  // namespace advisor
