#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "model/costs.h"
#include "support/error.h"

namespace perfcast::model {

namespace {

// What a refusal says about why the two counts differ: the bindings that differ.
std::string differing_text(const expr::Bindings& run, const expr::Bindings& baseline) {
  std::string out;
  int shown = 0, more = 0;
  for (const auto& [name, value] : run) {
    auto it = baseline.find(name);
    if (it == baseline.end() || it->second == value) continue;
    if (shown == 6) {
      ++more;
      continue;
    }
    out +=
        fmt::format("{}{} = {} in the run, {} in the baseline", shown ? "; " : "", name, value.str(), it->second.str());
    ++shown;
  }
  if (more) out += fmt::format("; {} more", more);
  return out.empty() ? "no parameter differs" : out;
}

struct Subtract {
  int rank;
  const expr::Bindings& run_bindings;
  const expr::Bindings& baseline_bindings;

  // run - baseline, >= 0. Counts are doubles evaluated from expressions: a
  // difference within rounding of zero is zero, a larger negative one means
  // the baseline does more of this work than the run, and no price of "the
  // timed part" could mean anything.
  double operator()(double run, double baseline, std::string_view what, const std::string& where) const {
    const double d = run - baseline;
    if (d >= 0) return d;
    if (-d <= 1e-9 * std::max(std::abs(run), std::abs(baseline))) return 0;
    throw UserError(fmt::format("the timed part (the run minus the baseline) of {} of {} on rank {} is negative: the "
                                "baseline counts {:.6g}, the run {:.6g} ({})",
                                what, where, rank, baseline, run, differing_text(run_bindings, baseline_bindings)),
                    {},
                    "give a baseline that does less of every part of the work than the run (--baseline-param, e.g. "
                    "fewer time steps)");
  }
};

std::string site_where(const SiteCounts& s) {
  return s.line ? fmt::format("{} (line {})", s.function, s.line) : s.function;
}

std::string call_where(const MpiCalls& c) {
  return c.line ? fmt::format("{} in {} (line {})", mpi::name(c.op), c.function, c.line)
                : fmt::format("{} in {}", mpi::name(c.op), c.function);
}

const char* traffic_name(Traffic t) {
  switch (t) {
    case Traffic::Access: return "accesses";
    case Traffic::Covered: return "covered accesses";
    case Traffic::Footprint: return "footprint";
  }
  return "?";
}

// A site's segments for a refusal: kind, line and bytes of each.
std::string segments_text(const std::vector<MemoryTraffic>& memory) {
  std::string out;
  for (const auto& t : memory)
    out += fmt::format("{}{} at line {} ({:.6g} B loaded, {:.6g} B stored{})", out.empty() ? "" : "; ",
                       traffic_name(t.traffic), t.line, t.load_bytes, t.store_bytes,
                       t.working_set_bytes ? fmt::format(", working set {:.6g} B", *t.working_set_bytes) : "");
  return out.empty() ? "none" : out;
}

// A site's memory segments as evaluate_rank leaves them when a footprint did
// not evaluate: no footprint segments, every other segment priced as accesses.
std::vector<MemoryTraffic> without_footprints(const std::vector<MemoryTraffic>& memory) {
  std::vector<MemoryTraffic> out;
  for (const auto& t : memory) {
    if (t.traffic == Traffic::Footprint) continue;
    out.push_back(t);
    out.back().traffic = Traffic::Access;
  }
  return out;
}

// The same segments in the same order: what a site evaluates to on both
// sides unless a footprint evaluated on one side only.
bool same_segments(const std::vector<MemoryTraffic>& a, const std::vector<MemoryTraffic>& b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](const MemoryTraffic& x, const MemoryTraffic& y) {
           return x.traffic == y.traffic && x.line == y.line;
         });
}

}  // namespace

RankCounts counts_difference(const RankCounts& run, const RankCounts& baseline, const expr::Bindings& run_bindings,
                             const expr::Bindings& baseline_bindings) {
  if (run.sites.size() != baseline.sites.size() || run.mpi.size() != baseline.mpi.size())
    throw UserError(
        fmt::format("rank {}: the run and the baseline were evaluated from different costs ({} and {} "
                    "sites, {} and {} MPI calls)",
                    run.rank, run.sites.size(), baseline.sites.size(), run.mpi.size(), baseline.mpi.size()));
  const Subtract sub{run.rank, run_bindings, baseline_bindings};
  RankCounts d;
  d.rank = run.rank;
  // A footprint that did not evaluate in the run is off for the difference
  // too (evaluate_rank has priced that site's accesses instead).
  d.footprint_error = run.footprint_error;

  for (size_t i = 0; i < run.sites.size(); ++i) {
    const SiteCounts& r = run.sites[i];
    const SiteCounts& b = baseline.sites[i];
    const std::string where = site_where(r);
    // The shape of the site is the run's: its address streams and their gaps
    // say how the timed loop walks memory, whatever the baseline does.
    SiteCounts s = r;
    s.flops_double = sub(r.flops_double, b.flops_double, "double-precision flops", where);
    s.flops_single = sub(r.flops_single, b.flops_single, "single-precision flops", where);
    s.loads = sub(r.loads, b.loads, "loads", where);
    s.stores = sub(r.stores, b.stores, "stores", where);
    s.load_bytes = sub(r.load_bytes, b.load_bytes, "loaded bytes", where);
    s.store_bytes = sub(r.store_bytes, b.store_bytes, "stored bytes", where);
    for (auto& [name, calls] : s.math_calls) {
      auto it = b.math_calls.find(name);
      calls = sub(calls, it == b.math_calls.end() ? 0.0 : it->second, "calls of " + name, where);
    }
    s.cycles = sub(r.cycles, b.cycles, "in-core cycles", where);
    s.off_ports_cycles = sub(r.off_ports_cycles, b.off_ports_cycles, "off-ports cycles", where);
    s.cycle_flops_double = sub(r.cycle_flops_double, b.cycle_flops_double, "flops priced in cycles", where);
    s.cycle_flops_single = sub(r.cycle_flops_single, b.cycle_flops_single, "flops priced in cycles", where);
    // Segment by segment; each keeps the run's working set, so the
    // difference's bytes come from the level the run's loop works in.
    std::vector<MemoryTraffic> run_memory = r.memory;
    std::vector<MemoryTraffic> base_memory = b.memory;
    if (!same_segments(run_memory, base_memory)) {
      // A site's footprints evaluated on one side only (evaluate_rank drops
      // them all where one does not evaluate: a bound that wraps where a
      // guard skips the nest, say, in calls that only the run's steps make).
      // A baseline that moves no byte in the site is a segment of 0 bytes
      // for each of the run's, which stays whole; otherwise both sides
      // lose the site's footprints (their accesses are the traffic), and the
      // difference says why its footprint refinement is off.
      const bool baseline_moves_nothing =
          std::all_of(base_memory.begin(), base_memory.end(),
                      [](const MemoryTraffic& t) { return t.load_bytes == 0 && t.store_bytes == 0; });
      if (baseline_moves_nothing) {
        base_memory = run_memory;
        for (auto& t : base_memory) t.load_bytes = t.store_bytes = 0;
      } else {
        run_memory = without_footprints(run_memory);
        base_memory = without_footprints(base_memory);
        if (d.footprint_error.empty())
          d.footprint_error = !baseline.footprint_error.empty()
                                  ? "in the baseline: " + baseline.footprint_error
                                  : fmt::format("{}: the run's footprints did not evaluate", where);
      }
    }
    // Both sides come from the same costs, so what is left differs only if
    // they did not: refused, naming each side's segments.
    if (!same_segments(run_memory, base_memory))
      throw UserError(
          fmt::format("rank {}: {} has other memory segments in the run than in the baseline (run: {}; "
                      "baseline: {}; {})",
                      run.rank, where, segments_text(r.memory), segments_text(b.memory),
                      differing_text(run_bindings, baseline_bindings)),
          {}, "give a baseline that differs from the run only in how often the work repeats (--baseline-param)");
    for (size_t k = 0; k < run_memory.size(); ++k) {
      run_memory[k].load_bytes = sub(run_memory[k].load_bytes, base_memory[k].load_bytes, "loaded bytes", where);
      run_memory[k].store_bytes = sub(run_memory[k].store_bytes, base_memory[k].store_bytes, "stored bytes", where);
    }
    s.memory = std::move(run_memory);

    add_site_to_rank(d, std::move(s));
  }

  for (size_t i = 0; i < run.mpi.size(); ++i) {
    const MpiCalls& r = run.mpi[i];
    const MpiCalls& b = baseline.mpi[i];
    const std::string where = call_where(r);
    MpiCalls c = r;
    c.calls = sub(r.calls, b.calls, "calls", where);
    // A call priced per call by its size and peer: the difference is those
    // calls only when both sides make the same call. A baseline that sends
    // other sizes or to other peers leaves no one call to price.
    if (r.calls > 0 && b.calls > 0) {
      const bool same_size =
          std::abs(r.bytes_per_call - b.bytes_per_call) <= 1e-9 * std::max(r.bytes_per_call, b.bytes_per_call);
      if (!same_size || r.peer != b.peer)
        throw UserError(
            fmt::format("rank {}: {} moves {:.6g} bytes a call{} in the run, {:.6g}{} in the baseline: the "
                        "difference of the two is no one call to price ({})",
                        run.rank, where, r.bytes_per_call, r.peer ? fmt::format(" with rank {}", *r.peer) : "",
                        b.bytes_per_call, b.peer ? fmt::format(" with rank {}", *b.peer) : "",
                        differing_text(run_bindings, baseline_bindings)),
            {}, "give a baseline that differs from the run only in how often the work repeats (--baseline-param)");
    }
    const double bytes = c.calls * c.bytes_per_call;
    add_call_to_rank(d, std::move(c), bytes);
  }
  return d;
}

}  // namespace perfcast::model
