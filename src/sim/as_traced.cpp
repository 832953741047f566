#include "sim/as_traced.h"

#include <fmt/format.h>

#include <limits>
#include <utility>

#include "support/error.h"

namespace perfcast::sim {

namespace {

using events::Event;
using events::Kind;

// Hands out each MPI call at the rank's clock, as the trace has it, and once
// the engine has completed it (the next next(), whose now_s is the rank's clock
// then) a burst of what is left of its traced duration: the call ends at its
// start plus its duration, or when the engine released it if that is later.
class TracedDurationRank : public events::RankSource {
 public:
  TracedDurationRank(std::unique_ptr<events::RankSource> inner, int rank) : inner_(std::move(inner)), rank_(rank) {}

  bool next(Event& out, double now_s) override {
    if (in_call_) {
      in_call_ = false;
      if (call_end_s_ > now_s) {
        out = Event{};
        out.kind = Kind::Compute;
        out.seconds = call_end_s_ - now_s;
        return true;
      }
    }
    if (!inner_->next(out, now_s)) return false;
    ++index_;
    if (out.kind == Kind::Compute || out.kind == Kind::Marker || out.kind == Kind::Init) return true;
    if (out.duration_s < 0)
      throw UserError(fmt::format("rank {}, event {} ({}): no traced duration, so it cannot be replayed as traced",
                                  rank_, index_ - 1, events::kind_name(out.kind)),
                      {"", std::nullopt, "--mpi"}, "replay a trace recorded by `perfcast trace` with --mpi model");
    in_call_ = true;
    call_end_s_ = now_s + out.duration_s;
    return true;
  }

  void prefetch() const override { inner_->prefetch(); }

 private:
  std::unique_ptr<events::RankSource> inner_;
  int rank_;
  std::uint64_t index_ = 0;
  bool in_call_ = false;
  double call_end_s_ = 0;
};

class TracedDurationJob : public events::JobSource {
 public:
  explicit TracedDurationJob(events::JobSource& job) : job_(job) {}
  int size() const override { return job_.size(); }
  std::unique_ptr<events::RankSource> open_rank(int rank) override {
    return std::make_unique<TracedDurationRank>(job_.open_rank(rank), rank);
  }

 private:
  events::JobSource& job_;
};

}  // namespace

std::unique_ptr<events::JobSource> with_traced_mpi_durations(events::JobSource& job) {
  return std::make_unique<TracedDurationJob>(job);
}

machine::Machine without_communication_costs(machine::Machine machine) {
  constexpr double unbounded = std::numeric_limits<double>::infinity();
  auto& net = machine.network;
  net.latency_s = net.hop_latency_s = net.overhead_s = net.intra_node_latency_s = 0;
  net.rendezvous_handshakes = 0;
  net.bandwidth_Bps = net.intra_node_bandwidth_Bps = unbounded;
  net.intra_node_one_way = {};
  net.intra_node_exchange = {};
  machine.collectives.clear();
  return machine;
}

}  // namespace perfcast::sim
