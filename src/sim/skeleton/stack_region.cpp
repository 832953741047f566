#include "sim/skeleton/stack_region.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "support/error.h"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

namespace perfcast::sim::skeleton {

namespace {
std::size_t page_bytes() { return static_cast<std::size_t>(sysconf(_SC_PAGESIZE)); }

// Probes MADV_GUARD_INSTALL on a scratch mapping, so the region never depends on it.
bool madvise_guard_supported() {
  std::size_t page = page_bytes();
  void* p = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  bool ok = madvise(p, page, MADV_GUARD_INSTALL) == 0;
  munmap(p, 2 * page);
  return ok;
}
}  // namespace

std::size_t max_map_count() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  std::size_t n = 0;
  if (in >> n && n > 0) return n;
  return 65530;
}

StackRegion::StackRegion(std::size_t count, std::size_t stack_bytes, GuardMode guard) : count_(count) {
  std::size_t page = page_bytes();
  if (stack_bytes < 4 * page) {
    throw UserError(fmt::format("stack size {} bytes is too small for a rank", stack_bytes), {},
                    "give --stack-size at least 16K (default 64K)");
  }
  std::size_t usable = (stack_bytes + page - 1) / page * page;
  if (guard != GuardMode::Off) {
    madvise_guard_ = madvise_guard_supported();
    // mprotect guards cost two mappings per stack; keep a margin for the rest of the process.
    bool mprotect_fits = 2 * count + 4096 < max_map_count();
    if (madvise_guard_ || guard == GuardMode::On || mprotect_fits) guard_bytes_ = page;
    guard_kind_ = guard_bytes_ == 0 ? "none" : madvise_guard_ ? "madvise-guard" : "mprotect";
  }
  stride_ = usable + guard_bytes_;
  void* p = mmap(nullptr, count_ * stride_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    throw UserError(fmt::format("cannot reserve {} MiB of address space for {} rank stacks: {}", count_ * stride_ >> 20,
                                count_, std::strerror(errno)),
                    {}, "use a smaller --stack-size or fewer ranks");
  }
  base_ = static_cast<char*>(p);
}

StackRegion::~StackRegion() {
  if (base_) munmap(base_, count_ * stride_);
}

char* StackRegion::commit(std::size_t i) {
  char* low = base_ + i * stride_;
  if (madvise_guard_) {
    // Whole slot read/write (merges with its neighbours), guard page installed inside.
    if (mprotect(low, stride_, PROT_READ | PROT_WRITE) != 0 || madvise(low, guard_bytes_, MADV_GUARD_INSTALL) != 0) {
      throw UserError(fmt::format("cannot commit the stack of rank {}: {}", i, std::strerror(errno)));
    }
  } else if (mprotect(low + guard_bytes_, stride_ - guard_bytes_, PROT_READ | PROT_WRITE) != 0) {
    throw UserError(fmt::format("cannot commit the stack of rank {}: {} ({} mappings of at most {})", i,
                                std::strerror(errno), process_memory().mappings, max_map_count()),
                    {}, "run with fewer ranks, or without guard pages");
  }
  return low + guard_bytes_;
}

bool StackRegion::in_guard(const void* addr, std::size_t* index) const {
  if (!contains(addr) || guard_bytes_ == 0) return false;
  auto offset = static_cast<std::size_t>(static_cast<const char*>(addr) - base_);
  *index = offset / stride_;
  return offset % stride_ < guard_bytes_;
}

ProcessMemory process_memory() {
  ProcessMemory m;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    auto kb = [&](const char* key) { return std::stoull(line.substr(std::strlen(key))) * 1024; };
    if (line.rfind("VmRSS:", 0) == 0) m.rss_bytes = kb("VmRSS:");
    if (line.rfind("VmHWM:", 0) == 0) m.peak_rss_bytes = kb("VmHWM:");
  }
  std::ifstream maps("/proc/self/maps");
  while (std::getline(maps, line)) ++m.mappings;
  return m;
}

}  // namespace perfcast::sim::skeleton
