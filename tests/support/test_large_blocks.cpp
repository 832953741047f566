#include "support/large_blocks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace perfcast {
namespace {

TEST(LargeBlocks, SmallBlocksAreLineAligned) {
  void* p = allocate_large(1000);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % 64, 0u);
  static_cast<char*>(p)[999] = 1;
  free_large(p, 1000);
}

TEST(LargeBlocks, BigBlocksStartOnAHugePageAndAreUsableToTheEnd) {
  std::size_t bytes = 3 * kHugePageBytes + 12345;
  auto* p = static_cast<char*>(allocate_large(bytes));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kHugePageBytes, 0u) << "a huge page backs only an aligned 2 MiB";
  advise_huge_pages(p, bytes);
  p[0] = 1;
  p[bytes - 1] = 2;
  EXPECT_EQ(p[0] + p[bytes - 1], 3);
  free_large(p, bytes);
}

TEST(LargeBlocks, MappedBlocksAreWholeHugePagesAdvisedInPart) {
  auto* p = static_cast<char*>(map_aligned(kHugePageBytes + 1));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kHugePageBytes, 0u);
  p[2 * kHugePageBytes - 1] = 1;  // rounded up to two huge pages
  advise_huge_pages(p + kHugePageBytes, kHugePageBytes);
  EXPECT_EQ(p[0], 0) << "zero-filled";
  unmap_aligned(p, kHugePageBytes + 1);
}

TEST(LargeBlocks, VectorWithTheAllocatorGrowsAndKeepsItsElements) {
  std::vector<std::uint64_t, LargeAllocator<std::uint64_t>> v;
  constexpr std::uint64_t n = 3 * kHugePageBytes / 8 + 1000;  // grows into mapped blocks
  for (std::uint64_t i = 0; i < n; ++i) v.push_back(i);
  std::uint64_t sum = 0;
  for (auto x : v) sum += x;
  EXPECT_EQ(sum, n * (n - 1) / 2);
}

}  // namespace
}  // namespace perfcast
