#include "probes/cupti/activity_buffer_pool.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace advisor {
namespace {

std::vector<std::pair<std::uint8_t*, std::size_t>> ReadAll(ActivityBufferPool& pool) {
  std::vector<std::pair<std::uint8_t*, std::size_t>> read;
  pool.ReadReturned(
      [&read](std::uint8_t* data, std::size_t valid) { read.emplace_back(data, valid); });
  return read;
}

TEST(ActivityBufferPool, LendsUpToItsBoundThenRefusesAndCounts) {
  ActivityBufferPool pool(1024, 2);
  std::uint8_t* first = pool.Lend();
  std::uint8_t* second = pool.Lend();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_NE(first, second);
  EXPECT_EQ(pool.Lend(), nullptr);
  EXPECT_EQ(pool.Lend(), nullptr);
  EXPECT_EQ(pool.refused(), 2u);
  EXPECT_EQ(pool.lent(), 2u);
}

TEST(ActivityBufferPool, BuffersAreAlignedForCuptiRecords) {
  ActivityBufferPool pool(4096, 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(pool.Lend()) % 8, 0u);
  }
}

TEST(ActivityBufferPool, ReturnedBuffersCountAgainstTheBoundUntilRead) {
  ActivityBufferPool pool(1024, 1);
  std::uint8_t* buffer = pool.Lend();
  ASSERT_TRUE(pool.Return(buffer, 100));
  EXPECT_EQ(pool.lent(), 0u);
  EXPECT_EQ(pool.Lend(), nullptr) << "a full buffer waiting to be read still holds memory";

  const auto read = ReadAll(pool);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].first, buffer);
  EXPECT_EQ(read[0].second, 100u);
  EXPECT_NE(pool.Lend(), nullptr) << "reading frees the buffer";
  EXPECT_TRUE(ReadAll(pool).empty()) << "each buffer is read once";
}

TEST(ActivityBufferPool, ReadsBuffersInTheOrderTheyCameBack) {
  ActivityBufferPool pool(256, 3);
  std::uint8_t* a = pool.Lend();
  std::uint8_t* b = pool.Lend();
  std::uint8_t* c = pool.Lend();
  pool.Return(b, 2);
  pool.Return(c, 3);
  pool.Return(a, 1);
  const auto read = ReadAll(pool);
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[0].first, b);
  EXPECT_EQ(read[1].first, c);
  EXPECT_EQ(read[2].first, a);
}

TEST(ActivityBufferPool, LeavesAloneABufferItDidNotLend) {
  ActivityBufferPool pool(256, 1);
  std::uint8_t foreign[256];
  EXPECT_FALSE(pool.Return(foreign, 10));
  EXPECT_TRUE(ReadAll(pool).empty());
  EXPECT_NE(pool.Lend(), nullptr);
}

}  // namespace
}  // namespace advisor
