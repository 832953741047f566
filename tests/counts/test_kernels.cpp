// Exact counts of small C kernels (kernels_*.c, clang-19 -O2) under callgrind,
// against counts worked out by hand: 0 % error. Run twice: the kernels linked
// into a PIE, and the same kernels in a shared library.
//
// Hand counts, with n = 1003 and a triangle of t = 50 rows. Every kernel ends
// with `ret`, which reads the 8-byte return address: one load more per call.
// - daxpy, AVX2 + FMA: y[i] = a*x[i] + y[i]. One FMA per element = 2 flops; reads
//   x and y (16 bytes), writes y (8). The vector loop does 4 ymm FMAs (16
//   elements) per iteration, the n mod 16 left over are scalar FMAs.
// - saxpy: the same in float: 32 elements per vector iteration, 8 + 4 bytes.
// - dot_fma: s = fma(x[i], y[i], s), a strict reduction, stays scalar: 2n
//   flops, n FMA instructions, 2n loads (16n bytes), no stores.
// - triangle: for i < t, j <= i: y[j] = y[j]*s + x[j]: t(t+1)/2 elements of
//   daxpy; each row of m = i+1 elements has 16*floor(m/16) vector elements.
// - daxpy_scalar, SSE2, vectorisation disabled: mulsd + addsd = 2n flops,
//   2n loads, n stores.
// - sines: y[i] = sin(x[i]): n calls of sin; 0 flops of its own; it saves and
//   restores 5 registers (push/pop) and each call pushes a return address:
//   loads n + 5 + 1 (8 bytes each), stores n + 5 + n (8 bytes each).
#include <gtest/gtest.h>

#include "counts/run.h"

namespace perfcast::counts {
namespace {

constexpr int64_t n = 1003;
constexpr int64_t t = 50;
constexpr int64_t return_address = 8;

std::string kernel_binary(const std::string& name) {
  return std::string(PERFCAST_BINARY_DIR) + "/tests/counts/" + name;
}

class Kernels : public ::testing::TestWithParam<std::string> {
 protected:
  static const ProfileCounts& counts_of(const std::string& binary) {
    static std::map<std::string, ProfileCounts> cache;
    auto it = cache.find(binary);
    if (it == cache.end()) {
      CallgrindRunOptions options;
      options.program = {kernel_binary(binary), std::to_string(n), std::to_string(t)};
      options.label = binary;
      auto profiles = run_callgrind(options);
      CodeCache code;
      it = cache.emplace(binary, count(profiles.at(0).profile, code)).first;
    }
    return it->second;
  }

  const FunctionCounts& function(const std::string& name) {
    const auto* f = counts_of(GetParam()).find(name);
    if (!f) throw std::runtime_error("no function " + name + " in the profile");
    return *f;
  }
};

TEST_P(Kernels, VectorisedDaxpyWithRemainder) {
  const auto& f = function("daxpy");
  EXPECT_EQ(f.calls, 1);
  EXPECT_EQ(f.flops_double(), 2 * n);
  EXPECT_EQ(f.flops[1][static_cast<int>(VectorWidth::Ymm)], 2 * 16 * (n / 16));
  EXPECT_EQ(f.flops_double_scalar(), 2 * (n % 16));
  EXPECT_EQ(f.flops_single(), 0);
  EXPECT_EQ(f.fma_instructions, 4 * (n / 16) + n % 16);
  EXPECT_EQ(f.load_bytes, 16 * n + return_address);
  EXPECT_EQ(f.store_bytes, 8 * n);
  EXPECT_EQ(f.unclassified_instructions, 0);
}

TEST_P(Kernels, FloatSaxpy) {
  const auto& f = function("saxpy");
  EXPECT_EQ(f.flops_single(), 2 * n);
  EXPECT_EQ(f.flops[0][static_cast<int>(VectorWidth::Ymm)], 2 * 32 * (n / 32));
  EXPECT_EQ(f.flops_single_scalar(), 2 * (n % 32));
  EXPECT_EQ(f.flops_double(), 0);
  EXPECT_EQ(f.load_bytes, 8 * n + return_address);
  EXPECT_EQ(f.store_bytes, 4 * n);
}

TEST_P(Kernels, ExplicitFmaCall) {
  const auto& f = function("dot_fma");
  EXPECT_EQ(f.flops_double_scalar(), 2 * n);
  EXPECT_EQ(f.flops_double_simd(), 0);
  EXPECT_EQ(f.fma_instructions, n);
  EXPECT_EQ(f.loads, 2 * n + 1);
  EXPECT_EQ(f.load_bytes, 16 * n + return_address);
  EXPECT_EQ(f.stores, 0);
  EXPECT_TRUE(f.math_calls.empty());  // fma() became an instruction
}

TEST_P(Kernels, TriangularLoop) {
  const auto& f = function("triangle");
  int64_t elements = t * (t + 1) / 2, vector_elements = 0;
  for (int64_t m = 1; m <= t; ++m) vector_elements += 16 * (m / 16);
  EXPECT_EQ(f.flops_double(), 2 * elements);
  EXPECT_EQ(f.flops_double_simd(), 2 * vector_elements);
  EXPECT_EQ(f.flops_double_scalar(), 2 * (elements - vector_elements));
  EXPECT_EQ(f.load_bytes, 16 * elements + return_address);
  EXPECT_EQ(f.store_bytes, 8 * elements);
}

TEST_P(Kernels, ScalarLoop) {
  const auto& f = function("daxpy_scalar");
  EXPECT_EQ(f.flops_double_scalar(), 2 * n);
  EXPECT_EQ(f.flops_double_simd(), 0);
  EXPECT_EQ(f.fma_instructions, 0);
  EXPECT_EQ(f.loads, 2 * n + 1);
  EXPECT_EQ(f.stores, n);
  EXPECT_EQ(f.load_bytes, 16 * n + return_address);
  EXPECT_EQ(f.store_bytes, 8 * n);
  // Scalar accesses and no read-modify-write: callgrind's Dr/Dw agree here
  // (they split accesses wider than 16 bytes, and count a read-modify-write as a write only).
  EXPECT_EQ(f.loads, f.callgrind_dr);
  EXPECT_EQ(f.stores, f.callgrind_dw);
}

TEST_P(Kernels, MathCallsAndStackTraffic) {
  const auto& f = function("sines");
  ASSERT_EQ(f.math_calls.size(), 1u);
  EXPECT_EQ(f.math_calls.at("sin"), n);
  EXPECT_EQ(f.flops_total(), 0);
  EXPECT_EQ(f.loads, n + 5 + 1);
  EXPECT_EQ(f.load_bytes, 8 * (n + 5 + 1));
  EXPECT_EQ(f.stores, n + 5 + n);
  EXPECT_EQ(f.store_bytes, 8 * (n + 5 + n));
  EXPECT_EQ(f.skipped_stub_instructions, n);  // one jmp through the GOT per call of sin@plt
}

TEST_P(Kernels, EveryExecutedAddressIsAnInstruction) {
  const auto& c = counts_of(GetParam());
  for (const auto& m : c.objects) {
    if (m.disassembled) {
      EXPECT_EQ(m.unmatched_addresses, 0) << m.object << " bias " << m.bias;
    }
  }
  // Only the stubs callgrind places in no object ("???") stay unclassified.
  for (const auto& f : c.functions) {
    if (f.object != "???") {
      EXPECT_EQ(f.unclassified_instructions, 0) << f.object << " " << f.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, Kernels, ::testing::Values("kernels_pie", "kernels_shared"));

}  // namespace
}  // namespace perfcast::counts
