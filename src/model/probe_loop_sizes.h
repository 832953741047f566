// A size that several loops run at different means (docs/program-model.md,
// "Probe runs"): one parameter the analyser names for every call of a
// function, or for every function that reads one struct's field (`A.num_rows`
// of a kernel called on each grid level's matrix, through a pointer), where
// the loops it sizes, each on its own path, see different matrices. No one
// value makes all of them right; each loop's own mean trips per arrival,
// measured at its line, does: its total is then that loop's, whatever sizes
// the calls that reached it passed.
//
// So each such loop reads a parameter of its own, `<function>.loop_at<line>.<name>`,
// bound to its mean (where the run never reached it, the size at which it runs none), in the loop and in the
// items of its line around it (the optimiser's guard, `n > 0`, the remainder
// of an unrolled copy); the size keeps its other uses (a test, a vectorised
// copy's count, a loop no probe measured), bound to the mean over every
// arrival at the loops it sizes.
#pragma once
#include <string>
#include <vector>

#include "model/probe_bind.h"
#include "model/probe_loop_trips.h"
#include "model/program_model.h"

namespace perfcast::model {

// One loop whose trips are the size, and what the run measured at its line.
struct SizedLoop {
  std::string function;
  int line = 0;
  std::string site;      // the probe's `file.c:line`
  double entries = 0;    // arrivals, summed over the ranks; 0: never reached
  double size = 0;       // the size's mean per arrival, from the loop's mean trips (SizedTrips::size_of);
                         // where never reached, the size at which it runs none
  std::string no_probe;  // why no probe measured it (none at its line, or several the model's loop
                         // cannot be told among): it keeps the size
  // A callee's loop sized by a parameter every call passes the size to: it
  // measures the size's mean, and is never bound a parameter of its own.
  bool witness = false;
  std::string probe;   // the probe loop measured (`file.c:12:loop`), where one was
  SizedTrips trips;    // how its trips follow the size
};

// Binds `size` (a required parameter of `model`) loop by loop as above, the
// loops' own parameters appended to `added` (for the caller to add to the
// model once it is done walking its parameters). `whole`: the model's casts
// of it need whole numbers (each mean is rounded to the nearest). Returns one
// finding per loop, then one for the size itself.
std::vector<ProbeFinding> bind_size_per_loop(ProgramModel& model, Parameter& size, const std::vector<SizedLoop>& loops,
                                             bool whole, const std::string& origin, std::vector<Parameter>& added);

}  // namespace perfcast::model
