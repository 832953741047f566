#include "trace/phase_matcher.h"

#include <algorithm>

namespace perfcast::trace {

using events::PatternEvent;

PhaseMatcher::PhaseMatcher(events::PhasePatterns patterns, int rank, double init_end_s)
    : patterns_(std::move(patterns)), rank_(rank), init_end_s_(init_end_s) {
  std::size_t longest = 0;
  const auto& mine = patterns_.by_rank.at(static_cast<std::size_t>(rank));
  for (const auto& pattern : mine) {
    Tracked t{&pattern, std::vector<std::size_t>(pattern.events.size(), 0), 0, {}};
    t.timing.phase = pattern.phase;
    const auto& p = pattern.events;
    for (std::size_t i = 1, k = 0; i < p.size(); ++i) {
      while (k > 0 && !(p[i] == p[k])) k = t.failure[k - 1];
      if (p[i] == p[k]) ++k;
      t.failure[i] = k;
    }
    longest = std::max(longest, p.size());
    tracked_.push_back(std::move(t));
  }
  ends_.assign(longest + 1, init_end_s);
  complete_ = std::all_of(tracked_.begin(), tracked_.end(), [](const Tracked& t) { return t.pattern->events.empty(); });
}

void PhaseMatcher::set_init_end(double init_end_s) {
  init_end_s_ = init_end_s;
  if (calls_ == 0) std::fill(ends_.begin(), ends_.end(), init_end_s);
}

bool PhaseMatcher::feed(const events::Event& e, int comm_rank, double end_s) {
  if (!events::op_of(e.kind) || e.kind == events::Kind::Init || e.kind == events::Kind::Finalize) return false;
  ++calls_;
  ends_[calls_ % ends_.size()] = end_s;
  PatternEvent seen = events::pattern_event(e, comm_rank);
  if (!patterns_.match_bytes) seen.bytes = seen.bytes2 = 0;
  bool was_complete = complete_;
  bool all_measured = true;
  for (auto& t : tracked_) {
    const auto& p = t.pattern->events;
    if (p.empty()) continue;
    while (t.matched > 0 && !(seen == p[t.matched])) t.matched = t.failure[t.matched - 1];
    if (seen == p[t.matched]) ++t.matched;
    if (t.matched == p.size()) {
      t.matched = 0;  // occurrences do not overlap, as the signature counts them
      double start_s = ends_[(calls_ - p.size()) % ends_.size()];
      if (first_start_s_ < 0 || start_s < first_start_s_) first_start_s_ = start_s;
      ++t.timing.occurrences;
      if (t.timing.occurrences > static_cast<std::uint64_t>(t.pattern->warmup)) {
        double time_s = std::max(0.0, end_s - start_s);
        if (t.timing.times_s.size() < static_cast<std::size_t>(patterns_.measured)) t.timing.times_s.push_back(time_s);
        t.timing.all_s += time_s;
        ++t.timing.all_count;
      }
    }
    if (t.timing.times_s.size() < static_cast<std::size_t>(patterns_.measured)) all_measured = false;
  }
  complete_ = was_complete || all_measured;
  if (complete_ && !was_complete) complete_at_s_ = std::max(0.0, end_s - init_end_s_);
  return complete_ && !was_complete;
}

events::RankMeasurement PhaseMatcher::measurement() const {
  events::RankMeasurement m;
  m.rank = rank_;
  m.ranks = patterns_.ranks;
  m.complete = complete_;
  m.calls = calls_;
  if (complete_at_s_ >= 0) m.complete_at_s = complete_at_s_;
  if (first_start_s_ >= 0) m.init_s = std::max(0.0, first_start_s_ - init_end_s_);
  for (const auto& t : tracked_) m.phases.push_back(t.timing);
  return m;
}

}  // namespace perfcast::trace
