#include "signature/signature_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "support/error.h"

namespace perfcast::signature {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

events::PatternEvent pattern_of(const BlockEvent& b) {
  events::PatternEvent p;
  p.kind = b.kind;
  p.comm = b.comm;
  p.peer_offset = b.peer_offset;
  p.source_offset = b.source_offset;
  p.root = b.root;
  p.proc_null = b.proc_null;
  p.bytes = b.bytes;
  p.bytes2 = b.bytes2;
  p.requests = b.requests;
  return p;
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

}  // namespace

events::PhasePatterns phase_patterns(const Signature& s, std::optional<int> warmup, int measured, bool match_bytes) {
  if (warmup && *warmup < 0)
    throw UserError(fmt::format("{} warm-up occurrences", *warmup), {}, "give --warmup auto, 0 or more");
  if (measured < 1) throw UserError(fmt::format("{} measured occurrences", measured), {}, "give --measure 1 or more");
  events::PhasePatterns out;
  out.ranks = s.ranks;
  out.measured = measured;
  out.match_bytes = match_bytes;
  out.by_rank.resize(static_cast<std::size_t>(s.ranks));
  for (const Phase& phase : s.phases) {
    if (!phase.relevant) continue;
    for (auto& rank : out.by_rank) rank.push_back({phase.id, warmup.value_or(phase.representative), {}});
    for (const Block& block : phase.blocks)
      for (const BlockEvent& b : block) {
        if (b.rank < 0 || b.rank >= s.ranks)
          throw UserError(
              fmt::format("phase {} has an event of rank {} in a signature of {} ranks", phase.id, b.rank, s.ranks));
        events::PatternEvent e = pattern_of(b);
        if (!match_bytes) e.bytes = e.bytes2 = 0;
        out.by_rank[static_cast<std::size_t>(b.rank)].back().events.push_back(e);
      }
  }
  if (out.by_rank.empty() || out.by_rank.front().empty())
    throw UserError("the signature has no relevant phase: there is nothing to run", {s.trace},
                    "build it again from a run whose loop repeats (signature build)");
  return out;
}

std::vector<events::RankMeasurement> read_measurements(const fs::path& dir, int ranks) {
  std::vector<events::RankMeasurement> out;
  for (int r = 0; r < ranks; ++r) {
    fs::path file = dir / events::phase_measurement_file_name(r);
    std::ifstream in(file);
    if (!in) continue;
    std::stringstream text;
    text << in.rdbuf();
    out.push_back(events::parse_measurement(text.str(), file.string()));
  }
  return out;
}

RunPrediction predict_from_measurements(const Signature& s, const events::PhasePatterns& patterns,
                                        const std::vector<events::RankMeasurement>& measured) {
  RunPrediction out;
  out.ranks = s.ranks;
  out.remainder_s = s.remainder_s;
  out.signature_predicted_s = s.predicted_total_s;
  std::vector<const events::RankMeasurement*> by_rank(static_cast<std::size_t>(s.ranks), nullptr);
  for (const auto& m : measured)
    if (!m.error.empty()) throw UserError(fmt::format("rank {}: the tracer stopped: {}", m.rank, m.error));
  for (const auto& m : measured) {
    if (m.ranks != s.ranks || m.rank < 0 || m.rank >= s.ranks)
      throw UserError(
          fmt::format("a measurement of rank {} of {} for a signature of {} ranks", m.rank, m.ranks, s.ranks));
    if (!m.error.empty()) throw UserError(fmt::format("rank {}: the tracer stopped: {}", m.rank, m.error));
    by_rank[static_cast<std::size_t>(m.rank)] = &m;
  }
  std::vector<int> missing;
  for (int r = 0; r < s.ranks; ++r)
    if (!by_rank[static_cast<std::size_t>(r)]) missing.push_back(r);
  if (!missing.empty())
    throw UserError(
        fmt::format("rank{} {} wrote no measurements (the rank died before MPI_Finalize, or the run "
                    "was not the signature's program)",
                    missing.size() == 1 ? "" : "s", fmt::join(missing, ", ")));

  const auto& phase_list = patterns.by_rank.front();
  const std::size_t phases = phase_list.size();
  // means[r][p]: rank r's mean timed occurrence of phase p; absent when it timed none.
  std::vector<std::vector<std::optional<double>>> means(static_cast<std::size_t>(s.ranks));
  out.phases.resize(phases);
  for (std::size_t p = 0; p < phases; ++p) {
    PhaseEstimate& e = out.phases[p];
    e.phase = phase_list[p].phase;
    e.warmup = phase_list[p].warmup;
    auto it = std::find_if(s.phases.begin(), s.phases.end(), [&](const Phase& ph) { return ph.id == e.phase; });
    if (it == s.phases.end()) throw UserError(fmt::format("phase {} is not in the signature", e.phase));
    e.weight = it->weight;
    e.signature_per_occurrence_s = it->time_per_occurrence_s;
  }
  out.complete = true;
  for (int r = 0; r < s.ranks; ++r) {
    const auto& m = *by_rank[static_cast<std::size_t>(r)];
    if (m.phases.size() != phases)
      throw UserError(fmt::format("rank {}: measured {} phases, the signature runs {} (a file of another run)", r,
                                  m.phases.size(), phases));
    auto& mine = means[static_cast<std::size_t>(r)];
    mine.resize(phases);
    for (std::size_t p = 0; p < phases; ++p) {
      const auto& t = m.phases[p];
      PhaseEstimate& e = out.phases[p];
      if (t.phase != e.phase)
        throw UserError(
            fmt::format("rank {}: measured phase {} where the signature runs phase {}", r, t.phase, e.phase));
      bool takes_part = !patterns.by_rank[static_cast<std::size_t>(r)][p].events.empty();
      if (!takes_part) continue;
      if (t.times_s.size() < static_cast<std::size_t>(patterns.measured)) out.complete = false;
      if (t.times_s.empty()) {
        e.unmeasured_ranks.push_back(r);
        continue;
      }
      mine[p] = mean(t.times_s);
      for (double x : t.times_s) {
        e.min_s = e.timed ? std::min(e.min_s, x) : x;
        e.max_s = e.timed ? std::max(e.max_s, x) : x;
        ++e.timed;
      }
    }
  }
  // A rank that timed no occurrence of a phase takes the other ranks' mean, or
  // the signature's time where no rank timed one.
  std::vector<double> fallback(phases);
  for (std::size_t p = 0; p < phases; ++p) {
    double sum = 0;
    int n = 0;
    for (const auto& mine : means)
      if (mine[p]) sum += *mine[p], ++n;
    fallback[p] = n ? sum / n : out.phases[p].signature_per_occurrence_s;
    if (!out.phases[p].unmeasured_ranks.empty()) out.missing_phases.push_back(out.phases[p].phase);
  }
  out.rank_predicted_s.resize(static_cast<std::size_t>(s.ranks));
  for (int r = 0; r < s.ranks; ++r) {
    const auto& m = *by_rank[static_cast<std::size_t>(r)];
    double total = m.init_s.value_or(s.initialization_s) + s.remainder_s;
    for (std::size_t p = 0; p < phases; ++p) {
      if (patterns.by_rank[static_cast<std::size_t>(r)][p].events.empty()) continue;
      total += static_cast<double>(out.phases[p].weight) * means[static_cast<std::size_t>(r)][p].value_or(fallback[p]);
    }
    out.rank_predicted_s[static_cast<std::size_t>(r)] = total;
    if (total > out.rank_predicted_s[static_cast<std::size_t>(out.slowest_rank)]) out.slowest_rank = r;
  }
  out.predicted_s = out.rank_predicted_s[static_cast<std::size_t>(out.slowest_rank)];
  const auto& slowest = *by_rank[static_cast<std::size_t>(out.slowest_rank)];
  out.initialization_measured = slowest.init_s.has_value();
  out.initialization_s = slowest.init_s.value_or(s.initialization_s);
  for (std::size_t p = 0; p < phases; ++p) {
    PhaseEstimate& e = out.phases[p];
    if (patterns.by_rank[static_cast<std::size_t>(out.slowest_rank)][p].events.empty()) continue;
    e.per_occurrence_s = means[static_cast<std::size_t>(out.slowest_rank)][p].value_or(fallback[p]);
    e.contribution_s = static_cast<double>(e.weight) * e.per_occurrence_s;
    e.share = out.predicted_s > 0 ? e.contribution_s / out.predicted_s : 0;
  }
  return out;
}

json to_json(const RunPrediction& p) {
  json phases = json::array();
  for (const auto& e : p.phases) {
    json j = {{"phase", e.phase},
              {"weight", e.weight},
              {"warmup", e.warmup},
              {"measured", e.measured()},
              {"per_occurrence_s", e.per_occurrence_s},
              {"signature_per_occurrence_s", e.signature_per_occurrence_s},
              {"timed", e.timed},
              {"contribution_s", e.contribution_s},
              {"share", e.share},
              {"unmeasured_ranks", e.unmeasured_ranks}};
    if (e.measured()) {
      j["min_s"] = e.min_s;
      j["max_s"] = e.max_s;
    }
    phases.push_back(std::move(j));
  }
  return {{"ranks", p.ranks},
          {"slowest_rank", p.slowest_rank},
          {"initialization_s", p.initialization_s},
          {"initialization_measured", p.initialization_measured},
          {"remainder_s", p.remainder_s},
          {"phases", std::move(phases)},
          {"rank_predicted_s", p.rank_predicted_s},
          {"predicted_s", p.predicted_s},
          {"signature_predicted_s", p.signature_predicted_s},
          {"missing_phases", p.missing_phases},
          {"complete", p.complete}};
}

}  // namespace perfcast::signature
