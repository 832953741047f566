// The small file each traced rank writes beside its stream at MPI_Init and MPI_Finalize:
// what the manifest's tracer header and `perfcast trace show` report about
// the rank. Shared by the recorder (writes it) and the collector (reads it).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace perfcast::trace {

struct RankInfo {
  int rank = 0;
  int ranks = 0;             // MPI_COMM_WORLD's size
  std::uint64_t events = 0;  // in the stream
  std::string host;
  std::int64_t pid = 0;                   // the rank's process
  std::string program;                    // the traced executable
  double clock_resolution_s = 0;          // of the clock gaps and calls are timed with
  double wall_s = 0;                      // from MPI_Init's return to MPI_Finalize's: compute + MPI + tracer
  double mpi_s = 0;                       // inside traced MPI calls after MPI_Init (MPI_Finalize included)
  double finalize_s = 0;                  // of which MPI_Finalize (teardown no replay models)
  double compute_s = 0;                   // between them
  double tracer_s = 0;                    // the recorder's own work (in neither)
  std::uint64_t unresolved_receives = 0;  // wildcard receives written before their completion was seen
  std::string error;                      // empty unless recording stopped: the stream is then absent
  // Written at MPI_Init's return with false, again at MPI_Finalize with true:
  // a rank whose file still says false never got there (killed, crashed).
  bool finished = false;
};

// "rank-000042.info.json"
std::string rank_info_file_name(int rank);

// JSON text of one rank's info, and back. parse_rank_info returns false on
// anything it cannot read.
std::string rank_info_json(const RankInfo& info);
bool parse_rank_info(const std::string& text, RankInfo& out);

}  // namespace perfcast::trace
