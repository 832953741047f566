// Running a signature (docs/signature.md, "Running a signature"): the phase
// patterns the tracer's signature mode recognises, and the prediction from
// what the ranks measured (PAS2P's: initialisation + sum over the relevant
// phases of weight x measured time per occurrence).
//
// Per rank r:  predicted_r = init_r + sum_p weight_p x mean_r(p) + remainder
// and the job's prediction is the slowest rank's (ranks run concurrently; the
// job ends when its last rank does). mean_r(p) is the mean of rank r's timed
// occurrences of p; init_r is measured from MPI_Init's return to the start of
// rank r's first recognised occurrence; the remainder (non-relevant phases,
// blocks in no phase) is the signature's own, from the run it was built on.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "events/phase_patterns.h"
#include "signature/signature.h"

namespace perfcast::signature {

// Each relevant phase as every rank's own event sequence, with its warm-up:
// `warmup` occurrences, or when absent the phase's representative occurrence
// (Phase::representative). Throws UserError when the signature has no
// relevant phase, or warmup/measured are out of range (naming --warmup and
// --measure).
// `match_bytes` false: the patterns leave message sizes out (signature run --any-size).
events::PhasePatterns phase_patterns(const Signature& s, std::optional<int> warmup, int measured,
                                     bool match_bytes = true);

// Reads `dir`'s measurement files of ranks 0..ranks-1; a rank without one is
// absent from the result (the caller names it).
std::vector<events::RankMeasurement> read_measurements(const std::filesystem::path& dir, int ranks);

struct PhaseEstimate {
  int phase = 0;
  std::int64_t weight = 0;
  std::int64_t warmup = 0;                // occurrences not timed before the timed ones
  double signature_per_occurrence_s = 0;  // where the signature was built
  // The slowest rank's mean timed occurrence (what its prediction uses).
  double per_occurrence_s = 0;
  // Over every rank's timed occurrences: their count and range.
  std::size_t timed = 0;
  double min_s = 0, max_s = 0;
  double contribution_s = 0;  // weight x per_occurrence_s
  double share = 0;           // of the prediction
  // Ranks that take part in the phase and timed no occurrence of it; when
  // that is every rank, per_occurrence_s is the signature's.
  std::vector<int> unmeasured_ranks;
  bool measured() const { return timed > 0; }
};

struct RunPrediction {
  int ranks = 0;
  int slowest_rank = 0;                 // the rank whose prediction is the job's
  double initialization_s = 0;          // the slowest rank's
  bool initialization_measured = true;  // false: no phase was recognised on it (the signature's initialisation)
  double remainder_s = 0;               // the signature's
  std::vector<PhaseEstimate> phases;    // the relevant ones, in the signature's order
  std::vector<double> rank_predicted_s;
  double predicted_s = 0;            // the slowest rank's
  double signature_predicted_s = 0;  // what the signature predicted where it was built
  std::vector<int> missing_phases;   // phases some rank that takes part in timed no occurrence of
  bool complete = false;             // every rank measured every phase it takes part in
};

// Throws UserError when a rank's file is missing or reports an error, or the
// files do not match the patterns (a file of another run).
RunPrediction predict_from_measurements(const Signature& s, const events::PhasePatterns& patterns,
                                        const std::vector<events::RankMeasurement>& measured);

nlohmann::json to_json(const RunPrediction& p);

}  // namespace perfcast::signature
