#include "fit/text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "support/units.h"

namespace perfcast::fit {

namespace {

std::string percent(double fraction) { return fmt::format("{:.3g} %", 100 * fraction); }

// Exactly the double the library holds, so C and C++ agree to the last bit.
std::string exact(double v) { return fmt::format("{:.17g}", v); }

std::string line_expr(const Segment& s, const std::string& x) {
  if (s.intercept_s == 0) return fmt::format("{} * {}", exact(s.slope_s_per_x), x);
  return fmt::format("{} + {} * {}", exact(s.intercept_s), exact(s.slope_s_per_x), x);
}

// Text from a file name or a column must not end the C comment it sits in.
std::string comment_safe(std::string s) {
  for (size_t p; (p = s.find("*/")) != std::string::npos;) s.replace(p, 2, "* /");
  return s;
}

}  // namespace

std::string x_unit(const std::string& x_name) {
  if (x_name == "flops" || x_name == "flop") return "flop";
  if (x_name == "bytes" || x_name == "byte") return "byte";
  return x_name;
}

std::string format_slope(double slope_s_per_x, const std::string& x_name) {
  return fmt::format("{:.4g} ns/{}", slope_s_per_x * 1e9, x_unit(x_name));
}

std::string describe(const Model& model, const std::string& x_name) {
  if (model.kind == ModelKind::Power)
    return fmt::format("{:.4g} s × {}^{:.4g}", model.power_coefficient_s, x_name, model.power_exponent);
  std::string out;
  for (size_t j = 0; j < model.segments.size(); ++j) {
    const Segment& s = model.segments[j];
    std::string line = format_slope(s.slope_s_per_x, x_name);
    // A constant below a millionth of the segment's time is rounding, not cost.
    double scale_s = std::abs(s.slope_s_per_x) * std::max(std::abs(s.x_from), std::abs(s.x_to));
    if (std::abs(s.intercept_s) > 1e-6 * scale_s)
      line += fmt::format(" {} {}", s.intercept_s < 0 ? "-" : "+",
                          units::format(std::abs(s.intercept_s), units::Dimension::Seconds, 4));
    if (model.segments.size() == 1) return line;
    if (j == 0) out += fmt::format("{} for {} < {:.4g}", line, x_name, model.breakpoints[0]);
    else if (j + 1 < model.segments.size())
      out += fmt::format("; {} up to {:.4g}", line, model.breakpoints[j]);
    else out += fmt::format("; {} above", line);
  }
  return out;
}

std::string c_identifier(const std::string& name) {
  static const std::set<std::string> keywords = {
      "auto",   "break",  "case",    "char",   "const",    "continue", "default",  "do",     "double",
      "else",   "enum",   "extern",  "float",  "for",      "goto",     "if",       "inline", "int",
      "long",   "register", "restrict", "return", "short",  "signed",   "sizeof",   "static", "struct",
      "switch", "typedef", "union",  "unsigned", "void",   "volatile", "while",    "pow",    "exp"};
  std::string out;
  for (unsigned char c : name) out += std::isalnum(c) ? static_cast<char>(c) : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "x_" + out;
  if (keywords.count(out)) out += "_";
  return out;
}

std::string default_function_name(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string();
  return c_identifier(stem.empty() ? "kernel_time" : stem + "_time");
}

std::string emit_c(const Measurements& data, const FitResult& result, const std::string& function_name) {
  const Model& m = result.model;
  std::string fn = c_identifier(function_name);
  std::string x = c_identifier(data.x_name);
  if (x == fn) x = "x";

  int runs = 0;
  for (const auto& s : data.samples) runs += s.repeats;
  std::string loo = result.loo_mean_abs_relative_error
                        ? fmt::format("leave-one-out (the error to expect at a size not measured): mean {}, max {}",
                                      percent(*result.loo_mean_abs_relative_error),
                                      percent(*result.loo_max_abs_relative_error))
                        : std::string("leave-one-out: too few points to cross-validate");
  std::string out;
  out += fmt::format("/* {}({}): predicted seconds of the kernel, for BSIM_Add_time({}({})).\n", fn, x, fn, x);
  out += comment_safe(fmt::format(" * Fitted by `perfcast fit` to {}: {} sizes, {} {:.4g} .. {:.4g}, {} runs (median per size).\n",
                                  data.source, data.samples.size(), data.x_name, data.x_min(), data.x_max(), runs));
  out += comment_safe(fmt::format(" * Model: {}: {}.\n", m.label(), describe(m, data.x_name)));
  out += fmt::format(" * Error at the measured sizes: max {}, rms {}; R^2 {:.6f}.\n",
                     percent(result.max_abs_relative_error), percent(result.rms_relative_error), result.r_squared);
  out += fmt::format(" * Error {}.\n", loo);
  out += comment_safe(fmt::format(" * Outside {} {:.4g} .. {:.4g} it extrapolates.", data.x_name, data.x_min(),
                                  data.x_max())) +
         " */\n";
  if (m.kind == ModelKind::Power) out += "#include <math.h>\n";
  out += fmt::format("static double {}(double {}) {{\n", fn, x);
  if (m.kind == ModelKind::Power) {
    out += fmt::format("  return {} * pow({}, {});\n", exact(m.power_coefficient_s), x, exact(m.power_exponent));
  } else {
    std::string expr;
    for (size_t j = 0; j < m.segments.size(); ++j) {
      if (j + 1 < m.segments.size())
        expr += fmt::format("{} < {} ? {} :\n         ", x, exact(m.breakpoints[j]), line_expr(m.segments[j], x));
      else expr += line_expr(m.segments[j], x);
    }
    out += fmt::format("  return {};\n", expr);
  }
  out += "}\n";
  return out;
}

}  // namespace perfcast::fit
