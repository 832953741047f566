// Page-aligned arrays of doubles for the calibration kernels (internal header):
// aligned so that where an array starts within its page is the kernel's choice
// (a skew of a few lines, overlap.cpp), not the allocator's.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

namespace perfcast::calibrate::detail {

struct FreeDeleter {
  void operator()(double* p) const { std::free(p); }
};
using PageArray = std::unique_ptr<double[], FreeDeleter>;

// `elements` doubles (at least a page), page-aligned; throws std::bad_alloc.
inline PageArray page_aligned_doubles(std::size_t elements) {
  std::size_t bytes = (elements * sizeof(double) + 4095) / 4096 * 4096;
  auto* p = static_cast<double*>(std::aligned_alloc(4096, std::max<std::size_t>(bytes, 4096)));
  if (!p) throw std::bad_alloc();
  return PageArray(p);
}

}  // namespace perfcast::calibrate::detail
