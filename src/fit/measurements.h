// Measured kernel times, as `perfcast fit` reads them.
//
// Two file forms carry the same rows:
//   CSV  — a header line, then one row per measurement:
//            flops,n,time_s
//            2e6,100,0.00035
//          '#' starts a comment line. The time column is time_s, or time_ms /
//          time_us / time_ns (converted to seconds). An optional `repeats`
//          column says how many runs a time already summarises.
//   JSON — an array of rows, or {"rows": [...]}; a row is an object of numbers:
//            {"flops": 2e6, "n": 100, "time_s": 0.00035}
//          where time_s may also be an array of repeated times.
// Every other column is a work measure (an x); one is chosen per fit. Rows of
// the same x are repeats: the fit sees their median, because on a shared
// machine the mean is dragged by the runs something else interrupted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace perfcast::fit {

struct Sample {
  double x = 0;
  double time_s = 0;  // median of the repeats at this x
  int repeats = 1;    // runs behind time_s (rows at this x, times their `repeats`)
  int first_line = 0; // where the first row of this x was (0 when unknown)
};

struct Measurements {
  std::string source;                  // file name, for messages
  std::vector<std::string> variables;  // every work-measure column, in file order
  std::string x_name;                  // the one the samples use
  std::vector<Sample> samples;         // one per distinct x, sorted by x
  int rows = 0;                        // rows read, before repeats were merged

  double x_min() const { return samples.empty() ? 0 : samples.front().x; }
  double x_max() const { return samples.empty() ? 0 : samples.back().x; }
};

// `x_column` picks the work measure; empty means "the only one there is" (a
// file with several needs one named, and the error lists them). Throws
// UserError naming the file, the line and the field for anything malformed:
// a missing column, a cell that is not a finite number, a time that is not
// positive, a repeats count below 1.
Measurements read_measurements(const std::string& path, const std::string& x_column = "");

// The same from text already in memory; `source` names it in messages.
// `format` is "csv" or "json".
Measurements parse_measurements(std::string_view text, std::string_view format, const std::string& source,
                                const std::string& x_column = "");

}  // namespace perfcast::fit
