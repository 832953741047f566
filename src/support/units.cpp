#include "support/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::units {

namespace {

struct UnitSpelling {
  const char* text;
  Dimension dimension;
  double scale;
};

// Base spellings; prefixed forms are built from these by prefix_scale().
const std::vector<UnitSpelling>& base_units() {
  static const std::vector<UnitSpelling> units = {
      {"s", Dimension::Seconds, 1},          {"sec", Dimension::Seconds, 1},
      {"B", Dimension::Bytes, 1},            {"byte", Dimension::Bytes, 1},
      {"bytes", Dimension::Bytes, 1},        {"flop", Dimension::Flops, 1},
      // "Gflops"/"GFLOPS" are rates in common usage; a count is written "flop".
      {"flops", Dimension::FlopsPerSecond, 1}, {"B/s", Dimension::BytesPerSecond, 1},
      {"Bps", Dimension::BytesPerSecond, 1}, {"flop/s", Dimension::FlopsPerSecond, 1},
      {"flops/s", Dimension::FlopsPerSecond, 1}, {"FLOPS", Dimension::FlopsPerSecond, 1},
      {"Hz", Dimension::Hertz, 1},
  };
  return units;
}

// Returns the multiplier of a prefix, or 0 if `p` is not one.
double prefix_scale(std::string_view p) {
  if (p.empty()) return 1;
  if (p == "n") return 1e-9;
  if (p == "u" || p == "\u00b5" || p == "\u03bc") return 1e-6;
  if (p == "m") return 1e-3;
  if (p == "k" || p == "K") return 1e3;
  if (p == "M") return 1e6;
  if (p == "G") return 1e9;
  if (p == "T") return 1e12;
  if (p == "P") return 1e15;
  if (p == "Ki") return 1024.0;
  if (p == "Mi") return 1024.0 * 1024;
  if (p == "Gi") return 1024.0 * 1024 * 1024;
  if (p == "Ti") return 1024.0 * 1024 * 1024 * 1024;
  return 0;
}

bool sub_unit_prefix(std::string_view p) { return p == "n" || p == "u" || p == "\u00b5" || p == "\u03bc" || p == "m"; }

// Finds the unit whose spelling ends `unit` and whose leading part is a prefix.
bool lookup_unit(std::string_view unit, Dimension& dim, double& scale) {
  for (const auto& u : base_units()) {
    std::string_view base = u.text;
    if (unit.size() < base.size()) continue;
    if (unit.substr(unit.size() - base.size()) != base) continue;
    std::string_view prefix = unit.substr(0, unit.size() - base.size());
    double s = prefix_scale(prefix);
    if (s == 0) continue;
    // "ms" is milliseconds, but "mB" or "mflop" make no sense: sub-unit prefixes
    // only go with time.
    if (sub_unit_prefix(prefix) && u.dimension != Dimension::Seconds) continue;
    dim = u.dimension;
    scale = s * u.scale;
    return true;
  }
  return false;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "10.5 GB/s" into 10.5 and "GB/s"; throws on a missing number.
std::pair<double, std::string_view> split_number(std::string_view text) {
  text = trim(text);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data())
    throw UserError(fmt::format("'{}' does not start with a number", text));
  if (!std::isfinite(value)) throw UserError(fmt::format("'{}' is not a finite number", text));
  return {value, trim(std::string_view(end, text.data() + text.size() - end))};
}

}  // namespace

const char* dimension_name(Dimension d) {
  switch (d) {
    case Dimension::Seconds: return "a time";
    case Dimension::Bytes: return "a size in bytes";
    case Dimension::Flops: return "a number of flops";
    case Dimension::BytesPerSecond: return "a bandwidth";
    case Dimension::FlopsPerSecond: return "a flop rate";
    case Dimension::Hertz: return "a frequency";
    case Dimension::Count: return "a plain number";
  }
  return "?";
}

const char* dimension_example(Dimension d) {
  switch (d) {
    case Dimension::Seconds: return "\"60 us\"";
    case Dimension::Bytes: return "\"64 KiB\"";
    case Dimension::Flops: return "\"2 Gflop\"";
    case Dimension::BytesPerSecond: return "\"10 GB/s\"";
    case Dimension::FlopsPerSecond: return "\"5.3 Gflop/s\"";
    case Dimension::Hertz: return "\"2 GHz\"";
    case Dimension::Count: return "42";
  }
  return "?";
}

Quantity parse_any(std::string_view text) {
  auto [number, unit] = split_number(text);
  if (unit.empty()) return {number, Dimension::Count};
  Dimension dim{};
  double scale = 0;
  if (!lookup_unit(unit, dim, scale))
    throw UserError(fmt::format("unknown unit '{}' in '{}'", unit, trim(text)));
  return {number * scale, dim};
}

double parse(std::string_view text, Dimension expected, bool allow_bare_number) {
  Quantity q;
  try {
    q = parse_any(text);
  } catch (const UserError& e) {
    throw UserError(fmt::format("{}; expected {} such as {}", e.what(), dimension_name(expected),
                                dimension_example(expected)));
  }
  if (q.dimension == Dimension::Count && expected != Dimension::Count) {
    if (allow_bare_number) return q.value;
    throw UserError(fmt::format("'{}' has no unit; expected {} such as {}", trim(text),
                                dimension_name(expected), dimension_example(expected)));
  }
  if (q.dimension != expected)
    throw UserError(fmt::format("'{}' is {}, expected {} such as {}", trim(text), dimension_name(q.dimension),
                                dimension_name(expected), dimension_example(expected)));
  if (!std::isfinite(q.value))
    throw UserError(fmt::format("'{}' {}; expected {} such as {}", trim(text),
                                std::isnan(q.value) ? "is not a number" : "overflows a double",
                                dimension_name(expected), dimension_example(expected)));
  if (q.value < 0) throw UserError(fmt::format("'{}' is negative", trim(text)));
  return q.value;
}

std::string format(double value, Dimension d, int significant_digits) {
  const char* unit = "";
  bool binary = false;
  switch (d) {
    case Dimension::Seconds: unit = "s"; break;
    case Dimension::Bytes: unit = "B"; binary = true; break;
    case Dimension::Flops: unit = "flop"; break;
    case Dimension::BytesPerSecond: unit = "B/s"; break;
    case Dimension::FlopsPerSecond: unit = "flop/s"; break;
    case Dimension::Hertz: unit = "Hz"; break;
    case Dimension::Count: return fmt::format("{:.{}g}", value, significant_digits);
  }
  if (value == 0) return fmt::format("0 {}", unit);
  struct Prefix { double scale; const char* name; };
  static const Prefix decimal[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"},
                                   {1, ""},     {1e-3, "m"}, {1e-6, "u"}, {1e-9, "n"}};
  static const Prefix binary_prefixes[] = {{1099511627776.0, "Ti"}, {1073741824.0, "Gi"},
                                           {1048576.0, "Mi"},       {1024.0, "Ki"}, {1, ""}};
  double a = std::fabs(value);
  if (binary) {
    for (const auto& p : binary_prefixes)
      if (a >= p.scale || p.scale == 1)
        return fmt::format("{:.{}g} {}{}", value / p.scale, significant_digits, p.name, unit);
  }
  for (const auto& p : decimal) {
    // Sub-unit prefixes only make sense for time.
    if (p.scale < 1 && d != Dimension::Seconds) break;
    if (a >= p.scale) return fmt::format("{:.{}g} {}{}", value / p.scale, significant_digits, p.name, unit);
  }
  const Prefix& last = d == Dimension::Seconds ? decimal[8] : decimal[5];
  return fmt::format("{:.{}g} {}{}", value / last.scale, significant_digits, last.name, unit);
}

}  // namespace perfcast::units
