#include "learn/sweep_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "support/error.h"

namespace perfcast::learn {

namespace {

constexpr size_t kMaxGrid = 1000000;

const SourceLocation kWhere{"", std::nullopt, "--param"};

double number(const std::string& text, const std::string& whole) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw UserError(fmt::format("'{}' in '{}' is not a number", text, whole), kWhere,
                    "NAME=a,b,c or NAME=first:last:step or NAME=first:last:*factor");
  return v;
}

// Twelve digits: a range stepped by 0.1 gives 0.3, not 0.30000000000000004.
std::string text_of(double v) { return fmt::format("{:.12g}", v); }

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == by) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

}  // namespace

SweepParameter parse_sweep_parameter(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UserError(fmt::format("'{}' is not NAME=VALUES", text), kWhere, "e.g. --param n=16:64:16 --param np=1,2,4");
  SweepParameter p{text.substr(0, eq), {}};
  for (char c : p.name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      throw UserError(fmt::format("'{}' is not a parameter name (letters, digits, _)", p.name), kWhere);
  std::string values = text.substr(eq + 1);
  std::vector<std::string> range = split(values, ':');
  if (range.size() == 1) {
    for (auto& v : split(values, ','))
      if (!v.empty()) p.values.push_back(v);
  } else if (range.size() == 3) {
    double first = number(range[0], text), last = number(range[1], text);
    bool geometric = !range[2].empty() && range[2][0] == '*';
    double step = number(geometric ? range[2].substr(1) : range[2], text);
    if (geometric ? !(step > 1) || !(first > 0) : !(step > 0))
      throw UserError(fmt::format("'{}': the step must make the range grow", text), kWhere,
                      "first:last:step with step > 0, or first:last:*factor with factor > 1 and first > 0");
    for (size_t k = 0;; ++k) {
      double v = geometric ? first * std::pow(step, static_cast<double>(k)) : first + static_cast<double>(k) * step;
      if (v > last + 1e-9 * std::abs(last)) break;
      p.values.push_back(text_of(v));
      if (p.values.size() > kMaxGrid) throw UserError(fmt::format("'{}' has too many values", text), kWhere);
    }
  } else {
    throw UserError(fmt::format("'{}' is neither a list nor a range", text), kWhere,
                    "NAME=a,b,c or NAME=first:last:step or NAME=first:last:*factor");
  }
  if (p.values.empty()) throw UserError(fmt::format("'{}' gives no value", text), kWhere);
  return p;
}

std::vector<SweepPoint> sweep_points(const std::vector<SweepParameter>& parameters, std::optional<size_t> samples,
                                     uint64_t seed) {
  size_t grid = 1;
  for (const auto& p : parameters) {
    grid *= p.values.size();
    if (grid > kMaxGrid)
      throw UserError(fmt::format("the grid has over {} points", kMaxGrid), kWhere, "use fewer values per parameter");
  }
  std::vector<size_t> chosen(grid);
  std::iota(chosen.begin(), chosen.end(), 0);
  // Samples run in random order even when they are the whole grid, so a sweep
  // cut short (a deadline, a timeout) leaves out random points, not a corner of
  // the grid such as its largest process count.
  if (samples) {
    std::mt19937_64 random(seed);
    std::shuffle(chosen.begin(), chosen.end(), random);
    chosen.resize(std::min(*samples, grid));
  }
  std::vector<SweepPoint> points;
  for (size_t index : chosen) {
    SweepPoint point;
    size_t rest = index;
    std::vector<std::pair<std::string, std::string>> reversed;
    for (size_t k = parameters.size(); k-- > 0;) {
      const auto& p = parameters[k];
      reversed.emplace_back(p.name, p.values[rest % p.values.size()]);
      rest /= p.values.size();
    }
    point.values.assign(reversed.rbegin(), reversed.rend());
    for (const auto& [name, value] : point.values) point.label += (point.label.empty() ? "" : " ") + name + "=" + value;
    points.push_back(std::move(point));
  }
  return points;
}

std::vector<std::string> sweep_command(const std::vector<std::string>& command_template,
                                       const std::vector<SweepParameter>& parameters, const SweepPoint& point) {
  std::set<std::string> used;
  std::vector<std::string> out;
  for (const auto& word : command_template) {
    std::string result;
    for (size_t i = 0; i < word.size();) {
      size_t open = word.find('{', i);
      if (open == std::string::npos) {
        result += word.substr(i);
        break;
      }
      size_t close = word.find('}', open);
      if (close == std::string::npos) {
        result += word.substr(i);
        break;
      }
      result += word.substr(i, open - i);
      std::string name = word.substr(open + 1, close - open - 1);
      auto it = std::find_if(point.values.begin(), point.values.end(), [&](const auto& v) { return v.first == name; });
      if (it == point.values.end())
        throw UserError(fmt::format("the command uses {{{}}}, which no --param names", name), {"", std::nullopt, "--"},
                        fmt::format("add --param {}=VALUES", name));
      result += it->second;
      used.insert(name);
      i = close + 1;
    }
    out.push_back(result);
  }
  for (const auto& p : parameters)
    if (!used.count(p.name))
      throw UserError(fmt::format("no word of the command uses {{{}}}", p.name), kWhere,
                      fmt::format("write {{{}}} where its value goes, e.g. -n {{{}}}", p.name, p.name));
  return out;
}

}  // namespace perfcast::learn
