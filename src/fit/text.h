// A fitted model as text: for people (the table, the C comment) and as C, to
// paste into a skeleton as BSIM_Add_time(dgemm_time(flops)).
#pragma once

#include <string>

#include "fit/fit.h"

namespace perfcast::fit {

// The unit one x counts: "flop" for a column named flops, "byte" for bytes,
// otherwise the column's name ("n").
std::string x_unit(const std::string& x_name);

// "0.173 ns/flop" — slopes are given in ns per unit of x, the paper's figure.
std::string format_slope(double slope_s_per_x, const std::string& x_name);

// One line: "0.173 ns/flop + 2 us for flops < 1.2e+09; 0.165 ns/flop above",
// "1.2e-08 s × n^2.9".
std::string describe(const Model& model, const std::string& x_name);

// Returns a `static double NAME(double X)` definition preceded by a comment
// stating the data it was fitted on and its errors (at the measured points and
// leave-one-out). Coefficients carry 17 significant digits so the C function
// returns what Model::predict_s does. A power law needs <math.h>, which the
// text includes.
std::string emit_c(const Measurements& data, const FitResult& result, const std::string& function_name);

// "dgemm_time" from "data/dgemm.csv"; a valid C identifier in any case.
std::string default_function_name(const std::string& path);

// A valid C identifier made from `name` ("flops/rank" -> "flops_rank").
std::string c_identifier(const std::string& name);

}  // namespace perfcast::fit
