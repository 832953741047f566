// Dependency chains whose time per link is a known number of cycles on every
// x86-64 core: the clock probe's kernels, shared with the instruction-cycle
// measurement so both count cycles alike (internal header).
//
// Why not `add $1, reg`: Golden Cove-family cores (Alder Lake and Sapphire
// Rapids P-cores, Raptor Cove, Emerald Rapids) execute a 64-bit add, sub,
// inc or dec of a small immediate in the renamer with zero latency, so a
// dependent chain of them runs up to five a cycle (Peter Cordes on Stack
// Overflow, answer 79363816; uops.info's INC_R64 latency on ADL-P; Anton
// Ertl's "Zero-cycle constant adds" measurements, where `addq $1, %rax` ran
// five per cycle and `addq %r8, %rax` one). The renamer folds only
// immediates: an add of a register whose value it cannot know runs one a
// cycle on these cores as on every other.
#pragma once

#include <cstdint>

#include "machine/calibrate/timing.h"

namespace perfcast::calibrate::detail {

#if defined(__x86_64__)
#define PERFCAST_CHAIN_X8(s) s s s s s s s s
#define PERFCAST_CHAIN_X32(s) PERFCAST_CHAIN_X8(s) PERFCAST_CHAIN_X8(s) PERFCAST_CHAIN_X8(s) PERFCAST_CHAIN_X8(s)

inline constexpr int kLinksPerRound = 32;

// 1, read from memory at run time: neither the compiler nor a renamer that
// folds small constants can know it, so every link is executed.
inline volatile std::uint64_t chain_operand = 1;

// `rounds` x 32 dependent `add reg, reg`: one cycle each on every x86-64 core.
inline void register_add_chain(std::uint64_t rounds) {
  std::uint64_t x = 0;
  const std::uint64_t k = chain_operand;
  for (std::uint64_t i = 0; i < rounds; ++i) asm volatile(PERFCAST_CHAIN_X32("add %1, %0\n\t") : "+r"(x) : "r"(k));
  keep(x);
}

// `rounds` x 32 dependent 32-bit `imul reg, reg` by 1: three cycles each on
// the x86-64 cores of the last fifteen years (Intel since Core 2, AMD K8, K10
// and every Zen; Agner Fog's instruction tables). Another unit and another
// latency class than the add: a probe that mistakes either chain's rate for
// the clock disagrees with the other.
inline constexpr double kMultiplyCycles = 3;
inline void multiply_chain(std::uint64_t rounds) {
  std::uint32_t x = 1;
  const std::uint32_t m = static_cast<std::uint32_t>(chain_operand);
  for (std::uint64_t i = 0; i < rounds; ++i) asm volatile(PERFCAST_CHAIN_X32("imul %1, %0\n\t") : "+r"(x) : "r"(m));
  keep(x);
}

// `rounds` x 32 dependent `add $1, reg`: the chain the renamer of a Golden
// Cove-family core folds. Never the clock; measured to show whether this
// core folds them (several a cycle) or not (one).
inline void immediate_add_chain(std::uint64_t rounds) {
  std::uint64_t x = 0;
  for (std::uint64_t i = 0; i < rounds; ++i) asm volatile(PERFCAST_CHAIN_X32("add $1, %0\n\t") : "+r"(x));
  keep(x);
}
#endif

}  // namespace perfcast::calibrate::detail
