// The app's timed region as its MPI_Pcontrol calls mark it (docs/methods.md, "The
// timed region"): level 1 where the region starts on a rank (after the barrier that
// lines the ranks up), level 0 where it ends; every other level is a tool's own and
// is ignored. A run that times its region R times (repeats) marks R regions.
//
// The region's time is what the apps report as time_s: per occurrence, the slowest
// rank's end minus start; over the occurrences, their median.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace perfcast::sim {

struct RankRegion {
  double start_s = 0;   // the first region's start on this rank
  double end_s = 0;     // the last region's end
  double inside_s = 0;  // the time inside its regions, summed
};

struct TimedRegion {
  // Empty when the marks do not make a region on every rank; `problem` says why
  // and the other fields are empty.
  std::string problem;
  double time_s = 0;                  // the median of occurrences_s
  std::vector<double> occurrences_s;  // per occurrence, the slowest rank's end minus start
  std::vector<RankRegion> ranks;
};

// Collects the marks as the engine meets them, at each rank's simulated clock.
class TimedRegionMarks {
 public:
  void mark(int rank, std::int32_t level, double clock_s);
  bool any() const { return marked_; }
  // The region of a job of `nranks` ranks; nullopt when no rank marked one.
  std::optional<TimedRegion> region(int nranks) const;

 private:
  struct Span {
    double start_s, end_s;
  };
  struct RankMarks {
    std::vector<Span> spans;
    bool open = false;
    std::string problem;  // the first mark out of order
  };
  std::vector<RankMarks> ranks_;
  bool marked_ = false;
};

}  // namespace perfcast::sim
