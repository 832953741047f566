// Collective operations: when each member of one collective call completes.
//
// Two models (engine.h's CollectiveMode):
//  table      — T = Pricing::collective_s(op, P, n), with BSIM's wait rule:
//               bcast/scatter: the root ends at a_root + T, a member at
//                 max(a_i, a_root) + T (receivers wait for the root);
//               reduce/gather: a member ends at a_i + T, the root at
//                 max_j a_j + T (the root waits for the last member);
//               symmetric ones (barrier, allreduce, allgather, alltoall,
//                 reduce_scatter, scan, communicator calls): all end at
//                 max_j a_j + T (everyone waits for the last to arrive).
//  algorithms — the point-to-point schedule an MPI library would run, chosen by
//               size as MPICH/Open MPI do, evaluated round by round from the
//               members' arrival times; each message is priced as in engine.h
//               (eager: the receiver gets it at max(t_dst, t_src + L + n/B) + o,
//               the sender pays o; rendezvous: both busy from max(t_src, t_dst)
//               for (1 + h)L + n/B, h = network.rendezvous_handshakes).
// In both, a member's comm time is what the call costs it when all members
// arrive together (T, or its completion in the schedule evaluated from equal
// arrival times), capped by its blocked time; the rest is wait.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "events/event.h"
#include "sim/costs.h"

namespace perfcast::sim {

// One collective call once every member has arrived. Members are the
// communicator's ranks 0..size-1.
struct CollectiveCall {
  events::Kind kind = events::Kind::Barrier;
  int size = 1;
  int root = 0;                        // comm rank; rooted operations only
  double bytes = 0;                    // n: the per-process message size (count x datatype size)
  std::span<const int> world_ranks;    // comm rank -> world rank; empty: the identity
  std::span<const double> arrival_s;   // per member
};

struct MemberOutcome {
  double end_s = 0;
  double comm_s = 0;    // the rest of [arrival, end] is wait
  int waited_on = -1;   // comm rank this member waited for (-1: none)
};

// The evaluator a schedule is written against: messages are added to the
// current round, and a round's messages all start from the times before it.
class Schedule {
 public:
  Schedule(const machine::Pricing& net, std::span<const int> world_ranks, std::vector<double>& times)
      : net_(net), world_(world_ranks), t_(times), next_(times) {
    touched_.reserve(2 * times.size());  // a round has at most one message per member
  }
  int size() const { return static_cast<int>(t_.size()); }
  void message(int src, int dst, double bytes);
  void end_round();
  // Closed form for schedules of size-1 lock-stepped rounds too long to play
  // (ring, pairwise exchange at large P): everyone ends at the last arrival
  // plus `rounds` times the slowest step, step i being a message i -> i+distance.
  void lockstep(int rounds, int distance, double bytes);
  const machine::Pricing& net() const { return net_; }

 private:
  int world(int i) const { return world_.empty() ? i : world_[static_cast<size_t>(i)]; }
  void raise(int i, double t);

  // A message is priced when added, from the times before the round (t_), and
  // raises next_ (equal to t_ outside the round's members); end_round copies the
  // members it touched back. 16 bytes per member, where buffering the round's
  // messages and their updates took 48 or more: at 32 768 ranks this is the
  // transient peak of every allreduce.
  const machine::Pricing& net_;
  std::span<const int> world_;
  std::vector<double>& t_;
  std::vector<double> next_;
  std::vector<int> touched_;
};

struct CollectiveAlgorithm {
  const char* name;
  const char* description;
  // `root` for rooted operations; `bytes` is n as in CollectiveCall.
  void (*run)(Schedule& schedule, int root, double bytes);
};

// Every algorithm, by name (the one place they are listed).
const std::vector<CollectiveAlgorithm>& collective_algorithms();
const CollectiveAlgorithm* find_collective_algorithm(const std::string& name);
// What an MPI library would choose for `kind` at this size and process count.
const CollectiveAlgorithm& choose_collective_algorithm(events::Kind kind, int procs, double bytes);

// Fills out[i] for every member. `table_time_s` >= 0 selects the table rule with
// that T; otherwise the algorithm chosen for the call is evaluated.
void collective_outcomes(const CollectiveCall& call, const machine::Pricing& net, double table_time_s,
                         std::vector<MemberOutcome>& out);

}  // namespace perfcast::sim
