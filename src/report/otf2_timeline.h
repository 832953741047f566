// An OTF2 archive of a simulation's timeline (Vampir, otf2-print and other OTF2
// readers): one location per rank, one region per MPI operation, compute bursts
// as the region "compute", and the time an operation spent waiting for a peer as
// its own region ("MPI_Recv wait"), so waits stand out in a viewer. Timestamps
// are the simulated clock in nanoseconds from the job's start.
//
// It holds the regions the engine reports (compute, wait, comm spans), not
// message events: OTF2's MpiSend/MpiRecv records, and communicators, are not
// written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sim/engine.h"

namespace perfcast::report {

class Otf2TimelineWriter : public sim::TimelineSink {
 public:
  // `directory` must not exist yet: the archive (`directory`/traces.otf2, its
  // definitions and one event file per rank) is written beside it and moved
  // there whole at close(), so a failed run leaves nothing half written.
  // Throws UserError when it exists or cannot be written.
  Otf2TimelineWriter(const std::filesystem::path& directory, int nranks, std::string description);
  ~Otf2TimelineWriter() override;
  Otf2TimelineWriter(const Otf2TimelineWriter&) = delete;
  Otf2TimelineWriter& operator=(const Otf2TimelineWriter&) = delete;

  void span(int rank, sim::SpanKind kind, events::Kind op, double start_s, double end_s) override;
  // Writes the definitions and moves the archive into place; throws UserError
  // when the library or the disk refused.
  void close();

  // Spans that began before the previous one on the same rank ended (none
  // from the engine, which reports each rank's spans in order): written at that
  // end, since OTF2 readers require a location's events in time order.
  std::uint64_t clamped_spans() const { return clamped_; }

 private:
  struct State;
  std::unique_ptr<State> state_;
  std::filesystem::path directory_, scratch_;
  int nranks_;
  std::uint64_t clamped_ = 0;
};

// The OTF2 region name of an operation's span: "compute", "MPI_Allreduce",
// "MPI_Allreduce wait".
std::string otf2_region_name(sim::SpanKind kind, events::Kind op);

}  // namespace perfcast::report
