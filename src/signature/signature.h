// An application signature (docs/signature.md): the phases of a traced run,
// each with its weight (how often it ran) and its time per occurrence, the
// relevant ones (those that cover the asked share of the time), and the run's
// time rebuilt from them: initialisation + sum of phase time x weight + the
// rest, which reproduces the traced total on the traced machine.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "events/event.h"
#include "signature/logical_clock.h"
#include "signature/phases.h"

namespace perfcast::signature {

inline constexpr const char* kSignatureFormatName = "perfcast-signature";
// Version 2 says whether the times include the calls' durations
// (calls_timed); version 1 files, written before, never did and read so.
inline constexpr int kSignatureFormatVersion = 2;

// One MPI event of a block, as blocks are compared.
struct BlockEvent {
  int rank = 0;
  events::Kind kind = events::Kind::Barrier;
  std::int32_t comm = 0;
  std::optional<std::int32_t> peer_offset;    // point to point: peer - this rank, in comm
  std::optional<std::int32_t> source_offset;  // sendrecv: its source - this rank
  std::optional<std::int32_t> root;           // rooted collectives
  bool proc_null = false;                     // point to point with MPI_PROC_NULL (moves nothing)
  std::uint64_t bytes = 0, bytes2 = 0;
  std::uint32_t requests = 0;  // completions: the requests listed
  std::uint32_t site = 0;
  bool operator==(const BlockEvent&) const = default;
};

// The MPI events of all ranks at one tick, by rank.
using Block = std::vector<BlockEvent>;

struct Phase {
  int id = 0;               // 1-based, in order of first occurrence
  std::int64_t weight = 0;  // occurrences
  std::int64_t first_tick = 0;
  std::vector<Block> blocks;         // one occurrence, tick by tick
  std::vector<int> inner;            // loops: ids of the phases nested in its body
  double time_s = 0;                 // all occurrences together
  double time_per_occurrence_s = 0;  // time_s / weight
  double share = 0;                  // time_s / the traced total
  bool relevant = false;
  // The first occurrence (0-based) of the first run of kRepresentativeWindow
  // occurrences whose mean time is within kRepresentativeTolerance of
  // time_per_occurrence_s: where a signature run starts timing, so a phase
  // whose early occurrences run faster or slower than the rest (a solver
  // before and after it converged, values that become subnormal) is timed
  // where it runs as it does on average. The closest window when none is
  // within; 1 when the occurrences cannot be told apart in the trace.
  std::int64_t representative = 1;
};

inline constexpr std::int64_t kRepresentativeWindow = 3;
inline constexpr double kRepresentativeTolerance = 0.2;

struct Signature {
  std::string trace;  // the trace it was built from
  std::string program;
  int ranks = 0;
  Algorithm algorithm = Algorithm::Repeats;
  double coverage = 0.95;  // the share of time the relevant phases were to cover
  std::int64_t ticks = 0;
  std::vector<Phase> phases;            // by time, largest first
  double covered_share = 0;             // what the relevant phases cover
  double initialization_s = 0;          // before the first occurrence of any relevant phase
  double remainder_s = 0;               // the rest outside relevant phases (and compute after the last call)
  double predicted_total_s = 0;         // initialization + sum(relevant time x weight) + remainder
  double traced_total_s = 0;            // the logical trace's rebuilt total (logical_clock.h)
  // The times include the MPI calls' recorded durations (MPI_Init and
  // MPI_Finalize apart); false: the compute critical path, calls at zero cost.
  bool calls_timed = false;
  std::optional<double> traced_wall_s;  // the slowest rank's wall time, when the tracer recorded it
  // The slowest rank's wall time less its MPI_Finalize: the traced region
  // traced_total_s rebuilds when calls_timed (when the tracer recorded it).
  std::optional<double> traced_wall_before_finalize_s;
};

struct BuildOptions {
  Algorithm algorithm = Algorithm::Repeats;
  double coverage = 0.95;  // in (0, 1]
};

// The blocks of a logical trace, tick by tick.
std::vector<Block> blocks_of(const LogicalTrace& trace);

// Throws UserError for a coverage outside (0, 1] (naming --coverage).
Signature build_signature(const LogicalTrace& trace, const BuildOptions& options);

// One line per event kind and offset: "irecv peer +1 18 KiB x2 ranks".
std::string describe(const Block& block);

nlohmann::json to_json(const Signature& s);
// Throws UserError naming `file` and the field that is wrong.
Signature from_json(const nlohmann::json& j, const std::string& file);

void write_signature(const Signature& s, const std::filesystem::path& path);
Signature read_signature(const std::filesystem::path& path);

}  // namespace perfcast::signature
