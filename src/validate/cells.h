// How the table and the HTML page write a row's cells: one spelling of a time,
// an error and a run's key, so the two renderings cannot disagree.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string>

#include "validate/validate.h"

namespace perfcast::validate::cells {

// A run is one (app, arguments, ranks): its rows share the measured time and the naive baseline.
inline std::string run_key(const Row& r) { return fmt::format("{}\x1f{}\x1f{}", r.app, r.args, r.ranks); }

// Seconds with a unit a reader takes in at once (s, ms, us), three digits; empty for none.
inline std::string seconds(const std::optional<double>& s) {
  if (!s) return "";
  double v = *s;
  if (std::fabs(v) >= 1) return fmt::format("{:.3g} s", v);
  if (std::fabs(v) >= 1e-3) return fmt::format("{:.3g} ms", v * 1e3);
  return fmt::format("{:.3g} us", v * 1e6);
}

// A signed relative error as a whole percentage; empty for none.
inline std::string percent(const std::optional<double>& e) { return e ? fmt::format("{:+.0f} %", *e * 100) : ""; }

}  // namespace perfcast::validate::cells
