// Synthetic runs with known structure for the learning tests: the time depends
// on some features in a known way, other features are noise the learners must
// find unimportant.
#pragma once

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "learn/dataset.h"

namespace perfcast::learn::testing {

// t = a·n²/p + b·log2(p) + c, times (1 + noise·gaussian); features n, junk1,
// junk2, ranks (p). junk features are uniform in [0, 1).
inline Dataset scaling_runs(size_t rows, double noise, uint64_t seed, double a = 1e-6, double b = 0.05,
                            double c = 0.01) {
  Rng rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::mt19937_64 g(seed + 17);
  const double sizes[] = {64, 96, 128, 192, 256, 384, 512, 768};
  const double procs[] = {1, 2, 4, 8, 16, 32, 64};
  Dataset d;
  d.source = "synthetic";
  d.feature_names = {"n", "junk1", "junk2", "ranks"};
  d.features = Matrix(rows, 4);
  for (size_t r = 0; r < rows; ++r) {
    double n = sizes[rng.index(8)], p = procs[rng.index(7)];
    d.features.at(r, 0) = n;
    d.features.at(r, 1) = rng.uniform();
    d.features.at(r, 2) = rng.uniform();
    d.features.at(r, 3) = p;
    d.time_s.push_back((a * n * n / p + b * std::log2(p) + c) * (1 + noise * gauss(g)));
  }
  return d;
}

// t = 1 when x <= 0.5, 3 above; features x and junk.
inline Dataset step_runs(size_t rows, uint64_t seed) {
  Rng rng(seed);
  Dataset d;
  d.source = "step";
  d.feature_names = {"x", "junk"};
  d.features = Matrix(rows, 2);
  for (size_t r = 0; r < rows; ++r) {
    d.features.at(r, 0) = rng.uniform();
    d.features.at(r, 1) = rng.uniform();
    d.time_s.push_back(d.features.at(r, 0) <= 0.5 ? 1.0 : 3.0);
  }
  return d;
}

// Runs on a grid of p and n with t = f(p, n) exactly.
inline Dataset grid_runs(const std::function<double(double, double)>& f) {
  Dataset d;
  d.source = "grid";
  d.feature_names = {"ranks", "n"};
  std::vector<double> ps = {2, 4, 8, 16, 32, 64, 128}, ns = {1000, 2000, 4000, 8000, 16000};
  d.features = Matrix(ps.size() * ns.size(), 2);
  size_t r = 0;
  for (double p : ps)
    for (double n : ns) {
      d.features.at(r, 0) = p;
      d.features.at(r, 1) = n;
      d.time_s.push_back(f(p, n));
      ++r;
    }
  return d;
}

}  // namespace perfcast::learn::testing
