#include "sim/collectives.h"

#include <algorithm>
#include <bit>

namespace perfcast::sim {

using events::Kind;

namespace {

// Schedules of P-1 rounds cost O(P^2) messages to play exactly; beyond this
// size they are priced in closed form (Schedule::lockstep).
constexpr int kExactRoundsLimit = 256;

bool is_power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }
int floor_power_of_two(int p) { return static_cast<int>(std::bit_floor(static_cast<unsigned>(p))); }

void dissemination_barrier(Schedule& s, int, double) {
  int p = s.size();
  for (int d = 1; d < p; d *= 2) {
    for (int i = 0; i < p; ++i) s.message(i, (i + d) % p, 0);
    s.end_round();
  }
}

void binomial_bcast(Schedule& s, int root, double n) {
  int p = s.size();
  for (int mask = 1; mask < p; mask <<= 1) {
    for (int v = 0; v < mask && v + mask < p; ++v) s.message((v + root) % p, (v + mask + root) % p, n);
    s.end_round();
  }
}

void binomial_reduce(Schedule& s, int root, double n) {
  int p = s.size();
  for (int mask = 1; mask < p; mask <<= 1) {
    for (int v = mask; v < p; v += 2 * mask) s.message((v + root) % p, (v - mask + root) % p, n);
    s.end_round();
  }
}

void binomial_gather(Schedule& s, int root, double n) {
  int p = s.size();
  for (int mask = 1; mask < p; mask <<= 1) {
    for (int v = mask; v < p; v += 2 * mask)
      s.message((v + root) % p, (v - mask + root) % p, n * std::min(mask, p - v));
    s.end_round();
  }
}

void binomial_scatter(Schedule& s, int root, double n) {
  int p = s.size();
  if (p == 1) return;
  for (int mask = floor_power_of_two(p - 1); mask >= 1; mask >>= 1) {
    for (int v = 0; v + mask < p; v += 2 * mask)
      s.message((v + root) % p, (v + mask + root) % p, n * std::min(mask, p - v - mask));
    s.end_round();
  }
}

// MPICH's non-power-of-two handling: the first 2*rem ranks pair up, the even
// one hands its data to the odd one, the p2 survivors run the doubling, and
// the odd ones hand the result back.
void recursive_doubling_allreduce(Schedule& s, int, double n) {
  int p = s.size();
  int p2 = floor_power_of_two(p);
  int rem = p - p2;
  auto old_rank = [rem](int nr) { return nr < rem ? 2 * nr + 1 : nr + rem; };
  if (rem > 0) {
    for (int i = 0; i < rem; ++i) s.message(2 * i, 2 * i + 1, n);
    s.end_round();
  }
  for (int mask = 1; mask < p2; mask <<= 1) {
    for (int nr = 0; nr < p2; ++nr) s.message(old_rank(nr), old_rank(nr ^ mask), n);
    s.end_round();
  }
  if (rem > 0) {
    for (int i = 0; i < rem; ++i) s.message(2 * i + 1, 2 * i, n);
    s.end_round();
  }
}

void ring_rounds(Schedule& s, int rounds, double bytes) {
  int p = s.size();
  if (p == 1) return;
  if (p > kExactRoundsLimit) return s.lockstep(rounds, 1, bytes);
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < p; ++i) s.message(i, (i + 1) % p, bytes);
    s.end_round();
  }
}

void ring_allreduce(Schedule& s, int, double n) {
  int p = s.size();
  ring_rounds(s, 2 * (p - 1), n / p);
}

void ring_reduce_scatter(Schedule& s, int, double n) {
  int p = s.size();
  ring_rounds(s, p - 1, n / p);
}

void ring_allgather(Schedule& s, int, double n) { ring_rounds(s, s.size() - 1, n); }

void bruck_allgather(Schedule& s, int, double n) {
  int p = s.size();
  for (int d = 1; d < p; d *= 2) {
    for (int i = 0; i < p; ++i) s.message(i, (i - d + p) % p, n * std::min(d, p - d));
    s.end_round();
  }
}

void recursive_doubling_allgather(Schedule& s, int root, double n) {
  int p = s.size();
  if (!is_power_of_two(p)) return bruck_allgather(s, root, n);
  for (int mask = 1; mask < p; mask <<= 1) {
    for (int i = 0; i < p; ++i) s.message(i, i ^ mask, n * mask);
    s.end_round();
  }
}

void bruck_alltoall(Schedule& s, int, double n) {
  int p = s.size();
  for (int d = 1; d < p; d <<= 1) {
    // Blocks whose index has bit d set travel in this round.
    int blocks = (p / (2 * d)) * d + std::max(0, p % (2 * d) - d);
    for (int i = 0; i < p; ++i) s.message(i, (i + d) % p, n * blocks);
    s.end_round();
  }
}

void pairwise_alltoall(Schedule& s, int, double n) {
  int p = s.size();
  if (p == 1) return;
  if (p > kExactRoundsLimit) return s.lockstep(p - 1, -1, n);
  for (int k = 1; k < p; ++k) {
    for (int i = 0; i < p; ++i) s.message(i, (i + k) % p, n);
    s.end_round();
  }
}

void recursive_doubling_scan(Schedule& s, int, double n) {
  int p = s.size();
  for (int d = 1; d < p; d *= 2) {
    for (int i = 0; i + d < p; ++i) s.message(i, i + d, n);
    s.end_round();
  }
}

// Van de Geijn's bcast for large messages (MPICH, Open MPI's tuned
// component): a binomial scatter of the n/P blocks, then an allgather of them,
// so no rank sends the whole message log2 P times.
void scatter_doubling_allgather_bcast(Schedule& s, int root, double n) {
  double block = n / s.size();
  binomial_scatter(s, root, block);
  recursive_doubling_allgather(s, root, block);
}

void scatter_ring_allgather_bcast(Schedule& s, int root, double n) {
  double block = n / s.size();
  binomial_scatter(s, root, block);
  ring_allgather(s, root, block);
}

// Split, dup and cart_create agree on a context id (and split on colors): a
// small allreduce, whatever the call's byte counts (as Pricing::collective_s
// prices them from a table).
void context_id_allreduce(Schedule& s, int root, double) {
  recursive_doubling_allreduce(s, root, mpi::kContextIdBytes);
}

const std::vector<CollectiveAlgorithm> kAlgorithms = {
    {"dissemination", "barrier: ceil(log2 P) rounds, i signals i + 2^k", dissemination_barrier},
    {"binomial_bcast", "bcast: binomial tree from the root, ceil(log2 P) rounds of n bytes", binomial_bcast},
    {"scatter_doubling_allgather_bcast",
     "bcast, medium n, P a power of two: binomial scatter of n/P blocks, recursive-doubling allgather",
     scatter_doubling_allgather_bcast},
    {"scatter_ring_allgather_bcast", "bcast, large n: binomial scatter of n/P blocks, ring allgather",
     scatter_ring_allgather_bcast},
    {"binomial_reduce", "reduce: binomial tree towards the root, n bytes per message", binomial_reduce},
    {"binomial_gather", "gather: binomial tree towards the root, a subtree's blocks per message", binomial_gather},
    {"binomial_scatter", "scatter: binomial tree from the root, a subtree's blocks per message", binomial_scatter},
    {"recursive_doubling_allreduce",
     "allreduce, small n: exchanges with i xor 2^k; non-powers of two fold the extra ranks in first (MPICH)",
     recursive_doubling_allreduce},
    {"ring_allreduce", "allreduce, large n: ring reduce-scatter then ring allgather, 2(P-1) rounds of n/P",
     ring_allreduce},
    {"recursive_doubling_allgather", "allgather, small total, P a power of two: log2 P rounds, doubling blocks",
     recursive_doubling_allgather},
    {"bruck_allgather", "allgather, small total, any P: ceil(log2 P) rounds sending to i - 2^k", bruck_allgather},
    {"ring_allgather", "allgather, large total: P-1 rounds of n to i + 1", ring_allgather},
    {"bruck_alltoall", "alltoall, small blocks: ceil(log2 P) rounds, about P/2 blocks each", bruck_alltoall},
    {"pairwise_alltoall", "alltoall, large blocks: P-1 rounds, round k sends to i + k", pairwise_alltoall},
    {"ring_reduce_scatter", "reduce_scatter: P-1 ring rounds of n/P", ring_reduce_scatter},
    {"recursive_doubling_scan", "scan/exscan: ceil(log2 P) rounds, i sends to i + 2^k", recursive_doubling_scan},
    {"context_id_allreduce", "comm_split/dup/cart_create: an 8-byte recursive-doubling allreduce",
     context_id_allreduce},
};

}  // namespace

void Schedule::raise(int i, double t) {
  auto k = static_cast<size_t>(i);
  next_[k] = std::max(next_[k], t);
  touched_.push_back(i);
}

void Schedule::message(int src, int dst, double bytes) {
  if (src == dst) return;
  double o = net_.overhead_s();
  double ts = t_[static_cast<size_t>(src)], td = t_[static_cast<size_t>(dst)];
  int a = world(src), b = world(dst);
  if (net_.eager(bytes)) {
    raise(src, ts + o);
    raise(dst, std::max(td, ts + net_.transfer_s(a, b, bytes)) + o);
  } else {
    double end = std::max(ts, td) + net_.handshake_s(a, b) + net_.transfer_s(a, b, bytes);
    raise(src, end);
    raise(dst, end + o);
  }
}

void Schedule::end_round() {
  for (int i : touched_) t_[static_cast<size_t>(i)] = next_[static_cast<size_t>(i)];
  touched_.clear();
}

void Schedule::lockstep(int rounds, int distance, double bytes) {
  int p = size();
  double o = net_.overhead_s();
  double step = 0;
  for (int i = 0; i < p; ++i) {
    int a = distance < 0 ? world(0) : world(i);
    int b = distance < 0 ? world((i + 1) % p) : world((i + distance) % p);
    if (a == b) continue;
    double cost = net_.eager(bytes) ? net_.transfer_s(a, b, bytes) + o
                                    : net_.handshake_s(a, b) + net_.transfer_s(a, b, bytes) + o;
    step = std::max(step, cost);
  }
  double last = *std::max_element(t_.begin(), t_.end());
  std::fill(t_.begin(), t_.end(), last + rounds * step);
  next_ = t_;
}

const std::vector<CollectiveAlgorithm>& collective_algorithms() { return kAlgorithms; }

const CollectiveAlgorithm* find_collective_algorithm(const std::string& name) {
  for (const auto& a : kAlgorithms)
    if (name == a.name) return &a;
  return nullptr;
}

const CollectiveAlgorithm& choose_collective_algorithm(Kind kind, int procs, double n) {
  auto pick = [](const char* name) -> const CollectiveAlgorithm& { return *find_collective_algorithm(name); };
  switch (kind) {
    case Kind::Barrier: return pick("dissemination");
    // MPICH's MPIR_Bcast_intra_auto: short messages or few processes binomial.
    case Kind::Bcast:
      if (n < 12 * 1024 || procs < 8) return pick("binomial_bcast");
      if (n < 512 * 1024 && is_power_of_two(procs)) return pick("scatter_doubling_allgather_bcast");
      return pick("scatter_ring_allgather_bcast");
    case Kind::Reduce: return pick("binomial_reduce");
    case Kind::Gather:
    case Kind::Gatherv: return pick("binomial_gather");
    case Kind::Scatter:
    case Kind::Scatterv: return pick("binomial_scatter");
    // MPICH: recursive doubling up to 2 KiB; Open MPI's tuned ring above.
    case Kind::Allreduce: return pick(n <= 2048 ? "recursive_doubling_allreduce" : "ring_allreduce");
    case Kind::Allgather:
    case Kind::Allgatherv: {
      // MPICH's thresholds on the total gathered size.
      double total = n * procs;
      if (is_power_of_two(procs) && total < 512 * 1024) return pick("recursive_doubling_allgather");
      if (!is_power_of_two(procs) && total < 80 * 1024) return pick("bruck_allgather");
      return pick("ring_allgather");
    }
    case Kind::Alltoall:
    case Kind::Alltoallv: return pick(n <= 256 && procs >= 8 ? "bruck_alltoall" : "pairwise_alltoall");
    case Kind::ReduceScatter: return pick("ring_reduce_scatter");
    case Kind::Scan:
    case Kind::Exscan: return pick("recursive_doubling_scan");
    default: return pick("context_id_allreduce");
  }
}

void collective_outcomes(const CollectiveCall& call, const machine::Pricing& net, double table_time_s,
                         std::vector<MemberOutcome>& out) {
  const int p = call.size;
  out.assign(static_cast<size_t>(p), {});
  const auto& a = call.arrival_s;
  int last = 0;
  for (int i = 1; i < p; ++i)
    if (a[static_cast<size_t>(i)] > a[static_cast<size_t>(last)]) last = i;
  const double last_s = a[static_cast<size_t>(last)];
  const bool from_root = call.kind == Kind::Bcast || call.kind == Kind::Scatter || call.kind == Kind::Scatterv;
  const bool to_root = call.kind == Kind::Reduce || call.kind == Kind::Gather || call.kind == Kind::Gatherv;
  const int root = call.root;

  if (table_time_s >= 0) {
    const double t = table_time_s;
    for (int i = 0; i < p; ++i) {
      auto& m = out[static_cast<size_t>(i)];
      double ai = a[static_cast<size_t>(i)];
      if (from_root) {
        m.end_s = std::max(ai, a[static_cast<size_t>(root)]) + t;
        m.waited_on = i == root || ai >= a[static_cast<size_t>(root)] ? -1 : root;
      } else if (to_root && i != root) {
        m.end_s = ai + t;
      } else {
        m.end_s = last_s + t;
        m.waited_on = i == last ? -1 : last;
      }
      m.comm_s = std::min(t, m.end_s - ai);
    }
    return;
  }

  const CollectiveAlgorithm& algorithm = choose_collective_algorithm(call.kind, p, call.bytes);
  // One schedule at a time, so their buffers never coexist.
  std::vector<double> times(a.begin(), a.end());
  {
    Schedule actual(net, call.world_ranks, times);
    algorithm.run(actual, root, call.bytes);
  }
  std::vector<double> ideal(static_cast<size_t>(p), 0.0);
  {
    Schedule together(net, call.world_ranks, ideal);
    algorithm.run(together, root, call.bytes);
  }
  for (int i = 0; i < p; ++i) {
    auto& m = out[static_cast<size_t>(i)];
    double ai = a[static_cast<size_t>(i)];
    m.end_s = std::max(times[static_cast<size_t>(i)], ai);
    m.comm_s = std::min(ideal[static_cast<size_t>(i)], m.end_s - ai);
    int partner = from_root ? root : last;
    m.waited_on = partner == i || a[static_cast<size_t>(partner)] <= ai ? -1 : partner;
  }
}

}  // namespace perfcast::sim
