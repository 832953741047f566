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

bool ranks_differ(const std::vector<double>& values) {
  std::set<double> distinct;
  for (double x : values)
    if (!std::isnan(x)) distinct.insert(x);
  return distinct.size() > 1;
}

std::vector<ProbeRun> rank_views(const ProbeRun& run) {
  std::vector<ProbeRun> views;
  if (!run.per_rank_recorded || run.ranks < 2) return views;
  for (int r = 0; r < run.ranks; ++r) {
    ProbeRun view;
    view.command = run.command;
    view.ranks = 1;
    view.code = run.code;
    view.omp_threads = run.omp_threads;
    for (const auto& [name, value] : run.features) {
      auto each = run.per_rank.find(name);
      view.features[name] = each != run.per_rank.end() && each->second.size() == static_cast<std::size_t>(run.ranks)
                                ? (std::isnan(each->second[r]) ? 0.0 : each->second[r])
                                : value / run.ranks;
    }
    views.push_back(std::move(view));
  }
  return views;
}

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

bool bind_each_rank_or_mean(Parameter& p, const std::optional<std::vector<double>>& each, double mean) {
  if (!each) return false;
  p.default_value = each_rank_or_mean(*each, mean);
  for (double x : *each)
    if (!std::isnan(x) && x != std::trunc(x)) p.integer = false;
  return true;
}

std::optional<std::vector<double>> each_rounded(const std::optional<std::vector<double>>& each) {
  if (!each) return std::nullopt;
  std::vector<double> v = *each;
  for (double& x : v)
    if (!std::isnan(x)) x = std::round(x);
  if (!ranks_differ(v)) return std::nullopt;
  return v;
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
  if (!ranks_differ(value)) return std::nullopt;
  return value;
}

std::optional<std::vector<double>> per_rank_values(const ProbeRun& run, const std::string& name, bool summed) {
  if (!run.per_rank_recorded || run.ranks < 1) return std::nullopt;
  if (auto each = run.per_rank.find(name); each != run.per_rank.end()) {
    if (each->second.size() != static_cast<std::size_t>(run.ranks)) return std::nullopt;
    return each->second;
  }
  std::optional<double> value;
  if (auto f = run.features.find(name); f != run.features.end()) value = f->second;
  if (auto m = run.measures.find(name); !value && m != run.measures.end()) value = m->second;
  if (!value) return std::nullopt;
  return std::vector<double>(run.ranks, summed ? *value / run.ranks : *value);
}

std::optional<std::vector<double>> each_ranks_mean(const ProbeRun& run, const std::vector<std::string>& probes) {
  std::vector<double> count(static_cast<std::size_t>(std::max(run.ranks, 0)), 0.0), sum = count;
  for (const std::string& probe : probes) {
    auto c = per_rank_values(run, probe + ".assignments", true), s = per_rank_values(run, probe + ".sum", true);
    if (!c || !s) return std::nullopt;
    for (std::size_t r = 0; r < count.size(); ++r) count[r] += (*c)[r], sum[r] += (*s)[r];
  }
  std::vector<double> mean;
  for (std::size_t r = 0; r < count.size(); ++r) mean.push_back(count[r] > 0 ? sum[r] / count[r] : std::nan(""));
  if (!ranks_differ(mean)) return std::nullopt;
  return mean;
}

std::optional<std::vector<double>> each_ranks_fraction(const ProbeRun& run, const std::string& own) {
  auto taken = per_rank_values(run, own + ".taken", true), not_taken = per_rank_values(run, own + ".not_taken", true);
  if (!taken || !not_taken) return std::nullopt;
  std::vector<double> fraction;
  for (std::size_t r = 0; r < taken->size(); ++r) {
    const double arrivals = (*taken)[r] + (*not_taken)[r];
    fraction.push_back(arrivals > 0 ? (*taken)[r] / arrivals : std::nan(""));
  }
  if (!ranks_differ(fraction)) return std::nullopt;
  return fraction;
}

std::optional<std::vector<double>> each_ranks_trips(const ProbeRun& run, const std::string& probe, bool passes) {
  auto headers = per_rank_values(run, probe + ".headers", true), entries = per_rank_values(run, probe + ".entries", true);
  if (!headers || !entries) return std::nullopt;
  const auto after = per_rank_values(run, probe + ".exits_after_work", true);
  std::vector<double> trips;
  for (std::size_t r = 0; r < headers->size(); ++r) {
    const double h = (*headers)[r], e = (*entries)[r];
    trips.push_back(e <= 0  ? std::nan("")
                    : passes ? h / e
                             : trips_per_arrival(run, probe, h, e, after ? (*after)[r] : 0.0));
  }
  if (!ranks_differ(trips)) return std::nullopt;
  return trips;
}

std::optional<std::vector<double>> each_ranks_size(const ProbeRun& run, const std::vector<SizedLoop>& loops,
                                                   bool whole) {
  std::optional<std::vector<double>> size;
  for (const SizedLoop& loop : loops) {
    if (loop.entries <= 0) continue;
    if (loop.probe.empty()) return std::nullopt;
    auto entries = per_rank_values(run, loop.probe + ".entries", true);
    if (!entries) return std::nullopt;
    // The loop's own trips where they differ between ranks, else its mean on every rank.
    std::vector<double> trips = each_ranks_trips(run, loop.probe, false)
                                    .value_or(std::vector<double>(entries->size(), loop.trips.scale * loop.size +
                                                                                     loop.trips.offset));
    std::vector<double> own;
    for (std::size_t r = 0; r < trips.size(); ++r) {
      const double s = (*entries)[r] > 0 ? loop.trips.size_of(trips[r]) : std::nan("");
      own.push_back(whole && !std::isnan(s) ? std::round(s) : s);
    }
    if (!size) {
      size = own;
      continue;
    }
    for (std::size_t r = 0; r < own.size(); ++r) {  // every loop reached on a rank ran that rank's one mean
      if (std::isnan((*size)[r])) (*size)[r] = own[r];
      else if (!std::isnan(own[r]) && std::abs(own[r] - (*size)[r]) > 1e-9 * std::max(1.0, std::abs(own[r])))
        return std::nullopt;
    }
  }
  if (!size || !ranks_differ(*size)) return std::nullopt;
  return size;
}

int ranks_bound_each_rank(const Parameter& p) {
  const auto at = p.origin.rfind(kEachRankAt);
  if (at == std::string::npos) return 0;
  return std::atoi(p.origin.c_str() + at + std::strlen(kEachRankAt));
}

}  // namespace perfcast::model
