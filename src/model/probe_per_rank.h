// Values a probe run measured rank by rank (docs/program-model.md, "Each
// rank's own value"): a variable that holds one value on each rank and
// another on the next (a neighbour's rank, the end of a rank's part of the
// grid), a branch one rank always takes and another never, a loop over a
// rank's own rows. Bound to each rank's own value, they hold at the run's
// process count only: a prediction at another count refuses a value that is
// read there (read_off_the_probed_paths), and a branch's share and a loop's
// trips fall back to their mean over the ranks there.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "model/probe_bind.h"
#include "model/probe_loop_sizes.h"
#include "model/program_model.h"
#include "support/expr.h"

namespace perfcast::model {

// Each rank's value of the feature or measure `name` (a count's share of the
// total where the ranks held one value, the value itself for a value
// feature: `summed` says which); none when the run has no such name, or
// recorded no rank's values.
std::optional<std::vector<double>> per_rank_values(const ProbeRun& run, const std::string& name, bool summed);

// `values[r]` on rank r of a run of values.size() ranks: the value most
// ranks hold, and a select on `rank` for each other one (a NaN, a rank that
// never held a value, counts as 0). Integers where every value is whole.
Expr each_rank_expression(const std::vector<double>& values);

// Each rank's own measure at a run of `values.size()` ranks, and `mean`
// (the measure over all the ranks) at any other count: a branch's share
// from each rank's taken fraction, a loop's trips from each rank's mean.
Expr each_rank_or_mean(const std::vector<double>& values, double mean);

// Where `each` holds each rank's measure, `p`'s default becomes
// each_rank_or_mean(*each, mean) (not an integer where one is fractional);
// whether it did.
bool bind_each_rank_or_mean(Parameter& p, const std::optional<std::vector<double>>& each, double mean);

// The origin of a parameter bound to each rank's own value by a run on `ranks`
// processes, after the run's own origin.
std::string each_rank_origin(const std::string& origin, int ranks);

// Each rank's one value over the measures `probes` (`<probe>.assignments`,
// `.sum`, `.changes`: a variable's, a template's instances repeating it, or
// a call's argument at each call of one line), where the run recorded the
// ranks' measures, every rank assigned one value only and the ranks' values
// differ; NaN for a rank that assigned none.
std::optional<std::vector<double>> one_value_on_each_rank(const ProbeRun& run, const std::vector<std::string>& probes);

// Each rank's mean of the values assigned over the measures `probes` (as
// one_value_on_each_rank's), NaN for a rank that assigned none; none unless
// the run recorded the ranks' measures and the ranks' means differ.
std::optional<std::vector<double>> each_ranks_mean(const ProbeRun& run, const std::vector<std::string>& probes);

// `each`'s values rounded to the nearest integer (NaN kept), for a value the
// program holds whole and the model tests or reads bit by bit; none where
// `each` is none or the rounded values no longer differ between the ranks.
std::optional<std::vector<double>> each_rounded(const std::optional<std::vector<double>>& each);

// The run as each rank saw it, one view a rank, for its counts: each feature
// its count on that rank (one the ranks held alike, its share of the sum; a
// value is divided alike, so read counts only), the facts of the code as they
// are; none where the run recorded no rank's values or had one rank. What a
// measure of several counts (arrivals into a line over those at another) is
// on each rank.
std::vector<ProbeRun> rank_views(const ProbeRun& run);

// Whether the ranks that hold a value (not NaN) hold more than one.
bool ranks_differ(const std::vector<double>& values);

// Each rank's taken fraction of the branch probe `own` (`own.taken`,
// `.not_taken`; NaN where a rank never arrived), where the run recorded the
// ranks' counts and the ranks that arrived differ.
std::optional<std::vector<double>> each_ranks_fraction(const ProbeRun& run, const std::string& own);

// Each rank's mean trips per arrival at the loop `probe` (as trips_per_arrival
// counts them, or, with `passes`, headers / entries), NaN where a rank never
// arrived; none unless the run recorded them and the ranks that arrived differ.
std::optional<std::vector<double>> each_ranks_trips(const ProbeRun& run, const std::string& probe, bool passes);

// Each rank's mean of a size from the trips of the loops it sizes (each
// loop's probe and how its trips follow the size), to the nearest whole
// number where `whole`; none unless the run recorded the ranks' counts, the
// loops the run reached agree on each rank, and the ranks differ.
std::optional<std::vector<double>> each_ranks_size(const ProbeRun& run, const std::vector<SizedLoop>& loops,
                                                   bool whole);

// The process count of the run that bound `p` to each rank's own value; 0
// for any other parameter.
int ranks_bound_each_rank(const Parameter& p);

}  // namespace perfcast::model
