#include "model/predict.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "machine/pricing.h"
#include "support/error.h"

namespace perfcast::model {

namespace {

bool is_single_precision_math(const std::string& name) {
  return name.size() > 1 && name.back() == 'f' && name != "sqrt" && name != "pow";
}

std::string math_base(const std::string& name) {
  return is_single_precision_math(name) ? name.substr(0, name.size() - 1) : name;
}

const machine::MemoryLevel* level_named(const machine::NodeGroup& g, const std::string& name) {
  for (const auto& l : g.memory)
    if (l.name == name) return &l;
  return nullptr;
}

// The functions a run of the entry can reach: only their priced loops count
// towards the refinement a prediction reports.
void collect_reachable(const ProgramModel& model, const std::vector<Item>& items, std::set<std::string>& seen) {
  for (const auto& it : items) {
    if (const auto* c = std::get_if<CallItem>(&it.body)) {
      if (model.functions.count(c->function) && seen.insert(c->function).second)
        collect_reachable(model, model.functions.at(c->function).body, seen);
    } else if (const auto* l = std::get_if<LoopItem>(&it.body)) {
      collect_reachable(model, l->body, seen);
    } else if (const auto* b = std::get_if<BranchItem>(&it.body)) {
      collect_reachable(model, b->then_items, seen);
      collect_reachable(model, b->else_items, seen);
    }
  }
}

// Loops priced by their cycles: the outermost that carry cycles_per_iteration
// (one inside another is covered by it, as the composition in costs.cpp does).
int count_priced(const Items& items, bool in_priced) {
  int n = 0;
  for (const auto& it : items) {
    if (const auto* l = std::get_if<LoopItem>(&it.body)) {
      bool priced = !in_priced && l->cycles_per_iteration;
      n += priced + count_priced(l->body, in_priced || priced);
    } else if (const auto* b = std::get_if<BranchItem>(&it.body)) {
      n += count_priced(b->then_items, in_priced) + count_priced(b->else_items, in_priced);
    }
  }
  return n;
}

// A rank cannot do its flops faster than its cores' peak rate: its predicted
// time (the plain formula's) must hold its flops at the node's SIMD rate per
// precision (`flops_per_core`, math calls as the flops the machine prices
// them at), on its share of its core where the node holds more ranks than
// cores. One below that rests on figures that cannot be right (a scalar
// rate above the SIMD peak; counts a double no longer holds) and is refused
// rather than printed. The estimates priced in MCA's cycles are not held to
// it: `flops_per_core` is a sustained, measured rate that a loop's cycles on
// the scheduling model may beat (a test machine's 1 flop a cycle against a
// vectorised loop's 2.2).
void refuse_flops_beyond_peak(const RankPrediction& rp, const machine::NodeGroup& g) {
  const RankCounts& c = rp.counts;
  double math_double = 0, math_single = 0;
  for (const auto& [name, calls] : c.math_calls) {
    bool single = is_single_precision_math(name);
    (single ? math_single : math_double) +=
        calls * g.math.flops(math_base(name), single ? machine::Precision::Single : machine::Precision::Double);
  }
  const double flops = c.flops_double + c.flops_single + math_double + math_single;
  const double at_peak_s = machine::Pricing::flops_s(g, c.flops_double + math_double, c.flops_single + math_single) *
                           machine::Pricing::node_load(g, rp.ranks_on_node, rp.ranks_on_node).time_share;
  if (at_peak_s > rp.time_s * (1 + 1e-9))
    throw UserError(
        fmt::format("rank {}: the model counts {:.6g} flops, which take at least {:.6g} s at the peak flop rate of "
                    "{} ({:.6g} flop/s per core), but its predicted time is {:.6g} s: more flops than peak x time",
                    c.rank, flops, at_peak_s, g.name.empty() ? "the machine's nodes" : "node group '" + g.name + "'",
                    g.flops_per_core_for(machine::Precision::Double, true), rp.time_s),
        {}, "check the machine's flop rates (flops_per_core is the peak; a scalar rate cannot exceed it) and the "
            "model's counts (perfcast model show)");
}

}  // namespace

int priced_loop_count(const ProgramModel& model) {
  std::set<std::string> reachable;
  if (!model.functions.count(model.entry)) return 0;
  reachable.insert(model.entry);
  collect_reachable(model, model.functions.at(model.entry).body, reachable);
  int n = 0;
  for (const auto& name : reachable) n += count_priced(model.functions.at(name).body, false);
  return n;
}

// The streams a site's loop walks, as the machine's overlap table counts them.
// A stream that follows another along the same array close enough that the
// bytes it reuses are still in L1 (its gap times the streams bringing new
// bytes, the leaders, within L1's size: Kerncraft's layer condition) counts
// half: on a Zen 5, for instance, five loads of one array from
// DRAM cost serial fraction 0.11 adjacent, 0.49 at 512 bytes apart (reused
// from L1) and 0.9 at 16 KiB (reused from L2), the same loads and traffic.
double effective_streams(const SiteCounts& c, const machine::NodeGroup& g, int streaming) {
  if (c.streams <= 0) return 0;
  double leaders = c.streams - static_cast<double>(c.follower_gaps_bytes.size());
  auto l1 = g.memory.size() > 1 ? g.memory.front().capacity_per_core_bytes(streaming) : std::nullopt;
  if (!l1 || leaders < 1) return c.streams;
  int near = 0;
  for (double gap : c.follower_gaps_bytes)
    if (gap * leaders <= *l1) ++near;
  return c.streams - 0.5 * near;
}

std::vector<SitePrediction> price_sites(const RankCounts& counts, const machine::NodeGroup& g, int ranks_on_node,
                                        const PredictOptions& options) {
  // Every rank on the node computes at once (Pricing's contract for predict):
  // at most the node's cores at a time, each rank for its share of its core.
  return price_sites(counts, g, machine::Pricing::node_load(g, ranks_on_node, ranks_on_node), options);
}

std::vector<SitePrediction> price_sites(const RankCounts& counts, const machine::NodeGroup& g,
                                        const machine::NodeLoad& load, const PredictOptions& options) {
  using machine::Pricing;
  const double peak_double = g.flops_per_core_for(machine::Precision::Double, options.simd);
  const double peak_single = g.flops_per_core_for(machine::Precision::Single, options.simd);
  const machine::MemoryLevel* forced =
      options.memory_level == "auto" ? nullptr : level_named(g, options.memory_level);
  auto level_of = [&](const MemoryTraffic& t) -> const machine::MemoryLevel& {
    return t.working_set_bytes ? *g.memory_level_for(*t.working_set_bytes, load.streaming).level
                               : g.outermost_level();
  };

  std::vector<SitePrediction> out;
  out.reserve(counts.sites.size());
  for (const SiteCounts& c : counts.sites) {
    SitePrediction s;
    s.function = c.function;
    s.line = c.line;
    s.note = c.note;
    s.streams = c.streams;
    // Compute: math calls become flops of their precision.
    double math_double = 0, math_single = 0;
    for (const auto& [name, calls] : c.math_calls) {
      bool single = is_single_precision_math(name);
      double f = calls * g.math.flops(math_base(name), single ? machine::Precision::Single : machine::Precision::Double);
      (single ? math_single : math_double) += f;
    }
    s.flops = c.flops_double + c.flops_single + math_double + math_single;
    s.bytes = c.load_bytes + c.store_bytes;
    // In-core work at the clock the node's busy cores leave, for the rank's
    // share of its core.
    auto busy = [&](double alone_s) { return Pricing::in_core_s(g, alone_s, load); };
    s.compute_s = busy(Pricing::flops_s(g, c.flops_double + math_double, c.flops_single + math_single, options.simd));
    s.cycles = c.cycles;
    s.in_core_s = s.compute_s;
    if (g.clock_Hz) s.off_ports_s = busy(c.off_ports_cycles / *g.clock_Hz);
    if (g.clock_Hz && c.cycles > 0)
      s.in_core_s = busy(c.cycles / *g.clock_Hz + (c.flops_double - c.cycle_flops_double + math_double) / peak_double +
                         (c.flops_single - c.cycle_flops_single + math_single) / peak_single);

    // Memory: every rank on the node streams at once, so each gets its share.
    // Two limits on a site's traffic: the core's own (what one core streams
    // alone: its misses in flight, which in-core work partly takes from, hence
    // the serial fraction) and the node's share (node bandwidth over the ranks
    // streaming at once: a queue that in-core work hides behind entirely).
    double core_traffic_s = 0;
    std::vector<std::pair<const machine::MemoryLevel*, double>> alone;  // per segment: its level, its time alone
    for (const auto& t : c.memory) {
      double bytes = t.load_bytes + t.store_bytes;
      if (bytes == 0) continue;
      const machine::MemoryLevel& level = level_of(t);
      double at_level_s = Pricing::traffic_s(level, bytes, load);
      if (t.traffic == Traffic::Covered) {
        s.l1_access_s += Pricing::traffic_s(g.memory.front(), bytes, load);
      } else {
        s.traffic_s += at_level_s;
        double alone_s = bytes / level.bandwidth_Bps * load.time_share;
        core_traffic_s += alone_s;
        alone.emplace_back(&level, alone_s);
      }
      if (t.traffic != Traffic::Footprint)
        s.memory_s += forced ? Pricing::traffic_s(*forced, bytes, load) : at_level_s;
    }
    s.memory_bound = s.memory_s > s.compute_s;
    s.time_s = Pricing::roofline_s(s.compute_s, s.memory_s);
    double core = std::max(s.in_core_s, s.l1_access_s);
    // Each level's fraction for this site's streams and its in-core time over
    // its traffic (where the machine measured them so), weighted by its time.
    s.effective_streams = effective_streams(c, g, load.streaming);
    double serial_weighted = 0;
    for (const auto& [level, alone_s] : alone)
      serial_weighted +=
          level->serial_fraction_for(s.effective_streams, core_traffic_s > 0 ? core / core_traffic_s : 0) * alone_s;
    s.serial_fraction = core_traffic_s > 0 ? serial_weighted / core_traffic_s : 0;
    s.core_traffic_s = core_traffic_s;
    s.refined_s = site_time_with_core_stretched(s, 1);
    out.push_back(std::move(s));
  }
  return out;
}

double site_time_with_core_stretched(const SitePrediction& s, double core_stretch) {
  const double core = std::max(s.in_core_s, s.l1_access_s) * core_stretch;
  const double alone = s.core_traffic_s;
  return std::max(std::max(core, alone) + s.serial_fraction * std::min(core, alone), s.traffic_s);
}

namespace {

// The quantiles a site's in-core work is stretched by: its mix of port and
// off-port work (Noise::stretch_of).
std::vector<double> site_stretch(const SitePrediction& s, const machine::Noise& noise) {
  const double core = std::max(s.in_core_s, s.l1_access_s);
  return noise.stretch_of(core > 0 ? s.off_ports_s / core : 0);
}

}  // namespace

std::vector<double> site_time_by_noise_quantile(const SitePrediction& s, const machine::Noise& noise) {
  std::vector<double> time = site_stretch(s, noise);
  for (double& t : time) t = site_time_with_core_stretched(s, t);
  return time;
}

machine::Noise noise_of_rank(const RankPrediction& rp, const machine::Noise& noise) {
  if (noise.empty() || rp.refined_time_s <= 0) return noise;
  const size_t quantiles = noise.stretch.size();
  std::vector<double> time(quantiles, 0);
  for (const SitePrediction& s : rp.sites) {
    if (s.refined_s <= 0) continue;
    const std::vector<double> site_time = site_time_by_noise_quantile(s, noise);
    for (size_t q = 0; q < quantiles; ++q) time[q] += site_time[q];
  }
  for (size_t q = 0; q < quantiles; ++q) time[q] += rp.refined_comm_s * noise.stretch[q];
  machine::Noise out = noise;
  for (size_t q = 0; q < quantiles; ++q) out.stretch[q] = time[q] / rp.refined_time_s;
  // Sums of ascending quantiles ascend; rounding must not unsort them.
  std::sort(out.stretch.begin(), out.stretch.end());
  return out;
}

double sync_points_of(const RankCounts& counts, int np) {
  double points = 0;
  for (const auto& call : counts.mpi) {
    if (call.calls <= 0) continue;
    const mpi::OpFacts& f = mpi::facts(call.op);
    const bool collective = f.cls == mpi::OpClass::Collective || mpi::creates_communicator(call.op);
    // Recv, Sendrecv and Probe: the blocking point-to-point calls that do not only send.
    const bool receives = f.blocking && f.cls == mpi::OpClass::PointToPoint && (f.receives || !f.sends);
    const bool waits = f.blocking && f.cls == mpi::OpClass::Completion;
    if (call.peer && *call.peer < 0) continue;  // MPI_PROC_NULL waits for no one
    if ((collective && np > 1) || receives || waits) points += call.calls;
  }
  return points;
}

namespace {

// Prices each rank's counts (`counts_of(rank)`) on the machine: every
// estimate predict gives, from whatever counts the caller evaluated.
Prediction price_counts(const ProgramModel& model, const SymbolicCosts& costs, const machine::Machine& m, int np,
                        const std::function<RankCounts(int rank)>& counts_of, const PredictOptions& options) {
  if (np < 1) throw UserError("the number of ranks must be at least 1", {}, "set --np");
  if (options.memory_level != "auto") {
    for (const auto& g : m.groups)
      if (!level_named(g, options.memory_level))
        throw UserError(fmt::format("machine '{}' has no memory level '{}'", m.name, options.memory_level), {},
                        "use --memory auto, or a level the machine file lists (L1, L2, L3, DRAM)");
  }

  Prediction p;
  p.np = np;
  p.mca_cpu = model.mca_cpu;
  p.mca_loops = priced_loop_count(model);
  std::string no_clock;
  for (const auto& g : m.groups)
    if (!g.clock_Hz) no_clock = g.name.empty() ? "the machine's nodes" : "node group '" + g.name + "'";
  if (p.mca_loops == 0) {
    p.mca_note = "the model has no loop with cycles_per_iteration (analyse with MCA on)";
  } else if (!no_clock.empty()) {
    p.mca_note = fmt::format("machine '{}': {} give no clock, so cycles cannot become seconds", m.name, no_clock);
  } else {
    p.mca_available = true;
  }
  const machine::Pricing pricing(m, np);
  p.placement = pricing.placement();

  for (int r = 0; r < np; ++r) {
    RankPrediction rp;
    rp.node = pricing.node(r);
    rp.ranks_on_node = pricing.ranks_on_node(rp.node);
    const machine::NodeGroup& g = m.group_of_node(rp.node);
    rp.counts = counts_of(r);
    const RankCounts& c = rp.counts;
    rp.sites = price_sites(c, g, rp.ranks_on_node, options);

    // The whole rank: sums over its sites (every term is additive).
    for (const auto& s : rp.sites) {
      rp.flops += s.flops;
      rp.compute_s += s.compute_s;
      rp.memory_s += s.memory_s;
      rp.in_core_s += s.in_core_s;
      rp.l1_access_s += s.l1_access_s;
      rp.traffic_s += s.traffic_s;
      rp.refined_time_s += s.refined_s;
    }
    rp.math_flops = rp.flops - c.flops_double - c.flops_single;
    rp.instruction_flops = c.flops_double + c.flops_single;
    for (const char* native : {"sqrt", "sqrtf"})
      if (auto it = c.math_calls.find(native); it != c.math_calls.end()) rp.instruction_flops += it->second;
    const machine::NodeLoad load = machine::Pricing::node_load(g, rp.ranks_on_node, rp.ranks_on_node);
    for (const auto& level : g.memory)
      rp.memory_s_if_all_in[level.name] = machine::Pricing::traffic_s(level, c.load_bytes + c.store_bytes, load);

    // Peers this rank receives from: a message it sends to one of them goes
    // both ways, an exchange, priced at the machine's exchange step where it
    // measured one (1.4-1.5x the one-way time for small messages here).
    std::set<long long> receives_from;
    for (const auto& call : c.mpi)
      if (mpi::facts(call.op).receives && call.calls > 0 && call.peer && *call.peer >= 0)
        receives_from.insert(*call.peer);

    // Network: every call costs the library's overhead (LogP o: a call to
    // MPI_PROC_NULL or a wait costs it too); each message also its latency and
    // transfer, priced between this rank's node and its peer's; collectives
    // (communicator creation among them: an allreduce of the context id, as
    // the simulator prices it) and unknown peers at the job's figures
    // (Pricing::job_latency_s: the node's own when every rank sits on one, as
    // the simulator's algorithms price their messages there; else the
    // inter-node ones).
    for (const auto& call : c.mpi) {
      // A call on a path this rank does not take (`if (rank < size - 1)
      // MPI_Send(..., rank + 1, ...)` on the last rank): its peer is never
      // addressed, so it is not checked.
      if (call.calls <= 0) continue;
      if (call.op == mpi::Op::Pcontrol) continue;  // a tool's hook: the library does nothing
      rp.overhead_s += call.calls * pricing.overhead_s();
      const bool send = mpi::facts(call.op).sends;
      const bool creates = mpi::creates_communicator(call.op);
      const bool collective = mpi::facts(call.op).cls == mpi::OpClass::Collective || creates;
      if (!send && !collective) continue;
      if (call.peer && *call.peer < 0) continue;  // MPI_PROC_NULL moves nothing
      if (collective && np == 1) continue;        // a communicator of one moves nothing
      const double bytes = creates ? mpi::kContextIdBytes : call.bytes_per_call;
      double latency = pricing.job_latency_s(), bandwidth = pricing.job_bandwidth_Bps();
      // The refined prediction's price of one call: what the machine file
      // measured where it has it (a collective's table; a message's one-way
      // time by size within a node), else the same latency + size / bandwidth.
      std::optional<double> measured;
      if (send && call.peer) {
        if (*call.peer >= np)
          throw ModelItemError(model.file, call.function, call.line,
                               fmt::format("rank {} sends to rank {}, but the job has {} ranks", r, *call.peer, np));
        int peer = static_cast<int>(*call.peer);
        latency = pricing.latency_s(r, peer);
        bandwidth = pricing.bandwidth_Bps(r, peer);
        measured = pricing.message_s(r, peer, bytes);
        if (receives_from.count(peer))
          if (auto exchange = pricing.exchange_s(r, peer, bytes)) {
            measured = exchange;
            rp.exchange_messages += call.calls;
          }
      } else if (collective) {
        measured = pricing.collective_s(call.op, np, bytes);
      }
      rp.latency_s += call.calls * latency;
      rp.transfer_s += call.calls * bytes / bandwidth;
      rp.refined_comm_s += call.calls * measured.value_or(latency + bytes / bandwidth);
    }
    const double comm_s = rp.overhead_s + rp.latency_s + rp.transfer_s;
    rp.refined_comm_s += rp.overhead_s;

    rp.memory_bound = rp.memory_s > rp.compute_s;
    rp.time_s = machine::Pricing::roofline_s(rp.compute_s, rp.memory_s) + comm_s;
    if (p.mca_available) {
      rp.mca_cycles = c.cycles;
      rp.mca_flops = c.cycle_flops_double + c.cycle_flops_single;
      rp.mca_time_s = std::max(rp.in_core_s, rp.memory_s) + comm_s;
    } else {
      rp.in_core_s = rp.compute_s;
    }
    rp.footprint_time_s = std::max({rp.in_core_s, rp.l1_access_s, rp.traffic_s}) + comm_s;
    rp.refined_time_s += rp.refined_comm_s;
    refuse_flops_beyond_peak(rp, g);
    p.ranks.push_back(std::move(rp));
  }

  for (const auto& seg : costs.memory) p.footprint_available |= seg.traffic == Traffic::Footprint;
  for (const auto& rp : p.ranks)
    if (p.footprint_available && !rp.counts.footprint_error.empty()) {
      p.footprint_available = false;
      p.footprint_note = fmt::format("rank {}: a loop footprint does not evaluate ({})", rp.counts.rank,
                                     rp.counts.footprint_error);
    }
  for (const auto& rp : p.ranks) {
    p.mca_time_s = std::max(p.mca_time_s, rp.mca_time_s);
    p.footprint_time_s = std::max(p.footprint_time_s, rp.footprint_time_s);
    if (rp.refined_time_s > p.refined_time_s) {
      p.refined_time_s = rp.refined_time_s;
      p.refined_slowest_rank = rp.counts.rank;
    }
    if (rp.time_s > p.predicted_time_s) {
      p.predicted_time_s = rp.time_s;
      p.slowest_rank = rp.counts.rank;
    }
    for (const auto& [level, mem_s] : rp.memory_s_if_all_in) {
      double t = std::max(rp.compute_s, mem_s) + rp.overhead_s + rp.latency_s + rp.transfer_s;
      double& worst = p.time_s_if_all_in[level];
      worst = std::max(worst, t);
    }
  }
  // A time past a double's range (a latency of 1e308 s, counts that overflow)
  // is no prediction: refused, where a report would print it as null.
  for (auto [name, t] : {std::pair{"plain", p.predicted_time_s}, std::pair{"refined", p.refined_time_s}})
    if (!std::isfinite(t))
      throw UserError(fmt::format("the {} prediction of rank {} overflows ({}): a time past the range of a double",
                                  name, name == std::string("plain") ? p.slowest_rank : p.refined_slowest_rank, t),
                      {}, "check the machine's figures (--set) and the parameters' sizes");
  for (const auto& l : m.group_of_node(p.ranks[static_cast<size_t>(p.slowest_rank)].node).memory)
    p.level_names.push_back(l.name);

  // Each rank's own noise: its sites stretched by their mix of port- and
  // divider-bound work, its communication as the ports' (the cores' copies),
  // then averaged over the quanta of one of its steps: the ranks meet at their
  // sync points, so the slowest of them is taken step by step.
  std::vector<machine::Noise> rank_noise;
  rank_noise.reserve(p.ranks.size());
  for (auto& rp : p.ranks) {
    const machine::Noise& noise = m.group_of_node(rp.node).noise;
    p.noise_available |= !noise.empty();
    rp.sync_points = sync_points_of(rp.counts, np);
    rp.noise_step_s = rp.refined_time_s / std::max(1.0, rp.sync_points);
    const machine::Noise own = noise_of_rank(rp, noise);
    if (!own.stretch.empty())
      p.noisy_slowest_state_time_s = std::max(p.noisy_slowest_state_time_s, rp.refined_time_s * *std::max_element(own.stretch.begin(), own.stretch.end()));
    rank_noise.push_back(machine::noise_over_span(own, rp.noise_step_s));
    for (auto& site : rp.sites) {
      if (noise.empty()) continue;
      const std::vector<double> stretch = site_stretch(site, noise);
      double sum = 0;
      for (double x : stretch) sum += x;
      site.noise_stretch = sum / static_cast<double>(stretch.size());
      if (!noise.divider_stretch.empty()) p.noise_off_ports_priced |= site.off_ports_s > 0;
    }
  }
  std::vector<const machine::Noise*> noise_of_ranks;
  for (const auto& n : rank_noise) noise_of_ranks.push_back(&n);
  p.noise_stretch = machine::expected_slowest_stretch(noise_of_ranks);
  p.noisy_time_s = p.refined_time_s * p.noise_stretch;
  return p;
}

}  // namespace

Prediction predict(const ProgramModel& model, const SymbolicCosts& costs, const machine::Machine& m, int np,
                   const std::map<std::string, expr::Value>& parameters, const PredictOptions& options) {
  return price_counts(
      model, costs, m, np, [&](int r) { return evaluate_rank(costs, bind_rank(model, parameters, r, np), r); },
      options);
}

Prediction predict_timed_part(const ProgramModel& model, const ProgramModel& baseline_model,
                              const SymbolicCosts& costs, const machine::Machine& m, int np,
                              const std::map<std::string, expr::Value>& parameters,
                              const std::map<std::string, expr::Value>& baseline_parameters,
                              const PredictOptions& options) {
  return price_counts(
      model, costs, m, np,
      [&](int r) {
        const expr::Bindings run = bind_rank(model, parameters, r, np);
        const expr::Bindings baseline = bind_rank(baseline_model, baseline_parameters, r, np);
        return counts_difference(evaluate_rank(costs, run, r), evaluate_rank(costs, baseline, r), run, baseline);
      },
      options);
}

double prediction_bytes(const SymbolicCosts& costs, double np) {
  const double sites = static_cast<double>(costs.sites.size());
  const double calls = static_cast<double>(costs.mpi.size());
  // Per rank: its records, each site's counts and prices, each MPI site; the
  // JSON a report builds holds each of those again as a few dozen fields
  // (about 60 bytes each in nlohmann's tree).
  const double records = sizeof(RankPrediction) + sizeof(RankCounts) +
                         sites * (sizeof(SitePrediction) + sizeof(SiteCounts) + 2 * sizeof(MemoryTraffic)) +
                         calls * sizeof(MpiCalls);
  const double json = 60.0 * (30 + 25 * sites + 8 * calls);
  return np * (records + json);
}

}  // namespace perfcast::model
