#include "report/simulation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "machine/physics.h"
#include "report/table.h"

namespace perfcast::report {

using sim::RankTimes;
using sim::SimResult;

namespace {

// Below a picosecond a time is rounding noise of the engine's sums (a wait of
// end - start - comm that should be 0), not a result: the table shows 0, the
// JSON keeps the exact double.
constexpr double kShownAsZero_s = 1e-12;

}  // namespace

std::string seconds_text(double s) {
  double a = std::abs(s);
  if (a < kShownAsZero_s) return "0 s";
  if (a >= 1) return fmt::format("{:.4g} s", s);
  if (a >= 1e-3) return fmt::format("{:.4g} ms", s * 1e3);
  if (a >= 1e-6) return fmt::format("{:.4g} us", s * 1e6);
  if (a >= 1e-9) return fmt::format("{:.4g} ns", s * 1e9);
  return fmt::format("{:.4g} ps", s * 1e12);
}

namespace {

std::string why(const SimResult& r) {
  if (r.ranks.empty()) return "no ranks";
  std::string text = fmt::format("rank {}, mostly {}", r.slowest_rank, r.slowest_component);
  if (r.slowest_component == "wait" && r.slowest_waited_on >= 0)
    text += fmt::format(" (mostly for rank {})", r.slowest_waited_on);
  return text;
}

// Totals over the ranks, then the ranks that have any (the engine lists only those).
nlohmann::json warnings_json(const std::vector<sim::RankWarnings>& warnings) {
  std::uint64_t unreceived = 0, incomplete = 0, after = 0, unfinalized = 0;
  nlohmann::json by_rank = nlohmann::json::array();
  for (const auto& w : warnings) {
    unreceived += w.unreceived_messages;
    incomplete += w.incomplete_requests;
    after += w.calls_after_finalize;
    unfinalized += w.missing_finalize ? 1 : 0;
    by_rank.push_back({{"rank", w.rank},
                       {"unreceived_messages", w.unreceived_messages},
                       {"incomplete_requests", w.incomplete_requests},
                       {"missing_finalize", w.missing_finalize},
                       {"calls_after_finalize", w.calls_after_finalize}});
  }
  return {{"ranks_with_warnings", warnings.size()},
          {"unreceived_messages", unreceived},
          {"incomplete_requests", incomplete},
          {"ranks_missing_finalize", unfinalized},
          {"calls_after_finalize", after},
          {"by_rank", by_rank}};
}

std::string warnings_text(const std::vector<sim::RankWarnings>& warnings) {
  if (warnings.empty()) return "";
  std::string out = fmt::format("warnings: {} rank{} did what MPI leaves erroneous:\n", warnings.size(),
                                warnings.size() == 1 ? "" : "s");
  size_t shown = 0;
  for (const auto& w : warnings) {
    if (++shown > 8) {
      out += fmt::format("  ... and {} more ranks (--json lists them all)\n", warnings.size() - 8);
      break;
    }
    std::vector<std::string> parts;
    if (w.unreceived_messages) parts.push_back(fmt::format("{} message(s) sent to it never received", w.unreceived_messages));
    if (w.incomplete_requests) parts.push_back(fmt::format("{} request(s) never completed", w.incomplete_requests));
    if (w.missing_finalize) parts.push_back("no MPI_Finalize");
    if (w.calls_after_finalize) parts.push_back(fmt::format("{} MPI call(s) after MPI_Finalize", w.calls_after_finalize));
    out += fmt::format("  rank {}: {}\n", w.rank, fmt::join(parts, "; "));
  }
  return out;
}

// The region the job's MPI_Pcontrol calls mark, when they mark one.
std::string timed_region_text(const std::optional<sim::TimedRegion>& region) {
  if (!region) return "";
  if (!region->problem.empty()) return fmt::format("timed region (MPI_Pcontrol): none: {}\n", region->problem);
  std::size_t n = region->occurrences_s.size();
  return fmt::format("timed region (MPI_Pcontrol): {} ({}, the slowest rank's)\n", seconds_text(region->time_s),
                     n == 1 ? std::string("1 region") : fmt::format("the median of {} regions", n));
}

}  // namespace

nlohmann::json sim_result_json(const SimResult& r, bool include_wall, const PlacementContext& placement) {
  nlohmann::json ranks = nlohmann::json::array();
  for (size_t i = 0; i < r.ranks.size(); ++i) {
    const auto& t = r.ranks[i];
    ranks.push_back(
        {{"rank", i}, {"calc_s", t.calc_s}, {"wait_s", t.wait_s}, {"comm_s", t.comm_s}, {"end_s", t.end_s}});
  }
  nlohmann::json region = nullptr;
  if (r.timed_region) {
    const sim::TimedRegion& tr = *r.timed_region;
    region = {{"time_s", tr.problem.empty() ? nlohmann::json(tr.time_s) : nlohmann::json(nullptr)},
              {"occurrences_s", tr.occurrences_s},
              {"problem", tr.problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(tr.problem)}};
    for (size_t i = 0; i < tr.ranks.size() && i < ranks.size(); ++i) {
      ranks[i]["region_start_s"] = tr.ranks[i].start_s;
      ranks[i]["region_end_s"] = tr.ranks[i].end_s;
      ranks[i]["region_s"] = tr.ranks[i].inside_s;
    }
  }
  nlohmann::json kinds = nlohmann::json::object();
  for (int k = 0; k < events::kKindCount; ++k)
    if (r.kind_counts[static_cast<size_t>(k)] > 0)
      kinds[std::string(events::kind_name(static_cast<events::Kind>(k)))] = r.kind_counts[static_cast<size_t>(k)];
  nlohmann::json j = {
      {"predicted_time_s", r.predicted_time_s},
      {"events", r.events},
      {"mpi_calls", r.mpi_calls},
      {"nranks", r.ranks.size()},
      {"slowest_rank", r.slowest_rank},
      {"slowest",
       {{"rank", r.slowest_rank},
        {"component", r.slowest_component},
        {"waited_on", r.slowest_waited_on < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.slowest_waited_on)}}},
      {"kinds", kinds},
      {"ranks", ranks},
      {"warnings", warnings_json(r.warnings)},
      {"placement", placement_json(r.placement, placement)},
      {"timed_region", region},
  };
  if (include_wall) {
    j["wall_s"] = r.wall_s;
    j["mpi_calls_per_s"] = r.wall_s > 0 ? static_cast<double>(r.mpi_calls) / r.wall_s : 0.0;
    j["engine_bytes_per_rank"] = r.ranks.empty() ? 0.0 : static_cast<double>(r.engine_bytes) / r.ranks.size();
  }
  return j;
}

nlohmann::json simulation_json(const SimResult& r, const SimulationContext& context) {
  nlohmann::json j = sim_result_json(r, context.include_wall, {context.unused_network_overrides, context.given_seconds});
  j["source"] = context.source;
  j["machine"] = context.machine;
  j["collectives"] = sim::collective_mode_name(context.collectives);
  j["mpi"] = context.mpi_as_traced ? "as-traced" : "model";
  if (context.compute_rescale) {
    const auto& c = *context.compute_rescale;
    j["compute_rescale"] = {{"by", sim::rescale_by_name(c.by)},
                            {"traced_machine", c.host},
                            {"factor_min", c.min_factor()},
                            {"factor_max", c.max_factor()}};
  }
  j["warnings"]["machine"] = context.machine_warnings;
  return j;
}

std::vector<std::string> physics_warnings(const machine::Machine& machine) {
  // A machine file written before calibrate checked its figures (or edited by
  // hand) may hold one no hardware has; every time priced with it inherits it.
  std::vector<std::string> out;
  for (const auto& f : machine::physics_findings(machine))
    out.push_back(fmt::format("machine '{}': {}; every time priced with it inherits the error (calibrate the "
                              "machine again, or correct it with --set)",
                              machine.name, machine::describe(f)));
  return out;
}

std::string simulation_table(const SimResult& r, const SimulationContext& context, int max_rows) {
  std::string out = fmt::format("{} on {} ({} ranks, collectives: {}{})\n", context.source, context.machine,
                                r.ranks.size(), sim::collective_mode_name(context.collectives),
                                context.mpi_as_traced ? ", MPI as traced" : "");
  if (context.compute_rescale) {
    const auto& c = *context.compute_rescale;
    double lo = c.min_factor(), hi = c.max_factor();
    out += fmt::format("compute as if on {}: each traced burst x {} (recorded on {}, rescaled by {})\n", c.target,
                       lo == hi ? fmt::format("{:.4g}", lo) : fmt::format("{:.4g} to {:.4g}", lo, hi), c.host,
                       sim::rescale_by_name(c.by));
  }
  out += placement_text(r.placement) + "\n";
  using Align = Table::Align;
  if (static_cast<int>(r.ranks.size()) <= max_rows) {
    Table t({"rank", "calc", "wait", "comm", "end"},
                    {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right});
    for (size_t i = 0; i < r.ranks.size(); ++i) {
      const auto& x = r.ranks[i];
      t.add_row({std::to_string(i), seconds_text(x.calc_s), seconds_text(x.wait_s), seconds_text(x.comm_s),
                 seconds_text(x.end_s)});
    }
    out += t.render();
  } else {
    // Many ranks: the spread of each component, then the slowest ranks.
    auto stats = [&](double RankTimes::*field) {
      std::vector<double> v;
      v.reserve(r.ranks.size());
      for (const auto& x : r.ranks) v.push_back(x.*field);
      std::sort(v.begin(), v.end());
      return std::array<double, 3>{v.front(), v[v.size() / 2], v.back()};
    };
    Table t({"", "min", "median", "max"}, {Align::Left, Align::Right, Align::Right, Align::Right});
    for (auto [name, field] : {std::pair{"calc", &RankTimes::calc_s}, std::pair{"wait", &RankTimes::wait_s},
                               std::pair{"comm", &RankTimes::comm_s}, std::pair{"end", &RankTimes::end_s}}) {
      auto s = stats(field);
      t.add_row({name, seconds_text(s[0]), seconds_text(s[1]), seconds_text(s[2])});
    }
    out += t.render();
    std::vector<size_t> order(r.ranks.size());
    std::iota(order.begin(), order.end(), 0);
    size_t shown = std::min<size_t>(5, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<long>(shown), order.end(), [&](size_t a, size_t b) {
      return r.ranks[a].end_s > r.ranks[b].end_s || (r.ranks[a].end_s == r.ranks[b].end_s && a < b);
    });
    Table slow({"slowest rank", "calc", "wait", "comm", "end"},
                       {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right});
    for (size_t i = 0; i < shown; ++i) {
      const auto& x = r.ranks[order[i]];
      slow.add_row({std::to_string(order[i]), seconds_text(x.calc_s), seconds_text(x.wait_s), seconds_text(x.comm_s),
                    seconds_text(x.end_s)});
    }
    out += "\n" + slow.render();
  }
  out += fmt::format("\npredicted time: {} ({})\n", seconds_text(r.predicted_time_s), why(r));
  out += timed_region_text(r.timed_region);
  out += fmt::format("simulated {} events ({} MPI calls) in {:.3g} s: {:.3g} MPI calls/s\n", r.events, r.mpi_calls,
                     r.wall_s, r.wall_s > 0 ? static_cast<double>(r.mpi_calls) / r.wall_s : 0.0);
  out += warnings_text(r.warnings);
  return out;
}

std::string simulation_progress_text(const sim::SimProgress& p) {
  return fmt::format("simulating: {:.4g} M events, simulated clock {:.4g} s, {} of {} ranks done, {:.0f} s",
                     p.events / 1e6, p.simulated_s, p.ranks_done, p.ranks, p.wall_s);
}

}  // namespace perfcast::report
