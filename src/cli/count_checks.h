// Validators for whole-number options (rank counts, repeats, limits): CLI11's
// PositiveNumber accepts any double and prints its range as 300 digits.
#pragma once

#include <limits>

#include <CLI/CLI.hpp>

namespace perfcast::cli {

inline const CLI::Range kPositiveCount{1LL, static_cast<long long>(std::numeric_limits<int>::max()),
                                       "a whole number >= 1"};
inline const CLI::Range kNonNegativeCount{0LL, static_cast<long long>(std::numeric_limits<int>::max()),
                                          "a whole number >= 0"};

}  // namespace perfcast::cli
