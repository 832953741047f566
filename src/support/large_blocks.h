// Memory for the simulator's big per-rank arrays: blocks of 2 MiB and more come
// from mmap, 2 MiB-aligned, in transparent huge pages.
//
// Why: at 10^5..10^6 ranks out of step, the engine visits rank states, requests
// and messages in an order with no locality, so nearly every such access misses
// the TLB as well as the cache. With 4 KiB pages each of those misses walks
// page tables that themselves no longer fit in the cache (and in a VM the walk is
// two-dimensional); with 2 MiB pages a gigabyte of state needs 512 TLB entries.
// Measured with bench_sim_stencil, ranks out of step: CPU
// time -21 % at 262 144 ranks, 1.19 -> 1.65 M calls per CPU second at 1 M; ranks
// in step, which visit memory in order, gain nothing and lose nothing.
//
// Huge pages are given only on request on Debian (transparent_hugepage/enabled
// = madvise), hence MADV_HUGEPAGE, which the user of a block asks for when it
// pays: a mapping is resident only where it was touched, but a huge page is
// faulted in whole, so the untouched part of the last huge page of a growing
// structure is slack (up to 2 MiB), too much for a small job.
// PERFCAST_HUGE_PAGES=0 in the environment turns the advice off.
#pragma once

#include <cstddef>
#include <new>

namespace perfcast {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// `bytes` rounded up to whole huge pages, mapped 2 MiB-aligned, zero-filled, in
// small pages until advised. Throws std::bad_alloc.
void* map_aligned(std::size_t bytes);
// `bytes` as given to map_aligned.
void unmap_aligned(void* block, std::size_t bytes) noexcept;
// Asks for huge pages for [block, block + bytes), block from map_aligned or
// allocate_large (bytes is rounded up to whole huge pages as they were).
void advise_huge_pages(void* block, std::size_t bytes) noexcept;

// Blocks of kHugePageBytes and more: from map_aligned (so they can be advised);
// smaller ones from operator new, 64-byte aligned. Uninitialised. Throws
// std::bad_alloc.
void* allocate_large(std::size_t bytes);
// `bytes` as given to allocate_large.
void free_large(void* block, std::size_t bytes) noexcept;

// For std::vector of per-rank state.
template <typename T>
struct LargeAllocator {
  using value_type = T;
  LargeAllocator() = default;
  template <typename U>
  LargeAllocator(const LargeAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(allocate_large(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { free_large(p, n * sizeof(T)); }
  template <typename U>
  bool operator==(const LargeAllocator<U>&) const {
    return true;
  }
};

}  // namespace perfcast
