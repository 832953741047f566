#include "signature/signature.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "support/error.h"
#include "support/units.h"

namespace perfcast::signature {

namespace {

using events::Kind;

bool is_rooted_kind(Kind k) { return events::is_rooted(k); }

BlockEvent block_event(int rank, const LogicalEvent& le) {
  const events::Event& e = le.event;
  BlockEvent b;
  b.rank = rank;
  b.kind = e.kind;
  b.site = e.site;
  if (events::is_point_to_point(e.kind) || events::is_collective(e.kind)) b.comm = e.comm;
  if (events::is_point_to_point(e.kind)) {
    if (e.peer >= 0) b.peer_offset = e.peer - le.comm_rank;
    b.proc_null = e.peer == events::kProcNull;
    if (e.kind == Kind::Sendrecv && e.root >= 0) b.source_offset = e.root - le.comm_rank;
    b.bytes = e.bytes;
    if (e.kind == Kind::Sendrecv) b.bytes2 = e.bytes2;
  } else if (events::is_collective(e.kind)) {
    if (is_rooted_kind(e.kind)) b.root = e.root;
    b.bytes = e.bytes;
    b.bytes2 = e.bytes2;
  } else if (events::is_completion(e.kind)) {
    b.requests = static_cast<std::uint32_t>(e.requests.size());
  }
  return b;
}

std::string key_of(const Block& block) {
  std::string key;
  for (const auto& b : block)
    key += fmt::format("{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{};", b.rank, b.proc_null, static_cast<int>(b.kind), b.comm,
                       b.peer_offset ? std::to_string(*b.peer_offset) : "-",
                       b.source_offset ? std::to_string(*b.source_offset) : "-", b.root ? std::to_string(*b.root) : "-",
                       b.bytes, b.bytes2, b.requests, b.site);
  return key;
}

// Signature::Phase::representative. A phase's ticks, in order, are its
// occurrences one after the other, `ticks` each (a loop body's inner loops are
// phases of their own, so their ticks are not among them).
std::int64_t representative_occurrence(const std::vector<double>& tick_s, std::size_t ticks, std::int64_t weight,
                                       double mean_s) {
  const auto window = static_cast<std::size_t>(kRepresentativeWindow);
  if (ticks == 0 || tick_s.size() != ticks * static_cast<std::size_t>(weight) ||
      static_cast<std::size_t>(weight) < window + 1 || mean_s <= 0)
    return 1;
  std::vector<double> occurrence_s(static_cast<std::size_t>(weight), 0);
  for (std::size_t t = 0; t < tick_s.size(); ++t) occurrence_s[t / ticks] += tick_s[t];
  std::int64_t best = 1;
  double best_deviation = -1;
  for (std::size_t i = 1; i + window <= occurrence_s.size(); ++i) {  // the first is a warm-up at least
    double sum = 0;
    for (std::size_t k = i; k < i + window; ++k) sum += occurrence_s[k];
    double deviation = std::abs(sum / static_cast<double>(window) - mean_s) / mean_s;
    if (deviation <= kRepresentativeTolerance) return static_cast<std::int64_t>(i);
    if (best_deviation < 0 || deviation < best_deviation)
      best = static_cast<std::int64_t>(i), best_deviation = deviation;
  }
  return best;
}

std::string offset_text(std::int32_t o) { return o > 0 ? fmt::format("+{}", o) : std::to_string(o); }

}  // namespace

std::vector<Block> blocks_of(const LogicalTrace& trace) {
  std::vector<Block> blocks(static_cast<std::size_t>(trace.ticks));
  for (int r = 0; r < trace.ranks; ++r)
    for (const auto& le : trace.by_rank[static_cast<std::size_t>(r)])
      blocks[static_cast<std::size_t>(le.tick - 1)].push_back(block_event(r, le));
  return blocks;
}

std::string describe(const Block& block) {
  // Events equal but for their rank are shown once, with their ranks.
  std::vector<std::pair<BlockEvent, std::vector<int>>> groups;
  for (const auto& b : block) {
    BlockEvent k = b;
    k.rank = 0;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == k; });
    if (it == groups.end())
      groups.push_back({k, {b.rank}});
    else
      it->second.push_back(b.rank);
  }
  std::string out;
  for (const auto& [b, ranks] : groups) {
    std::string s(events::kind_name(b.kind));
    if (b.peer_offset) s += " peer " + offset_text(*b.peer_offset);
    if (b.proc_null) s += " peer null";
    if (b.source_offset) s += " source " + offset_text(*b.source_offset);
    if (b.root) s += fmt::format(" root {}", *b.root);
    if (b.bytes || b.bytes2) s += " " + units::format(static_cast<double>(b.bytes), units::Dimension::Bytes, 3);
    if (b.bytes2 && b.bytes2 != b.bytes)
      s += "/" + units::format(static_cast<double>(b.bytes2), units::Dimension::Bytes, 3);
    if (b.requests) s += fmt::format(" of {} request{}", b.requests, b.requests == 1 ? "" : "s");
    if (b.comm > events::kCommSelf) s += fmt::format(" comm {}", b.comm);
    if (b.site) s += fmt::format(" at site {}", b.site);
    if (ranks.size() <= 4)
      s += fmt::format(" (rank{} {})", ranks.size() == 1 ? "" : "s", fmt::join(ranks, ","));
    else
      s += fmt::format(" ({} ranks)", ranks.size());
    out += (out.empty() ? "" : "; ") + s;
  }
  return out;
}

Signature build_signature(const LogicalTrace& trace, const BuildOptions& options) {
  if (!(options.coverage > 0 && options.coverage <= 1))
    throw UserError(fmt::format("the coverage must be in (0, 1], not {}", options.coverage), {.field = "--coverage"});
  std::vector<Block> blocks = blocks_of(trace);
  std::map<std::string, int> symbol_of;
  std::vector<int> symbols;
  std::vector<const Block*> block_of_symbol;
  for (const auto& b : blocks) {
    auto [it, added] = symbol_of.try_emplace(key_of(b), static_cast<int>(symbol_of.size()));
    if (added) block_of_symbol.push_back(&b);
    symbols.push_back(it->second);
  }
  PhaseDetection detection = detect_phases(symbols, options.algorithm);

  // The global time after tick t: the latest return of any call up to t.
  // Its increments, tick by tick, add up to the whole run.
  std::vector<double> end_at(blocks.size(), 0);
  for (const auto& rank : trace.by_rank)
    for (const auto& le : rank) {
      auto& e = end_at[static_cast<std::size_t>(le.tick - 1)];
      e = std::max(e, le.end_s);
    }
  std::vector<double> step_s(blocks.size(), 0);
  double global_s = 0;
  for (std::size_t t = 0; t < blocks.size(); ++t) {
    double next = std::max(global_s, end_at[t]);
    step_s[t] = next - global_s;
    global_s = next;
  }
  double trailing_s = std::max(0.0, trace.total_s - global_s);

  Signature s;
  s.ranks = trace.ranks;
  s.algorithm = options.algorithm;
  s.coverage = options.coverage;
  s.ticks = trace.ticks;
  s.traced_total_s = trace.total_s;
  s.calls_timed = trace.calls_timed;

  // Ids in order of first occurrence.
  std::vector<std::size_t> order(detection.phases.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return detection.phases[a].first_tick < detection.phases[b].first_tick;
  });
  std::vector<int> id_of(detection.phases.size());
  for (std::size_t i = 0; i < order.size(); ++i) id_of[order[i]] = static_cast<int>(i) + 1;

  std::vector<double> phase_s(detection.phases.size(), 0);
  std::vector<std::vector<double>> tick_s(detection.phases.size());  // each phase's ticks' increments, in order
  for (std::size_t t = 0; t < blocks.size(); ++t)
    if (int p = detection.phase_of_tick[t]; p >= 0) {
      phase_s[static_cast<std::size_t>(p)] += step_s[t];
      tick_s[static_cast<std::size_t>(p)].push_back(step_s[t]);
    }
  for (std::size_t i = 0; i < detection.phases.size(); ++i) {
    const DetectedPhase& d = detection.phases[i];
    Phase p;
    p.id = id_of[i];
    p.weight = d.weight;
    p.first_tick = d.first_tick;
    for (int sym : d.blocks) p.blocks.push_back(*block_of_symbol[static_cast<std::size_t>(sym)]);
    for (int inner : d.inner) p.inner.push_back(id_of[static_cast<std::size_t>(inner)]);
    p.time_s = phase_s[i];
    p.time_per_occurrence_s = d.weight ? p.time_s / static_cast<double>(d.weight) : 0;
    p.share = trace.total_s > 0 ? p.time_s / trace.total_s : 0;
    p.representative = representative_occurrence(tick_s[i], p.blocks.size(), p.weight, p.time_per_occurrence_s);
    s.phases.push_back(std::move(p));
  }
  std::stable_sort(s.phases.begin(), s.phases.end(), [](const Phase& a, const Phase& b) {
    return a.time_s != b.time_s ? a.time_s > b.time_s : a.id < b.id;
  });

  // Relevant: the largest phases, until they cover the asked share.
  double covered = 0;
  for (auto& p : s.phases) {
    if (trace.total_s > 0 && covered >= options.coverage * trace.total_s) break;
    p.relevant = true;
    covered += p.time_s;
  }
  s.covered_share = trace.total_s > 0 ? covered / trace.total_s : 0;

  std::vector<bool> relevant_index(detection.phases.size(), false);
  for (std::size_t i = 0; i < detection.phases.size(); ++i)
    for (const auto& p : s.phases)
      if (p.id == id_of[i]) relevant_index[i] = p.relevant;
  bool started = false;
  for (std::size_t t = 0; t < blocks.size(); ++t) {
    int p = detection.phase_of_tick[t];
    bool in_relevant = p >= 0 && relevant_index[static_cast<std::size_t>(p)];
    started = started || in_relevant;
    if (in_relevant) continue;
    (started ? s.remainder_s : s.initialization_s) += step_s[t];
  }
  s.remainder_s += trailing_s;
  s.predicted_total_s = s.initialization_s + s.remainder_s;
  for (const auto& p : s.phases)
    if (p.relevant) s.predicted_total_s += p.time_per_occurrence_s * static_cast<double>(p.weight);
  return s;
}

}  // namespace perfcast::signature
