// Phase detection on a logical trace.
//
// The logical trace is read as a sequence of blocks, one per tick: the MPI
// events of all ranks at that tick (each with the compute that led to it),
// compared by kind, communicator, peer as an offset from the rank (and
// root), bytes, the number of requests a completion lists, and call site. Equal
// blocks get one symbol, so the run becomes a string of symbols, and a phase is a
// sequence of blocks the run repeats. Two algorithms find them:
//
//   repeats  exact repeats in the whole string (suffix array and LCP
//            intervals): the repeat whose non-overlapping occurrences cover most
//            ticks is a phase, its occurrences are taken out, and the search
//            goes on in what is left until nothing repeats. Occurrences need
//            not be adjacent.
//   loops    greedy loop-nest folding as the string is read (ScalaTrace's
//            way): a block sequence right after itself becomes a loop of 2,
//            and one more copy after a loop adds an iteration; loops of equal
//            bodies and trip counts fold again into outer loops. A phase is
//            the blocks one loop body holds outside its inner loops; its
//            weight is how often that body ran.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfcast::signature {

enum class Algorithm { Repeats, Loops };
const char* algorithm_name(Algorithm a);  // "repeats", "loops"
bool parse_algorithm(const std::string& name, Algorithm& out);

struct DetectedPhase {
  std::vector<int> blocks;      // the symbols of one occurrence, in order
  std::int64_t weight = 0;      // occurrences in the run (>= 2)
  std::int64_t first_tick = 0;  // where the first occurrence starts (1-based)
  std::vector<int> inner;       // loops: the phases nested in this one's body, in order
};

struct PhaseDetection {
  std::vector<DetectedPhase> phases;
  // phase_of_tick[t - 1]: the phase tick t belongs to, or -1.
  std::vector<int> phase_of_tick;
};

// `symbols[t - 1]` is the block of tick t.
PhaseDetection detect_phases(const std::vector<int>& symbols, Algorithm algorithm);

// The longest loop body the loops algorithm looks for, in items (blocks and
// loops already folded); a longer body is not found.
inline constexpr std::size_t kLoopWindowTicks = 512;

}  // namespace perfcast::signature
