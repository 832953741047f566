// The analytic predictor: a program model's counts per rank priced on a machine
// model. The plain formula of Kleymenov & Popova (2021):
//   T_i = max(flops_i / peak, bytes_i / bandwidth) + messages_i * latency + sent_i / net_bandwidth
//   T   = max_i T_i
// plus calls_i * overhead when the machine gives the MPI library's cost per
// call (network.overhead, LogP's o; `perfcast calibrate` measures it).
// with each rank priced with the figures of the node it runs on, math calls
// priced in flops per precision, memory bandwidth shared by the ranks on a node,
// and, where the model gives a loop's working set, the memory level chosen by it
// (the plain formula assumes one level for everything; its all-L1 and all-DRAM
// times are reported beside the prediction as the baselines to beat).
//
// Every figure is also given per site (costs.h: a loop nest with a footprint,
// an innermost loop priced in cycles, or the rest of a function): the breakdown
// says which loop nest is compute- or memory-bound and what it costs.
//
// Refinements beside the plain formula (reported next to it, never instead):
// * MCA in-core time. Innermost loops that carry cycles_per_iteration (LLVM's
//   machine-code analyser on the loop's own machine code, `perfcast analyze`)
//   are priced trip_count x cycles / clock instead of flops / peak; the rest of
//   the flops stay at flops / peak. T_mca,i = max(in_core_i, memory_i) + comm_i.
// * Footprint traffic. Loops that carry a footprint (the distinct bytes one run
//   touches, from the addresses of their accesses) fetch those bytes, not every
//   access, from the level the footprint fits in; every access still passes
//   through L1. T_fp,i = max(core_i, l1_access_i, traffic_i) + comm_i, core_i
//   being the MCA in-core time when available, else flops / peak.
// * Per site. The bound is taken per site and the sites add up (a loop nest
//   that is compute-bound cannot lend its idle memory time to one that is
//   memory-bound), with the machine's measured overlap of in-core work and
//   memory transfers (memory level `serial_fraction`, docs/machine-format.md):
//     T_site = max( max(core', alone) + f * min(core', alone), shared ),
//     core' = max(core, l1); alone = the traffic at one core's own bandwidth
//     (a core's misses in flight: in-core work takes from them, so part of
//     it adds, f = the serial fraction of the traffic's levels, for the
//     site's address streams and core' / alone where the machine measured
//     it by those); shared = the
//     traffic at the node's bandwidth over the ranks streaming at once (a
//     queue that in-core work hides behind entirely);
//   T_sites,i = sum over sites + comm_i. This is the refined prediction.
// * Measured communication. The refined prediction's comm_i prices each
//   message by the machine's measured one-way time for its size within a node
//   (network.intra_node_one_way, calibrate's ping-pong curve) and each
//   collective by the machine's [[collective]] table, where the file has them:
//   the plain formula's latency + size / bandwidth is a line through the
//   curve's ends and misses its middle (2-3x at 4-32 KiB here). A message
//   to a peer the rank also receives from is half of an exchange and takes
//   the machine's measured exchange step (network.intra_node_exchange) where
//   it has one: both messages cross at once, which costs each side more than
//   a one-way trip. Messages, exchanges and collectives are priced by
//   machine::Pricing, as the simulator prices them; communicator creation
//   (split, dup, cart_create) is a collective there: an allreduce of the
//   8-byte context id its members agree on.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "machine/pricing.h"
#include "model/costs.h"

namespace perfcast::model {

struct PredictOptions {
  // "auto": by working set where the model gives one, else the outermost level;
  // or the name of one level for everything (the paper's all-L1 / all-DRAM).
  std::string memory_level = "auto";
  bool simd = true;  // price flops at the SIMD rate (else scalar)
};

// One site of one rank, priced.
struct SitePrediction {
  std::string function;
  int line = 0;  // 0: the function's code outside loop nests of their own
  std::string note;
  double flops = 0;      // double + single + math calls priced in flops
  double bytes = 0;      // every access, loaded + stored
  double compute_s = 0;  // flops / peak
  double memory_s = 0;   // bytes from their level (the plain formula's memory term)
  double time_s = 0;     // max(compute_s, memory_s): the plain formula on this site alone
  bool memory_bound = false;
  double cycles = 0;           // MCA cycles of its priced loops
  double in_core_s = 0;        // cycles / clock + the other flops / peak (compute_s without MCA)
  double l1_access_s = 0;      // accesses inside footprint loops at L1 bandwidth
  double traffic_s = 0;        // distinct bytes from their levels, other accesses as the plain formula
  double core_traffic_s = 0;   // the same bytes at what one core streams alone (not the node's share)
  int streams = 0;             // address streams of its busiest innermost loop (0: unknown)
  double effective_streams = 0;  // of them: those reusing from L1 count half (predict.cpp)
  double serial_fraction = 0;  // of the traffic's levels for its streams, weighted by their time at one core's bandwidth
  double refined_s = 0;        // see the header comment
  double off_ports_s = 0;        // of in_core_s: what the ports do not explain (divider, chains; MCA)
  // The mean stretch of its in-core work under the machine's noise, by its
  // mix (Noise::stretch_of its off-port share); 1 without noise.
  double noise_stretch = 1;
};

struct RankPrediction {
  RankCounts counts;
  int node = 0;
  int ranks_on_node = 1;
  double math_flops = 0;  // math calls priced in flops
  double flops = 0;       // double + single + math
  // Flops as the program's own machine code executes them: double + single +
  // one per sqrt / sqrtf call (one instruction); other math calls run in libm.
  // What callgrind counts in the program's functions (perfcast counts).
  double instruction_flops = 0;
  double compute_s = 0;
  double memory_s = 0;
  std::map<std::string, double> memory_s_if_all_in;  // level name -> time if every byte came from it
  double overhead_s = 0;   // MPI calls x the library's overhead per call (LogP o), every call
  double latency_s = 0;    // messages x latency
  double transfer_s = 0;   // bytes / network bandwidth
  double time_s = 0;
  bool memory_bound = false;
  // MCA refinement (valid when Prediction::mca_available).
  double mca_cycles = 0;  // core cycles of the MCA-priced loops
  double mca_flops = 0;   // flops inside those loops (priced by their cycles, not by peak)
  double in_core_s = 0;   // mca_cycles / clock + the other flops / peak
  double mca_time_s = 0;  // max(in_core_s, memory_s) + comm
  // Footprint refinement (valid when Prediction::footprint_available).
  double l1_access_s = 0;       // every access inside footprint loops, at L1 bandwidth
  double traffic_s = 0;         // footprints from their levels + accesses outside footprint loops
  double footprint_time_s = 0;  // max(in-core or compute, l1_access_s, traffic_s) + comm
  // Per site: the refined prediction, sum of SitePrediction::refined_s +
  // refined_comm_s: every call's overhead, and each message and collective
  // priced by what the machine file measured (Machine::message_s; the
  // [[collective]] tables, a communicator of one costing nothing), falling back
  // to latency + size / bandwidth where it measured nothing.
  double refined_comm_s = 0;
  double exchange_messages = 0;  // of them, sends priced as an exchange step
  std::vector<SitePrediction> sites;
  double refined_time_s = 0;
  // Calls at which the rank may wait for another (collectives, communicator
  // creation, blocking receives and probes, waits: sync_points_of), and its
  // refined time between two of them: the span its noise averages over
  // (machine::noise_over_span) before the ranks' slowest is taken.
  double sync_points = 0;
  double noise_step_s = 0;
};

struct Prediction {
  int np = 0;
  // Where the ranks sit: ranks beyond a node's cores time-share them (each
  // rank's compute and memory time grows by ranks on the node / cores).
  machine::Placement placement;
  std::vector<RankPrediction> ranks;
  double predicted_time_s = 0;
  int slowest_rank = 0;
  // The plain formula with every byte from one level: level name -> max over ranks.
  std::map<std::string, double> time_s_if_all_in;
  std::vector<std::string> level_names;  // of the slowest rank's node, inner to outer
  // MCA refinement: max over ranks of RankPrediction::mca_time_s.
  bool mca_available = false;
  std::string mca_note;  // why it is not available, or what it covers
  std::string mca_cpu;   // the scheduling model the cycles came from
  double mca_time_s = 0;
  int mca_loops = 0;     // loops in the model that carry cycles_per_iteration
  // Footprint refinement: max over ranks of RankPrediction::footprint_time_s.
  bool footprint_available = false;  // some loop the entry runs carries a footprint, and it evaluates
  std::string footprint_note;        // why not, when a footprint did not evaluate
  double footprint_time_s = 0;
  // The refined prediction: max over ranks of RankPrediction::refined_time_s
  // (uses whatever refinements are available; see the header comment).
  double refined_time_s = 0;
  int refined_slowest_rank = 0;
  // The refined time on the machine as its noise leaves it (NodeGroup::noise,
  // measured by perfcast calibrate): stretched by the expected slowest of the
  // ranks' independent stretches, since each step of a bulk-synchronous job
  // ends with its slowest rank; a rank's stretch over a step is the mean of
  // the quanta the step spans (RankPrediction::noise_step_s, noise_over_span),
  // not one quantum's. The cores' work stretches: in-core time and
  // shared-memory copies; the memory traffic a site waits for does not
  // (noise_of_rank). Each site's in-core work takes the ports' noise, and
  // where part of it is off the ports (off_ports_s: the divider, dependency
  // chains), the longer of its port work at the ports' noise and the whole at
  // the machine's divider_stretch, which a co-tenant hardly lengthens
  // (measured: a chain feels about what the divider does). Without noise in
  // the machine file: not available, stretch 1.
  bool noise_available = false;
  double noise_stretch = 1;
  double noisy_time_s = 0;
  // The refined time had the whole run sat in the noise's slowest state (a
  // node-wide slow spell, which does not average out over a step's quanta):
  // each rank's refined time at the top quantile of its own mix, one quantum's
  // and not narrowed, the slowest rank. With refined_time_s (every quantum at
  // its fastest) it bounds what the machine file's noise admits for one
  // launch: a run outside [refined, this] is one the model mis-prices, not
  // one the host slowed. 0 without noise.
  double noisy_slowest_state_time_s = 0;
  bool noise_off_ports_priced = false;  // some rank's off-port work took the divider's noise
};

// A site's refined time (the header comment's T_site) with its in-core work,
// core' = max(core, l1), taking `core_stretch` times as long: the traffic
// terms stay. 1 gives SitePrediction::refined_s.
double site_time_with_core_stretched(const SitePrediction& site, double core_stretch);

// A site's time at each of `noise`'s quantiles: its in-core work stretched by
// that quantile of the site's own mix (Noise::stretch_of its share off the
// ports: port work at `stretch`, the rest at `divider_stretch`), its traffic
// not. Index q is the noise's quantile q, so one draw of q prices every site
// of a burst alike. Empty when the noise is.
std::vector<double> site_time_by_noise_quantile(const SitePrediction& site, const machine::Noise& noise);

// A rank's noise: quantile by quantile, each site's time with its in-core work
// stretched by the site's mix (Noise::stretch_of its share off the ports) and
// its communication by the ports' stretch, over its refined time. The traffic
// does not stretch: a co-tenant sharing the core takes its ports, not the
// misses it has in flight, and what the co-tenant takes from the memory levels
// is already in their bandwidths (medians calibrate measured on the same host).
// The node's noise as it is when the rank has no time.
machine::Noise noise_of_rank(const RankPrediction& rp, const machine::Noise& node_noise);

// The calls of `counts` at which its rank may wait for another: collectives
// and communicator creation (on more than one rank), blocking receives and
// probes, and the waits that complete non-blocking calls. Sends are left out:
// an eager send returns without its receiver.
double sync_points_of(const RankCounts& counts, int np);

// Loops the entry can reach that carry cycles_per_iteration (priced by MCA).
int priced_loop_count(const ProgramModel& model);

// Prices one rank's sites on its node, with `ranks_on_node` ranks sharing the
// node's bandwidth. `clock_Hz` (0: none) turns MCA cycles into seconds.
std::vector<SitePrediction> price_sites(const RankCounts& counts, const machine::NodeGroup& node, int ranks_on_node,
                                        const PredictOptions& options);
// The same under a given load: `computing` ranks of the node at work and
// `placed` there (machine::Pricing::node_load), as the simulator sees a node
// when a burst starts. With computing = placed = ranks_on_node, the above.
std::vector<SitePrediction> price_sites(const RankCounts& counts, const machine::NodeGroup& node,
                                        const machine::NodeLoad& load, const PredictOptions& options);

// The memory a prediction of `np` ranks holds: its per-rank results (counts
// and prices of every site and MPI call) and, for the report, their JSON. An
// estimate from the structures' sizes, so a rank count that cannot fit is
// refused before it is tried.
double prediction_bytes(const SymbolicCosts& costs, double np);

Prediction predict(const ProgramModel& model, const SymbolicCosts& costs, const machine::Machine& machine, int np,
                   const std::map<std::string, expr::Value>& parameters, const PredictOptions& options = {});

// The timed part of a run: each rank's counts at `parameters` minus its counts
// at `baseline_parameters` (`baseline_model` is `model` with the defaults the
// baseline binds; the same costs), subtracted site by site and call by call
// (counts_difference), then priced as predict prices a run. Every estimate is
// then the price of the work between the two: a run whose timed loop is its
// steps, less a baseline of 0 steps, is priced as the loop alone, where a
// difference of two predicted totals lets the set-up's terms into each
// whole-rank max (the plain formula's, MCA's, the footprints'), and the noise
// stretch is the loop's own mix. A site's memory traffic subtracts segment by
// segment in the run's shape: where the baseline moves no byte in a site, each
// of the run's segments is 0 bytes there (its footprints stay the run's);
// where a site's footprints evaluate on one side only (a nest whose bound
// wraps in calls only the run's steps make), both sides are priced by the
// nest's accesses and the footprint estimate says why it is off. Throws
// UserError as counts_difference does.
Prediction predict_timed_part(const ProgramModel& model, const ProgramModel& baseline_model,
                              const SymbolicCosts& costs, const machine::Machine& machine, int np,
                              const std::map<std::string, expr::Value>& parameters,
                              const std::map<std::string, expr::Value>& baseline_parameters,
                              const PredictOptions& options = {});

}  // namespace perfcast::model
