// The points of a `perfcast sweep` (docs/learn.md, "Sweeps"): named
// parameters with lists or ranges of values, their full grid or a seeded
// random sample of it, and a command template whose {name} words take each
// point's values. A point's label ("n=32 np=4") is what a record carries, so a
// rerun of the same sweep skips the points its dataset already holds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perfcast::learn {

struct SweepParameter {
  std::string name;
  std::vector<std::string> values;
};

// "n=16,32,64", "n=16:64:16" (first:last:step, last included), or
// "n=16:256:*2" (a geometric range). Throws UserError naming `--param`.
SweepParameter parse_sweep_parameter(const std::string& text);

struct SweepPoint {
  std::vector<std::pair<std::string, std::string>> values;  // in the parameters' order
  std::string label;                                        // "n=32 np=4"
};

// Every point of the grid, in order (the last parameter varies fastest), or,
// with `samples`, that many distinct points drawn with `seed` (all of them
// when the grid has no more).
std::vector<SweepPoint> sweep_points(const std::vector<SweepParameter>& parameters, std::optional<size_t> samples,
                                     uint64_t seed);

// The command for one point: every {name} in a word replaced by its value.
// A {name} that is no parameter, or a parameter no word uses, is a UserError.
std::vector<std::string> sweep_command(const std::vector<std::string>& command_template,
                                       const std::vector<SweepParameter>& parameters, const SweepPoint& point);

}  // namespace perfcast::learn
