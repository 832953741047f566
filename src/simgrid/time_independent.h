// Event streams as SimGrid's time-independent trace (SMPI 3.32's replay
// format, read by `smpirun -replay`): one file per rank, rank_N.txt, of
// actions "N init", "N compute FLOPS", "N isend PEER TAG BYTES", "N wait SRC
// DST TAG", "N allreduce BYTES 0", ..., "N finalize", and an index listing
// them. Sizes are in bytes (SMPI's default datatype is MPI_BYTE).
//
// Compute bursts become flops at the rate of the rank's core in the machine
// (seconds x flops_per_core), the rate the platform gives its host, so SimGrid
// replays each burst in the seconds the trace measured: the flops are a unit of
// time here, not a count of the work. Every MPI kind of the vocabulary either
// maps to actions or is refused by name (kind_mapping lists which).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "events/event.h"
#include "events/source.h"
#include "machine/machine.h"

namespace perfcast::simgrid {

// How one event kind becomes SimGrid actions.
struct KindMapping {
  events::Kind kind;
  bool mapped = false;
  std::string_view actions;  // what it becomes, or why it is refused
};
// One entry per events::Kind, in the kinds' order.
const std::vector<KindMapping>& kind_mapping();

struct TimeIndependentExport {
  int ranks = 0;
  std::uint64_t actions = 0;                                // lines written, all ranks
  std::array<std::uint64_t, events::kKindCount> events{};  // by kind, all ranks
  std::vector<std::string> action_files;                   // rank_N.txt, by rank
  std::string index_file;                                  // the action files' absolute paths, one a line
  // The allreduce algorithm SMPI must run (one for the whole run): the one
  // perfcast's engine picks for most of the job's allreduce calls; empty when
  // there are none. `other_allreduces` counts the calls the engine runs with
  // the other algorithm.
  std::string allreduce_algorithm;
  std::uint64_t other_allreduces = 0;
};

// Writes the job's streams into `dir` (created; files in it replaced): the
// action files, the index `traces.txt`, the platform `platform.xml` and the
// smpirun options `smpi_options.txt` (one a line) derived from `machine`.
// Throws UserError (rank, event index, kind and why) for an event SimGrid's
// replay has no action for, and when the machine cannot be priced by SMPI
// as perfcast prices it (platform.h).
TimeIndependentExport export_time_independent(events::JobSource& job, const machine::Machine& machine,
                                              const std::filesystem::path& dir);

}  // namespace perfcast::simgrid
