// A program model evaluated per rank into event streams (docs/architecture.md: "a static
// model produces them when it is evaluated per rank"): an automatic skeleton
// that `perfcast simulate` runs.
//
// How the model's tree becomes a stream, per rank:
// - Work with no MPI inside (compute items, and whole loops, branches and calls
//   that contain no MPI item) is counted symbolically (costs.h) and added to the
//   pending compute burst: flops (double + single + math calls priced in flops)
//   and bytes moved (loaded + stored), and with EventOptions::work the item's
//   counts themselves (BurstWork). The burst is emitted before the next MPI
//   operation, so a stream alternates bursts and MPI calls in program order.
// - That work is composed as predict composes it: from the item's twin in the
//   model specialised to the job (specialise.h: the values every rank binds
//   alike in place), a call whose arguments are numbers running its callee's
//   twin with them in place, each callee composed once for the job
//   (CostComposer). So a size passed down a deep call graph is a number where
//   the work composes. The walk, its events and its errors follow the model as
//   given.
// - A loop with MPI inside runs iteration by iteration with its index bound; a
//   branch with a condition takes the side the condition picks for this rank.
// - A branch with only a probability and MPI on a side: MPI calls cannot be
//   fractional, so each visit takes one side by error diffusion (a credit of p
//   per visit; the then side when the credit reaches 1/2, which costs 1). Over
//   n visits the then side runs round(n*p) times: the counts predict reports,
//   to within one call per branch, in a deterministic order.
// - MPI items become one event per call, in the order of the items. Point to
//   point messages carry tag 0 (the model has no tags: MPI's non-overtaking
//   order matches them); a negative peer is MPI_PROC_NULL; an unknown peer sends
//   to rank+1 mod size and receives from any source. Nonblocking calls get fresh
//   requests: wait completes the oldest pending one, waitall all of them;
//   waitany completes the oldest; test/testall complete none, except inside a
//   polling loop (LoopItem::polls), whose one pass is the test that finds the
//   completion: there they complete as wait/waitall do; iprobe becomes a
//   marker. A sendrecv's source is the rank whose call at the same site and
//   occurrence sends to this one (the model only names the destination).
//   Communicator calls create handles, but every event stays on MPI_COMM_WORLD
//   (a cart_create without reorder, or a split/dup, keeps the rank order).
//
// The streams are made on demand (ModelJobSource), as the simulator reads a
// recorded trace: a time loop of 78125 steps on 2 ranks is 4 M events, 818 MB
// held whole. Only the sendrecv matching needs to look
// ahead: a first pass over every rank's MPI calls (work not counted) keeps
// where each sendrecv goes, and only when the model has a sendrecv.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "events/event.h"
#include "events/source.h"
#include "machine/machine.h"
#include "model/program_model.h"

namespace perfcast::model {

struct RankCounts;

// A compute burst's work, for an engine to price when the burst starts
// (EventOptions::work): the counts of the MPI-free items the burst gathers, in
// program order, consecutive equal items as one run. Its price is the sum, in
// that order, of each item's price repeated `repeats` times. Bursts and counts
// are shared: ranks and steps whose items have the same counts point at the
// same RankCounts (its sites: what pricing reads), and equal bursts at the
// same BurstWork; both live as long as the ModelJobSource that made them.
struct BurstWork {
  struct Run {
    const RankCounts* counts = nullptr;
    std::uint64_t repeats = 0;
    auto operator<=>(const Run&) const = default;
  };
  std::vector<Run> runs;
};

struct EventOptions {
  // Flops per math call; none: machine::MathCosts' defaults.
  const machine::MathCosts* math = nullptr;
  // Bursts carry their work: `seconds` < 0 and Event::live pointing at a
  // const BurstWork, for the engine to price when the burst starts
  // (sim::WorkPricer; `predict --simulate`). Else bursts carry flops and bytes
  // alone, for the engine's roofline (`model events`).
  bool work = false;
  // Refuse to build more events than this over all ranks (memory bound).
  std::uint64_t max_events = 50'000'000;
};

struct RankEvents {
  int rank = 0;
  std::vector<events::Event> events;
  double mpi_calls = 0;  // events that are MPI calls (all but compute bursts)
};

// The model's event streams, each rank's made as the reader pulls it: what
// `perfcast predict --simulate` and `model events` read. The model must
// outlive the source, and the source the rank sources it opens and the
// BurstWork its events point at. The constructor throws UserError for
// parameters bind_rank refuses, for a model whose calls
// recurse and, when it has sendrecv calls, for what the first pass meets (as
// below); next() throws the same errors when it meets them.
class ModelJobSource : public events::JobSource {
 public:
  ModelJobSource(const ProgramModel& model, int np, const std::map<std::string, expr::Value>& parameters,
                 const EventOptions& options = {});
  ~ModelJobSource() override;
  int size() const override;
  std::unique_ptr<events::RankSource> open_rank(int rank) override;

  struct Shared;

 private:
  std::unique_ptr<Shared> shared_;
};

// Every rank's stream whole, in memory: for tests and small jobs; bursts carry
// flops and bytes (options.work is refused with std::invalid_argument: their
// work would outlive the source that holds it). Throws UserError for a
// parameter without a value, an expression that does not evaluate, or more
// than options.max_events events.
std::vector<RankEvents> model_events(const ProgramModel& model, int np,
                                     const std::map<std::string, expr::Value>& parameters,
                                     const EventOptions& options = {});

}  // namespace perfcast::model
