#include "sim/timed_region.h"

#include <fmt/format.h>

#include <algorithm>

namespace perfcast::sim {

void TimedRegionMarks::mark(int rank, std::int32_t level, double clock_s) {
  if (level != 0 && level != 1) return;  // a tool's own level
  if (static_cast<std::size_t>(rank) >= ranks_.size()) ranks_.resize(static_cast<std::size_t>(rank) + 1);
  marked_ = true;
  RankMarks& m = ranks_[static_cast<std::size_t>(rank)];
  if (level == 1) {
    if (m.open && m.problem.empty())
      m.problem = fmt::format("rank {}: MPI_Pcontrol(1) at {:.9g} s inside a region already started", rank, clock_s);
    if (!m.open) m.spans.push_back({clock_s, clock_s});
    m.open = true;
  } else {
    if (!m.open && m.problem.empty())
      m.problem = fmt::format("rank {}: MPI_Pcontrol(0) at {:.9g} s with no region started", rank, clock_s);
    if (m.open) m.spans.back().end_s = clock_s;
    m.open = false;
  }
}

std::optional<TimedRegion> TimedRegionMarks::region(int nranks) const {
  if (!marked_) return std::nullopt;
  TimedRegion out;
  std::vector<RankMarks> marks = ranks_;
  marks.resize(static_cast<std::size_t>(nranks));
  const std::size_t occurrences = marks.front().spans.size();
  for (int r = 0; r < nranks; ++r) {
    const RankMarks& m = marks[static_cast<std::size_t>(r)];
    if (!m.problem.empty())
      out.problem = m.problem;
    else if (m.open)
      out.problem = fmt::format("rank {}: its last region has no MPI_Pcontrol(0)", r);
    else if (m.spans.size() != occurrences)
      out.problem = fmt::format("rank 0 marks {} region(s), rank {} marks {}", occurrences, r, m.spans.size());
    if (!out.problem.empty()) return out;
  }
  out.occurrences_s.assign(occurrences, 0.0);
  out.ranks.reserve(static_cast<std::size_t>(nranks));
  for (const RankMarks& m : marks) {
    RankRegion rr;
    for (std::size_t i = 0; i < occurrences; ++i) {
      double inside = m.spans[i].end_s - m.spans[i].start_s;
      out.occurrences_s[i] = std::max(out.occurrences_s[i], inside);
      rr.inside_s += inside;
    }
    if (occurrences > 0) {
      rr.start_s = m.spans.front().start_s;
      rr.end_s = m.spans.back().end_s;
    }
    out.ranks.push_back(rr);
  }
  if (occurrences == 0) {
    out.problem = "no rank marks a whole region";
    return out;
  }
  std::vector<double> sorted = out.occurrences_s;
  std::sort(sorted.begin(), sorted.end());
  std::size_t n = sorted.size();
  out.time_s = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  return out;
}

}  // namespace perfcast::sim
