// The tracer's signature mode: recognises a signature's phases in one rank's
// MPI calls as they happen and times their first occurrences
// (events/phase_patterns.h). It only watches: it never calls MPI and never
// waits, so a rank that has measured everything goes on exactly as before.
#pragma once

#include <cstdint>
#include <vector>

#include "events/phase_patterns.h"

namespace perfcast::trace {

class PhaseMatcher {
 public:
  // `init_end_s`: when MPI_Init returned on this rank (occurrence times and
  // the initialisation are measured on the same clock).
  PhaseMatcher(events::PhasePatterns patterns, int rank, double init_end_s);

  // One MPI event in stream order (never a compute burst), with this rank's
  // rank in its communicator and the time its call returned. Returns true on
  // the call that makes the rank complete (every phase it takes part in has
  // its measured occurrences), once.
  bool feed(const events::Event& e, int comm_rank, double end_s);

  // MPI_Init's return, read again once the tracer's own start-up is done.
  void set_init_end(double init_end_s);

  bool complete() const { return complete_; }
  events::RankMeasurement measurement() const;

 private:
  struct Tracked {
    const events::PhasePattern* pattern;
    std::vector<std::size_t> failure;  // KMP: the longest proper border of pattern[0..i]
    std::size_t matched = 0;           // events of the pattern matched so far
    events::PhaseTiming timing;
  };

  events::PhasePatterns patterns_;
  int rank_;
  double init_end_s_;
  std::vector<Tracked> tracked_;
  std::vector<double> ends_;  // ring: the return time of the last calls, ends_[n % size] after call n
  std::uint64_t calls_ = 0;
  double first_start_s_ = -1;
  double complete_at_s_ = -1;
  bool complete_ = false;
};

}  // namespace perfcast::trace
