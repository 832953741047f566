// The two files a signature run exchanges with the tracer's signature mode
// (docs/signature.md, "Running a signature"):
//
//   phases.json              written by `perfcast signature run` before the
//                            job starts: per rank, each relevant phase as the
//                            sequence of that rank's MPI events, compared as
//                            the signature compares them (kind, communicator,
//                            peer offset, root, bytes unless
//                            `match_bytes` is false, requests listed).
//   rank-NNNNNN.phases.json  written by each rank of the job: the occurrences
//                            it timed, per phase. Written atomically (a
//                            temporary name, then a rename) once every phase
//                            has its measured occurrences, and again at
//                            MPI_Finalize when the run gets there.
//
// Both are JSON. Readers throw UserError naming the file and the field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "events/event.h"

namespace perfcast::events {

inline constexpr const char* kPhasePatternsFormat = "perfcast-phase-patterns";
inline constexpr const char* kPhaseMeasurementFormat = "perfcast-phase-measurement";

// One MPI event as phases compare them. Offsets are from this rank's rank in
// the event's communicator; compute and call site are not compared.
struct PatternEvent {
  Kind kind = Kind::Barrier;
  std::int32_t comm = 0;
  std::optional<std::int32_t> peer_offset;
  std::optional<std::int32_t> source_offset;  // Sendrecv's receive side
  std::optional<std::int32_t> root;           // rooted collectives
  bool proc_null = false;
  std::uint64_t bytes = 0, bytes2 = 0;
  std::uint32_t requests = 0;  // completions: how many requests they list
  bool operator==(const PatternEvent&) const = default;
};

// The pattern an event of a rank whose rank in the event's communicator is
// `comm_rank` matches. Marker, Compute, Init and Finalize are never in a phase.
PatternEvent pattern_event(const Event& e, int comm_rank);

struct PhasePattern {
  int phase = 0;                     // the signature's phase id
  std::int64_t warmup = 1;           // occurrences recognised and not timed before the timed ones
  std::vector<PatternEvent> events;  // this rank's events of one occurrence; empty: the rank takes no part
};

struct PhasePatterns {
  int ranks = 0;
  int measured = 3;  // occurrences timed per rank and phase, after its warm-up
  // false: message sizes are not compared (the patterns carry none), so a run of
  // another input size, whose calls are the same but move other sizes, still matches.
  bool match_bytes = true;
  std::vector<std::vector<PhasePattern>> by_rank;  // by_rank[r]: rank r's patterns, the same phases on every rank
};

std::string patterns_json(const PhasePatterns& patterns);
PhasePatterns parse_patterns(const std::string& text, const std::string& file);

// What one rank measured. Times are seconds of CLOCK_MONOTONIC differences;
// an occurrence runs from the return of the rank's MPI call before its first
// event (its compute included) to the return of its last event.
struct PhaseTiming {
  int phase = 0;
  std::uint64_t occurrences = 0;  // recognised (warm-up ones included)
  std::vector<double> times_s;    // the timed ones, at most `measured`
  double all_s = 0;               // every occurrence after the warm-up, timed or not
  std::uint64_t all_count = 0;
};

struct RankMeasurement {
  int rank = 0;
  int ranks = 0;
  bool complete = false;   // every phase this rank takes part in has `measured` times
  bool finalized = false;  // written at MPI_Finalize: the run went to its end
  // From MPI_Init's return to the start of the first occurrence of any phase;
  // absent when no phase was recognised.
  std::optional<double> init_s;
  // From MPI_Init's return to the call that made the rank complete.
  std::optional<double> complete_at_s;
  // From MPI_Init's return to MPI_Finalize's entry (present when finalized).
  std::optional<double> region_s;
  std::uint64_t calls = 0;  // MPI calls seen after MPI_Init
  std::int64_t pid = 0;     // the rank's process (0: unknown), for the command that ends the job
  std::vector<PhaseTiming> phases;
  std::string error;  // the tracer stopped matching: why
};

// "rank-000042.phases.json"
std::string phase_measurement_file_name(int rank);
std::string measurement_json(const RankMeasurement& m);
RankMeasurement parse_measurement(const std::string& text, const std::string& file);

}  // namespace perfcast::events
