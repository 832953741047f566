// A compute-time model measured on this machine, the BSIM way: time a naive
// triple-loop matrix multiply (the dgemm of a skeleton that has none better)
// at 8 sizes, write the medians' raw runs to a CSV, fit it with perfcast_fit,
// and print ns/flop per segment and the cross-validated error.
//
//   bench_fit_kernel [OUT.csv]      (default: fit_dgemm_like.csv here)
//
// The i-j-k loop reads B down its columns, so once B outgrows a cache level
// each flop costs more: the cost is piecewise linear in flops, as the paper's
// dgemm was (0.173 then 0.165 ns/flop there, faster above; slower above here).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "fit/fit.h"
#include "fit/text.h"
#include "support/error.h"

namespace {

double checksum = 0;  // keeps the multiplies from being optimised away

void multiply(int n, const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& c) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int k = 0; k < n; ++k) sum += a[static_cast<size_t>(i * n + k)] * b[static_cast<size_t>(k * n + j)];
      c[static_cast<size_t>(i * n + j)] = sum;
    }
}

// Seconds per multiply, one figure per repeat. Small sizes run several
// multiplies per timing so a timing is at least ~5 ms, far above the clock's
// resolution and the cost of reading it.
std::vector<double> time_multiply(int n, int repeats) {
  const size_t nn = static_cast<size_t>(n) * static_cast<size_t>(n);
  std::vector<double> a(nn), b(nn), c(nn);
  for (size_t i = 0; i < nn; ++i) {
    a[i] = 1.0 + static_cast<double>(i % 7) * 0.25;
    b[i] = 0.5 - static_cast<double>(i % 5) * 0.1;
  }
  using clock = std::chrono::steady_clock;
  auto once = [&] {
    auto t0 = clock::now();
    multiply(n, a, b, c);
    checksum += c[nn / 2];
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  double first = once();  // also warms the caches and the page tables
  int calls = std::max(1, static_cast<int>(5e-3 / std::max(first, 1e-9)));
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = clock::now();
    for (int k = 0; k < calls; ++k) {
      multiply(n, a, b, c);
      checksum += c[nn / 2];
    }
    times.push_back(std::chrono::duration<double>(clock::now() - t0).count() / calls);
  }
  return times;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string out = argc > 1 ? argv[1] : "fit_dgemm_like.csv";
  const std::vector<int> sizes = {24, 40, 64, 100, 160, 250, 320, 400};
  const int repeats = 11;
  {
    std::ofstream csv(out);
    csv << "# naive i-j-k matrix multiply on this machine, steady_clock; one row per repeat\n";
    csv << "n,flops,time_s\n";
    for (int n : sizes) {
      std::vector<double> times = time_multiply(n, repeats);
      for (double t : times) csv << fmt::format("{},{},{:.9g}\n", n, 2.0 * n * n * n, t);
      std::sort(times.begin(), times.end());
      std::fprintf(stderr, "n=%d: median %.6g s, min %.6g, max %.6g\n", n, times[times.size() / 2], times.front(),
                   times.back());
    }
  }
  try {
    perfcast::fit::Measurements data = perfcast::fit::read_measurements(out, "flops");
    perfcast::fit::FitReport report = perfcast::fit::fit(data);
    std::printf("%s: %zu sizes, %d rows (checksum %g)\n", out.c_str(), data.samples.size(), data.rows, checksum);
    for (size_t i = 0; i < report.candidates.size(); ++i) {
      const auto& c = report.candidates[i];
      std::printf("%s %-36s LOO mean %6.2f %%  max %6.2f %%  in-sample max %6.2f %%  %s\n",
                  i == report.chosen ? "*" : " ", c.model.label().c_str(),
                  100 * c.loo_mean_abs_relative_error.value_or(NAN), 100 * c.loo_max_abs_relative_error.value_or(NAN),
                  100 * c.max_abs_relative_error, perfcast::fit::describe(c.model, "flops").c_str());
    }
    const auto& best = report.best();
    std::printf("\nchosen: %s\n", best.model.label().c_str());
    for (const auto& s : best.model.segments)
      std::printf("  flops %.4g .. %.4g: %.4f ns/flop (%.3g Gflop/s), constant %.3g s\n", s.x_from, s.x_to,
                  s.slope_s_per_x * 1e9, 1e-9 / s.slope_s_per_x, s.intercept_s);
    if (best.model.kind == perfcast::fit::ModelKind::Power)
      std::printf("  %s\n", perfcast::fit::describe(best.model, "flops").c_str());
    std::printf("cross-validated (leave-one-out) error: mean %.2f %%, max %.2f %%\n",
                100 * best.loo_mean_abs_relative_error.value_or(NAN), 100 * best.loo_max_abs_relative_error.value_or(NAN));
    for (const auto& n : report.notes) std::printf("note: %s\n", n.c_str());
    std::printf("\n%s", perfcast::fit::emit_c(data, best, "matmul_time").c_str());
  } catch (const perfcast::UserError& e) {
    std::fprintf(stderr, "bench_fit_kernel: %s\n", e.what());
    return 1;
  }
  return 0;
}
