#include "model/probe_per_rank.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

namespace perfcast::model {

namespace {

// The origin's words for a parameter bound rank by rank, followed by the count.
constexpr const char* kEachRankAt = ", each rank its own value, at its process count ";

Expr constant(double v, bool whole) {
  return whole ? expr::integer(static_cast<std::int64_t>(v)) : expr::real(v);
}

}  // namespace

Expr each_rank_expression(const std::vector<double>& values) {
  std::vector<double> v = values;
  bool whole = true;
  for (double& x : v) {
    if (std::isnan(x)) x = 0;
    whole = whole && x == std::round(x) && std::abs(x) < 9e15;
  }
  std::map<double, int> held;
  for (double x : v) held[x]++;
  double most = v.empty() ? 0 : v.front();
  for (const auto& [x, n] : held)
    if (n > held[most]) most = x;
  Expr e = constant(most, whole);
  for (std::size_t r = v.size(); r-- > 0;)
    if (v[r] != most)
      e = expr::select(expr::compare(expr::Comparison::Eq, expr::var("rank"), expr::integer(static_cast<std::int64_t>(r))),
                       constant(v[r], whole), e);
  return e;
}

Expr each_rank_or_mean(const std::vector<double>& values, double mean) {
  return expr::select(
      expr::compare(expr::Comparison::Eq, expr::var("size"), expr::integer(static_cast<std::int64_t>(values.size()))),
      each_rank_expression(values), mean == std::round(mean) ? expr::integer(static_cast<std::int64_t>(mean)) : expr::real(mean));
}

std::string each_rank_origin(const std::string& origin, int ranks) {
  return fmt::format("{}{}{}", origin, kEachRankAt, ranks);
}

std::optional<std::vector<double>> one_value_on_each_rank(const ProbeRun& run, const std::vector<std::string>& probes) {
  std::vector<double> value(static_cast<std::size_t>(std::max(run.ranks, 0)), std::nan(""));
  for (const std::string& probe : probes) {
    auto count = per_rank_values(run, probe + ".assignments", true);
    auto sum = per_rank_values(run, probe + ".sum", true);
    auto changes = per_rank_values(run, probe + ".changes", true);
    if (!count || !sum || !changes) return std::nullopt;
    for (std::size_t r = 0; r < value.size(); ++r) {
      if ((*changes)[r] != 0) return std::nullopt;
      if ((*count)[r] == 0) continue;
      const double one = (*sum)[r] / (*count)[r];
      if (!std::isnan(value[r]) && value[r] != one) return std::nullopt;
      value[r] = one;
    }
  }
  std::set<double> distinct;
  for (double x : value)
    if (!std::isnan(x)) distinct.insert(x);
  if (distinct.size() < 2) return std::nullopt;
  return value;
}

int ranks_bound_each_rank(const Parameter& p) {
  const auto at = p.origin.rfind(kEachRankAt);
  if (at == std::string::npos) return 0;
  return std::atoi(p.origin.c_str() + at + std::strlen(kEachRankAt));
}

}  // namespace perfcast::model
