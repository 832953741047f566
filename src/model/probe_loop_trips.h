// Whether a loop's trips are a size: the parameter alone, a width cast of it,
// or the loop the optimiser unrolled from a source loop of exactly that many
// iterations, its remainder beside it (docs/program-model.md, "Probe runs").
// The probe's per-loop sizes read a loop so recognised as one that runs the
// size's value per arrival.
#pragma once
#include <string>

#include "model/program_model.h"

namespace perfcast::model {

enum class Trips { Other, Alone, Cast, Unrolled };

// Whether `loop`'s trip count is the parameter `name` alone, or a width cast
// of it (zext(name, 32), which a mean in its range passes): a loop that runs
// `name` iterations per arrival; or that loop unrolled, its remainder in
// `function` (the body of the function that holds it) at `line`, which
// completes it to exactly `name` iterations (a whole number: its test reads
// `name`'s low bits). A loop of `name - c` iterations, unrolled or not, is Other.
Trips trips_are(const LoopItem& loop, const std::string& name, const Items& function, int line);

}  // namespace perfcast::model
