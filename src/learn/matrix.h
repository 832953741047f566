// The numeric containers and the random numbers the learners share.
//
// Matrix is dense and row-major: one row per run, one column per feature. Rng is
// a 64-bit Mersenne twister with its own uniform draws, so a seed gives the same
// forests and folds with any standard library (std::uniform_*_distribution is
// implementation-defined).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace perfcast::learn {

struct Matrix {
  size_t rows = 0;
  size_t cols = 0;
  std::vector<double> values;  // rows * cols, row-major

  Matrix() = default;
  Matrix(size_t r, size_t c) : rows(r), cols(c), values(r * c, 0.0) {}
  double& at(size_t r, size_t c) { return values[r * cols + c]; }
  double at(size_t r, size_t c) const { return values[r * cols + c]; }
  const double* row(size_t r) const { return values.data() + r * cols; }
  double* row(size_t r) { return values.data() + r * cols; }

  // The rows listed, in that order (duplicates allowed: bootstrap samples).
  Matrix select_rows(const std::vector<size_t>& which) const;
  // The columns listed, in that order.
  Matrix select_cols(const std::vector<size_t>& which) const;
};

std::vector<double> select(const std::vector<double>& v, const std::vector<size_t>& which);

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  size_t index(size_t n) { return static_cast<size_t>(engine_() % n); }  // [0, n)
  uint64_t next() { return engine_(); }
  template <class T>
  void shuffle(std::vector<T>& v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[index(i)]);
  }

 private:
  std::mt19937_64 engine_;
};

// The q-quantile (0 <= q <= 1) of values, linearly interpolated between order
// statistics (numpy's default). values is reordered.
double quantile(std::vector<double>& values, double q);

}  // namespace perfcast::learn
