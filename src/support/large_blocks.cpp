#include "support/large_blocks.h"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace perfcast {

namespace {
constexpr std::align_val_t kLineAlignment{64};

// PERFCAST_HUGE_PAGES=0 turns the advice off (to compare, or where huge pages
// are known to stall: compaction on a fragmented host).
bool huge_pages_wanted() {
  static const bool wanted = [] {
    const char* v = std::getenv("PERFCAST_HUGE_PAGES");
    return !v || std::string_view(v) != "0";
  }();
  return wanted;
}

std::size_t huge_rounded(std::size_t bytes) { return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes; }
}  // namespace

void* map_aligned(std::size_t bytes) {
  std::size_t size = huge_rounded(bytes == 0 ? 1 : bytes);
  // Over-map by one huge page and trim, so the block starts on a 2 MiB boundary
  // (a huge page can only back an aligned 2 MiB range).
  void* p = mmap(nullptr, size + kHugePageBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  auto start = reinterpret_cast<std::uintptr_t>(p);
  std::uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (aligned > start) munmap(p, aligned - start);
  std::uintptr_t end = start + size + kHugePageBytes;
  if (end > aligned + size) munmap(reinterpret_cast<void*>(aligned + size), end - (aligned + size));
  return reinterpret_cast<void*>(aligned);
}

void unmap_aligned(void* block, std::size_t bytes) noexcept {
  if (block) munmap(block, huge_rounded(bytes == 0 ? 1 : bytes));
}

void advise_huge_pages(void* block, std::size_t bytes) noexcept {
  // Advice only: without it (THP disabled, an old kernel) the memory still works.
  if (huge_pages_wanted() && bytes > 0) madvise(block, huge_rounded(bytes), MADV_HUGEPAGE);
}

void* allocate_large(std::size_t bytes) {
  if (bytes < kHugePageBytes) return ::operator new(bytes == 0 ? 1 : bytes, kLineAlignment);
  return map_aligned(bytes);
}

void free_large(void* block, std::size_t bytes) noexcept {
  if (!block) return;
  if (bytes < kHugePageBytes) {
    ::operator delete(block, kLineAlignment);
    return;
  }
  unmap_aligned(block, bytes);
}

}  // namespace perfcast
