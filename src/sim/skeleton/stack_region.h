// Fiber stacks for live skeletons, all taken from ONE reserved region.
//
// Why: Boost.Context's protected stacks are one mmap each plus a guard mprotect,
// i.e. two kernel mappings per fiber, and the kernel allows 65 530 mappings, so
// 32 768 ranks abort. Here the whole region is one PROT_NONE, MAP_NORESERVE
// mapping; a stack is committed (mprotect read/write) when its rank first runs,
// and neighbouring committed stacks merge into one mapping. Pages cost memory
// only once touched; they are all given back when the region is unmapped.
//
// Guard pages: with MADV_GUARD_INSTALL (Linux >= 6.13) the lowest page of each
// stack faults without splitting the mapping. Without it, mprotect guards split
// the mapping twice per stack, so they are used only while they fit under
// vm.max_map_count; otherwise stacks are unguarded and the runtime checks the
// stack pointer at every switch instead (see LiveJobSource).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace perfcast::sim::skeleton {

enum class GuardMode { Auto, On, Off };

class StackRegion {
 public:
  // Reserves count stacks of stack_bytes (rounded up to pages). Throws UserError.
  StackRegion(std::size_t count, std::size_t stack_bytes, GuardMode guard);
  ~StackRegion();
  StackRegion(const StackRegion&) = delete;
  StackRegion& operator=(const StackRegion&) = delete;

  // Commits stack i (idempotent per rank lifetime); returns its lowest usable address.
  // Throws UserError when the kernel refuses.
  char* commit(std::size_t i);

  char* usable_low(std::size_t i) const { return base_ + i * stride_ + guard_bytes_; }
  char* top(std::size_t i) const { return base_ + (i + 1) * stride_; }
  std::size_t usable_bytes() const { return stride_ - guard_bytes_; }
  bool guarded() const { return guard_bytes_ > 0; }
  // How guards were made: "madvise-guard", "mprotect", or "none".
  const char* guard_kind() const { return guard_kind_; }
  // True when addr lies in the guard page of some stack; sets *rank_index.
  bool in_guard(const void* addr, std::size_t* index) const;
  bool contains(const void* addr) const {
    auto* p = static_cast<const char*>(addr);
    return p >= base_ && p < base_ + count_ * stride_;
  }

 private:
  char* base_ = nullptr;
  std::size_t count_ = 0;
  std::size_t stride_ = 0;
  std::size_t guard_bytes_ = 0;
  bool madvise_guard_ = false;
  const char* guard_kind_ = "none";
};

// Counts of this process's memory, for tests and reports (from /proc/self).
struct ProcessMemory {
  std::size_t rss_bytes = 0;       // VmRSS
  std::size_t peak_rss_bytes = 0;  // VmHWM
  std::size_t mappings = 0;        // lines of /proc/self/maps
};
ProcessMemory process_memory();
std::size_t max_map_count();  // vm.max_map_count, or 65530 when unreadable

}  // namespace perfcast::sim::skeleton
