// Whether a loop's trips are a size: the parameter alone, a width cast of it,
// a fixed line of it (2·n + 1 of `for (i = -n; i <= n; i++)`, n − 1 of
// `for (i = 1; i < n; i++)`), or the loop the optimiser unrolled from a
// source loop of such trips, its remainder beside it (docs/program-model.md,
// "Probe runs"). The probe's per-loop sizes read the size's value per arrival
// from the trips of a loop so recognised.
#pragma once
#include <string>
#include <vector>

#include "model/program_model.h"

namespace perfcast::model {

enum class Trips { Other, Alone, Cast, Affine, Unrolled };

// How a source loop's iterations per arrival follow a size: scale · size +
// offset, so that the run's mean trips give the size's mean (size_of), exact
// for totals linear in it.
struct SizedTrips {
  Trips kind = Trips::Other;
  double scale = 1, offset = 0;
  double size_of(double trips) const { return (trips - offset) / scale; }
};

// Whether `loop`'s trip count is the parameter `name` alone, or a width cast
// of it (zext(name, 32), which a mean in its range passes): a loop that runs
// `name` iterations per arrival; or `scale · name + offset` at every large
// `name` and nothing else (Affine); or such a loop unrolled, its remainder in
// `function` (the body of the function that holds it) at `line`, which
// completes it to exactly that many iterations (a whole number: its test
// reads `name`'s low bits). A loop of `name / k` iterations, or of any other
// form, is Other.
SizedTrips trips_are(const LoopItem& loop, const std::string& name, const Items& function, int line);

// A loop whose trips follow a size, at its line.
struct LoopSizedBy {
  int line = 0;
  SizedTrips trips;
};

// The loops, in `items` at any depth, whose trips follow `name` (trips_are;
// `function` the body of the function that holds them), outermost first; not
// those of code inlined from another function (the analyser's note says so),
// whose probes count every call of that function in the program, nor an
// OpenMP team's threads (over `omp.thread`): the run's thread count, no loop
// of the code, whatever loop a probe saw at the region's line.
void loops_sized_by(const Items& items, const std::string& name, const Items& function,
                    std::vector<LoopSizedBy>& loops);

}  // namespace perfcast::model
