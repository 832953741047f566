#include "machine/calibrate/instruction_cycles.h"

#include <algorithm>
#include <array>
#include <cstdint>

#include "machine/calibrate/clock_chains.h"
#include "machine/calibrate/timing.h"

namespace perfcast::calibrate {

namespace {

#if defined(__x86_64__)
#define PERFCAST_X8(s) s s s s s s s s
#define PERFCAST_X32(s) PERFCAST_X8(s) PERFCAST_X8(s) PERFCAST_X8(s) PERFCAST_X8(s)
constexpr double kPerRound = 32;

// Seconds per instruction of `rounds` x 32: one register through a chain
// (latency), or four registers taking turns (issue interval; the divider's
// latency is far longer than four of its intervals, so they overlap fully).
template <typename Body>
double per_instruction_s(std::uint64_t rounds, Body body) {
  double t0 = detail::thread_cpu_s();
  body(rounds);
  return (detail::thread_cpu_s() - t0) / (static_cast<double>(rounds) * kPerRound);
}

// The cycle: a dependent register add (clock_chains.h; not `add $1`, which
// a Golden Cove-family renamer folds several a cycle, and every figure below
// would come out that many times too large).
void integer_chain(std::uint64_t rounds) { detail::register_add_chain(rounds); }

// x + 0.0, x * 1.0, x / 1.0 keep x a normal number however long the chain.
#define PERFCAST_CHAIN(name, instruction, operand)                                                 \
  void name(std::uint64_t rounds) {                                                              \
    double x = 1.5, y = operand;                                                                 \
    for (std::uint64_t i = 0; i < rounds; ++i) asm volatile(PERFCAST_X32(instruction) : "+x"(x) : "x"(y)); \
    detail::keep(x);                                                                             \
  }
PERFCAST_CHAIN(add_chain, "addsd %1, %0\n\t", 0.0)
PERFCAST_CHAIN(multiply_chain, "mulsd %1, %0\n\t", 1.0)
PERFCAST_CHAIN(divide_chain, "divsd %1, %0\n\t", 1.0)
#undef PERFCAST_CHAIN

// sqrt(x) of x = 1.0 is 1.0: a chain through one register.
void sqrt_chain(std::uint64_t rounds) {
  double x = 1.0;
  for (std::uint64_t i = 0; i < rounds; ++i) asm volatile(PERFCAST_X32("sqrtsd %0, %0\n\t") : "+x"(x));
  detail::keep(x);
}

#define PERFCAST_FOUR(name, instruction)                                                                   \
  void name(std::uint64_t rounds) {                                                                      \
    double a = 2.0, b = 2.0, c = 2.0, d = 2.0, y = 2.0;                                                  \
    for (std::uint64_t i = 0; i < rounds; ++i)                                                           \
      asm volatile(PERFCAST_X8(instruction " %4, %0\n\t" instruction " %4, %1\n\t" instruction " %4, %2\n\t" \
                               instruction " %4, %3\n\t")                                                \
                   : "+x"(a), "+x"(b), "+x"(c), "+x"(d)                                                  \
                   : "x"(y));                                                                            \
    detail::keep(a + b + c + d);                                                                         \
  }
PERFCAST_FOUR(divide_interval, "divsd")
PERFCAST_FOUR(sqrt_interval, "sqrtsd")
#undef PERFCAST_FOUR
#endif

}  // namespace

std::vector<std::pair<const char*, double>> figures(const InstructionCycles& c) {
  return {{"fp_add_latency", c.fp_add_latency},         {"fp_multiply_latency", c.fp_multiply_latency},
          {"fp_divide_latency", c.fp_divide_latency},   {"fp_divide_interval", c.fp_divide_interval},
          {"fp_sqrt_latency", c.fp_sqrt_latency},       {"fp_sqrt_interval", c.fp_sqrt_interval}};
}

InstructionCycles measure_instruction_cycles(int repeats) {
  InstructionCycles out;
#if defined(__x86_64__)
  using Kernel = void (*)(std::uint64_t);
  // Rounds per sample: ~2 ms of the cheapest kernel at 3 GHz; the divides
  // take a quarter as many, each costing 10-20 cycles.
  constexpr std::uint64_t kRounds = 200000;
  const std::array<std::pair<Kernel, std::uint64_t>, 7> kernels = {{{integer_chain, kRounds},
                                                                     {add_chain, kRounds},
                                                                     {multiply_chain, kRounds},
                                                                     {divide_chain, kRounds / 8},
                                                                     {divide_interval, kRounds / 4},
                                                                     {sqrt_chain, kRounds / 8},
                                                                     {sqrt_interval, kRounds / 4}}};
  std::array<double, 7> best;
  best.fill(1e9);
  // Rounds of every kernel in turn, so a slow spell of the host slows one
  // sample of each rather than every sample of one.
  for (int r = 0; r < std::max(1, repeats); ++r)
    for (size_t k = 0; k < kernels.size(); ++k)
      best[k] = std::min(best[k], per_instruction_s(kernels[k].second, kernels[k].first));
  const double cycle = best[0];
  out.fp_add_latency = best[1] / cycle;
  out.fp_multiply_latency = best[2] / cycle;
  out.fp_divide_latency = best[3] / cycle;
  out.fp_divide_interval = best[4] / cycle;
  out.fp_sqrt_latency = best[5] / cycle;
  out.fp_sqrt_interval = best[6] / cycle;
#else
  (void)repeats;
#endif
  return out;
}

}  // namespace perfcast::calibrate
