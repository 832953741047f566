// Which side of the model's branch a probe's taken fraction belongs to
// (docs/program-model.md, "Probe runs"): the probes count a test as the
// source writes it; the optimiser may have inverted it, swapped its
// successors or moved code between its sides since. Where each code has one
// side that does nothing, those are the same side; else the first source line
// of each side, recorded by both, says which way.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/program_model.h"

namespace perfcast::model {

// What the probe measured of one branch: the fraction of its arrivals to the condition's true side
// in the code as written, and the source lines that side and the other start at (0: not recorded).
struct TakenFraction {
  double taken = 0;
  int taken_line = 0, not_taken_line = 0;
  bool taken_empty = false, not_taken_empty = false;  // the one side that does nothing (a bare RETURN)
  // Each rank's own fraction (NaN: a rank that never arrived), where the run
  // recorded them and they differed: priced rank by rank at the run's count.
  std::optional<std::vector<double>> each_rank;
};

// How the guessed branch items at one line were bound, counted by whether the
// optimised code tests the condition as written, inverted, could not be told
// by the lines its sides start at, or has no such lines (a model from before
// them, or an item the analyser wrote without: "reached on some paths").
struct Orientations {
  int as_written = 0, inverted = 0, untold = 0, no_lines = 0;
  int by_empty_side = 0;         // of as_written and inverted: told by the side that does nothing, not by a line
  std::optional<double> priced;  // `then`'s probability: of the first item told, else of the first
  bool priced_told = false;
};

// Whether the item's `then` (the true side of the optimised code's test) is
// the side the probe counted as taken; unknown when no side's line matches,
// or both ways do (sides on one line), and no empty sides pair them.
// `by_empty_side`: set where the empty sides decided against the lines, or
// where the lines did not tell.
std::optional<bool> then_is_taken(const BranchItem& b, const TakenFraction& t, bool* by_empty_side = nullptr);

// Sets the probability of the function's guessed branches at `line`: the
// taken fraction on the side it was measured on, counted in `o`; where the
// ranks' fractions differed, a share that gives each rank its own at the
// run's process count (each_rank_share).
void set_branch_probability(Items& items, int line, const TakenFraction& t, const std::string& origin,
                            Orientations& o);

// The binding's status, as `probe` prints it, from how the branches were oriented.
std::string bound_status(const Orientations& o);

}  // namespace perfcast::model
