#include "machine/calibrate/math_cost.h"

#include <cmath>
#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>

#include "machine/calibrate/timing.h"

namespace perfcast::calibrate {

namespace {

using detail::median;
using detail::thread_cpu_s;

constexpr std::size_t kArgs = 1024;

template <typename T>
struct Args {
  std::vector<T> x, y, out;
  Args(double lo, double hi, double ylo = 0.5, double yhi = 3.0) : x(kArgs), y(kArgs), out(kArgs) {
    // A fixed, irregular spread over the range: no branch of the library's
    // implementation is favoured by sorted or repeated arguments.
    for (std::size_t i = 0; i < kArgs; ++i) {
      double u = std::fmod(0.6180339887 * (i + 1), 1.0);
      double v = std::fmod(0.7548776662 * (i + 1), 1.0);
      x[i] = static_cast<T>(lo + (hi - lo) * u);
      y[i] = static_cast<T>(ylo + (yhi - ylo) * v);
    }
  }
};

// noinline and a function pointer keep the call a real call to the library,
// as in the programs being modelled (no -ffast-math vector variants).
template <typename T>
[[gnu::noinline]] void apply1(T (*f)(T), Args<T>& a) {
  for (std::size_t i = 0; i < kArgs; ++i) a.out[i] = f(a.x[i]);
}
template <typename T>
[[gnu::noinline]] void apply2(T (*f)(T, T), Args<T>& a) {
  for (std::size_t i = 0; i < kArgs; ++i) a.out[i] = f(a.x[i], a.y[i]);
}

// Reps of `run` that make a sample of about sample_s, after a warm-up that
// brings code and tables into the caches.
long reps_for(const std::function<void()>& run, double sample_s) {
  run();
  double t0 = thread_cpu_s();
  run();
  return static_cast<long>(std::ceil(sample_s / std::max(thread_cpu_s() - t0, 1e-8)));
}

double sample_per_call(const std::function<void()>& run, long reps) {
  double start = thread_cpu_s();
  for (long r = 0; r < reps; ++r) run();
  return (thread_cpu_s() - start) / (static_cast<double>(reps) * kArgs);
}

// sqrt goes through these wrappers so that it is the library call (or the
// instruction plus errno check the compiler emits for it), as in user code.
double sqrt_d(double v) { return std::sqrt(v); }
float sqrt_f(float v) { return std::sqrt(v); }

}  // namespace

std::vector<MathCost> measure_math(const MathOptions& options, double scalar_double_rate,
                                   double scalar_single_rate) {
  struct Spec {
    const char* name;
    double lo, hi;
    double (*fd)(double);
    float (*ff)(float);
    double (*fd2)(double, double);
    float (*ff2)(float, float);
  };
  const Spec specs[] = {
      {"sin", -10, 10, ::sin, ::sinf, nullptr, nullptr},
      {"cos", -10, 10, ::cos, ::cosf, nullptr, nullptr},
      {"tan", -1.5, 1.5, ::tan, ::tanf, nullptr, nullptr},
      {"exp", -20, 20, ::exp, ::expf, nullptr, nullptr},
      {"log", 0.01, 100, ::log, ::logf, nullptr, nullptr},
      {"sqrt", 0.01, 100, sqrt_d, sqrt_f, nullptr, nullptr},
      {"pow", 0.5, 2, nullptr, nullptr, ::pow, ::powf},
  };
  // Two runners per function (double, single); samples are taken in rounds
  // over all of them so a burst of load spoils one sample of each at most.
  std::vector<std::unique_ptr<Args<double>>> args_d;
  std::vector<std::unique_ptr<Args<float>>> args_f;
  std::vector<std::function<void()>> runners;
  for (const auto& s : specs) {
    auto& ad = *args_d.emplace_back(std::make_unique<Args<double>>(s.lo, s.hi));
    auto& af = *args_f.emplace_back(std::make_unique<Args<float>>(s.lo, s.hi));
    if (s.fd) {
      runners.push_back([&ad, f = s.fd] { apply1<double>(f, ad); });
      runners.push_back([&af, f = s.ff] { apply1<float>(f, af); });
    } else {
      runners.push_back([&ad, f = s.fd2] { apply2<double>(f, ad); });
      runners.push_back([&af, f = s.ff2] { apply2<float>(f, af); });
    }
  }
  std::vector<long> reps;
  for (const auto& run : runners) reps.push_back(reps_for(run, options.sample_s));
  std::vector<std::vector<double>> samples(runners.size());
  for (int round = 0; round < options.samples; ++round)
    for (std::size_t i = 0; i < runners.size(); ++i) samples[i].push_back(sample_per_call(runners[i], reps[i]));

  std::vector<MathCost> costs;
  for (std::size_t k = 0; k < std::size(specs); ++k) {
    MathCost c;
    c.function = specs[k].name;
    c.double_s = median(samples[2 * k]);
    c.single_s = median(samples[2 * k + 1]);
    detail::keep(args_d[k]->out[7]);
    detail::keep(args_f[k]->out[7]);
    c.double_flops = c.double_s * scalar_double_rate;
    c.single_flops = c.single_s * scalar_single_rate;
    costs.push_back(c);
  }
  return costs;
}

}  // namespace perfcast::calibrate
