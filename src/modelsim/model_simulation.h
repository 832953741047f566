// The overlap refinement of `perfcast predict`: the program model evaluated
// per rank into event streams (model_events.h) and run on the discrete-event
// engine (sim/engine.h).
//
// The plain formula adds communication to computation. The engine instead
// follows each rank's calls in program order: a message posted by isend/irecv
// travels while the compute bursts before its wait run, a blocking receive
// waits for its sender, a collective for the ranks it needs; so what overlaps
// is hidden and what waits is counted as wait time on the rank that waits.
// Compute bursts are priced as predict's refined prediction prices the sites
// (model/predict.h: per loop nest, in-core time against footprint traffic with
// the machine's serial fraction), so the simulated time is every refinement
// at once: the loop nests' own bounds, then overlap and waits between ranks.
// Each burst carries its items' counts (model::BurstWork) and is priced when
// it starts, with the node's ranks computing at that moment (sim/costs.h):
// where predict has every rank of a node compute at once, a rank computing
// while the others wait streams with the node's bandwidth to itself.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "machine/machine.h"
#include "model/predict.h"
#include "model/program_model.h"
#include "sim/engine.h"

namespace perfcast::modelsim {

// Throws UserError as model_events does (a parameter without a value, too many
// events) and as the engine does (a deadlock in the model's calls).
sim::SimResult simulate_model(const model::ProgramModel& model, const machine::Machine& machine, int np,
                              const std::map<std::string, expr::Value>& parameters,
                              const model::PredictOptions& pricing = {}, std::uint64_t max_events = 50'000'000,
                              std::function<void(const sim::SimProgress&)> progress = {});

// The same run on the machine as its measured noise leaves it (NodeGroup::noise,
// docs/machine-format.md): each compute burst of each rank draws one of its
// node's noise quantiles, and the burst's sites take their times at that
// quantile (model::site_time_by_noise_quantile: each site's in-core work
// stretched by its own mix of port and off-port work, its memory traffic
// not), so a step that ends in a collective waits for its slowest rank through
// the simulated waits themselves. Messages and collectives keep the machine's
// measured times. The draws are a hash of (`noise_seed`, rank, the rank's burst
// number): the same inputs give the same figure. What is assumed: the draws are
// independent between bursts and between ranks, and one draw holds for a whole
// burst (docs/methods.md, "The simulation under noise"). A node group without
// noise is undisturbed: the result is simulate_model's.
sim::SimResult simulate_model_under_noise(const model::ProgramModel& model, const machine::Machine& machine, int np,
                                          const std::map<std::string, expr::Value>& parameters,
                                          std::uint64_t noise_seed, const model::PredictOptions& pricing = {},
                                          std::uint64_t max_events = 50'000'000,
                                          std::function<void(const sim::SimProgress&)> progress = {});

}  // namespace perfcast::modelsim
