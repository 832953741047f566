// Synthetic kernel timings with a known answer, for the fit tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace perfcast::fit::testing {

// The paper's dgemm cost (Susukita et al., SC2008): 0.173 ns/flop below a
// size, 0.165 ns/flop above. The breakpoint is ours.
constexpr double kSlowSlope = 0.173e-9;
constexpr double kFastSlope = 0.165e-9;
constexpr double kPaperBreak = 1.2e9;
inline double paper_time(double flops) { return flops < kPaperBreak ? kSlowSlope * flops : kFastSlope * flops; }

// n sizes spaced evenly in log between lo and hi.
inline std::vector<double> log_spaced(double lo, double hi, int n) {
  std::vector<double> x;
  for (int i = 0; i < n; ++i) x.push_back(lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1)));
  return x;
}

// Multiplicative Gaussian noise from mt19937 by Box-Muller: the standard
// library's distributions differ between implementations, mt19937 does not.
class Noise {
 public:
  Noise(double relative_sd, uint32_t seed) : sd_(relative_sd), gen_(seed) {}
  double operator()(double t) {
    if (sd_ == 0) return t;
    double u1 = (gen_() + 0.5) / 4294967296.0, u2 = (gen_() + 0.5) / 4294967296.0;
    double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    return t * (1 + sd_ * z);
  }

 private:
  double sd_;
  std::mt19937 gen_;
};

// CSV text "flops,time_s" with `repeats` rows per size.
inline std::string csv_of(const std::vector<double>& x, const std::function<double(double)>& time, Noise noise,
                          int repeats = 1, const std::string& x_name = "flops") {
  std::string out = x_name + ",time_s\n";
  for (double v : x)
    for (int r = 0; r < repeats; ++r) out += fmt::format("{:.17g},{:.17g}\n", v, noise(time(v)));
  return out;
}

}  // namespace perfcast::fit::testing
