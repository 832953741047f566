#include "sim/engine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <memory>

#include <fmt/format.h>

#include "events/event_domain.h"
#include "sim/collectives.h"
#include "sim/costs.h"
#include "sim/engine_state.h"
#include "support/error.h"
#include "support/large_blocks.h"

namespace perfcast::sim {

const char* collective_mode_name(CollectiveMode mode) {
  switch (mode) {
    case CollectiveMode::Auto: return "auto";
    case CollectiveMode::Table: return "table";
    case CollectiveMode::Algorithms: return "algorithms";
  }
  return "?";
}

bool parse_collective_mode(std::string_view name, CollectiveMode& out) {
  for (auto m : {CollectiveMode::Auto, CollectiveMode::Table, CollectiveMode::Algorithms})
    if (name == collective_mode_name(m)) {
      out = m;
      return true;
    }
  return false;
}

namespace {

using events::Event;
using events::Kind;
using namespace engine_state;

constexpr int kCrossingScan = 256;  // live requests an eager send looks through for a crossing message

// Jobs this big put the engine's per-rank state, heap and pools in huge pages
// (support/large_blocks.h): their state (~0.9 KB per replayed rank) outgrows
// the last-level cache and the reach of the TLB with small pages, and with
// ranks out of step nearly every access misses both. Measured (jittered stencil,
// CPU s): -9 % at 32 768 ranks (median of 4), -21..-50 % from 131 072. The slack
// of partly touched huge pages (up to 2 MiB per structure) costs +115 B per
// rank at 32 768 (992 B per rank in all) and would cost +175 B at 16 384 (1061
// B, over the 1 KB per replayed rank goal), where small jobs fit the cache.
constexpr int kHugePagesFromRanks = 32768;

class Engine {
 public:
  Engine(events::JobSource& job, const machine::Machine& machine, const SimOptions& options)
      : job_(job),
        options_(options),
        nranks_(job.size()),
        net_(machine, std::max(nranks_, 1)),
        compute_(net_, options_.work_pricer) {}

  SimResult run();

 private:
  static constexpr std::uint64_t kProgressCheckEvents = 1 << 16;
  void report_progress(std::chrono::steady_clock::time_point wall_start);

  // Scheduling.
  void push(int r, double t);
  bool first_in_line(int r, double t);
  void step(int r);
  void process(RankState& R, int r);
  void resolve(int r, double end, double transfer_start, int peer_world);
  void finish_block(RankState& R, int r);

  // Point to point.
  struct Route {
    int world = 0;   // the peer's world rank
    int handle = 0;  // the peer's handle of the communicator
    int my_rank = 0; // this rank in the communicator
  };
  Route route(RankState& R, int r, std::int32_t comm, std::int32_t peer, const char* what);
  Queues& queues(int world, int handle);
  std::uint32_t new_request(Kind kind);
  void free_request(std::uint32_t q);
  std::uint32_t new_envelope(int owner);
  void free_envelope(std::uint32_t e);
  std::uint32_t copy_event(const Event& e);
  void wait_for(RankState& R, std::uint32_t q, std::uint32_t& tail);
  std::uint32_t post_send(RankState& R, int r, std::int32_t peer, std::int32_t tag, std::uint64_t bytes, bool sync);
  std::uint32_t post_recv(RankState& R, int r, std::int32_t peer, std::int32_t tag, std::uint64_t bytes);
  struct Flight {
    double seconds = 0;
    bool crossing = false;  // priced as one step of an exchange
  };
  Flight eager_flight(RankState& R, int r, std::int32_t my_handle, int peer_world, double bytes);
  void arrive(int d, int handle, std::uint32_t message);
  void match(std::uint32_t message, std::uint32_t posted);
  void complete(std::uint32_t q, int owner);
  void block_on(RankState& R, int r, WaitMode mode);
  std::uint32_t lookup_request(RankState& R, int r, std::uint64_t id);
  void release(RankState& R, std::uint32_t q);
  void probe(RankState& R, int r);
  void probe_found(RankState& R, int r, std::uint32_t message);

  // Collectives.
  void collective(RankState& R, int r);
  void complete_collective(Comm& c);
  void create_communicators(Comm& c);
  void free_communicator(RankState& R, int r);

  [[noreturn]] void fail(int r, const std::string& what) const;
  [[noreturn]] void deadlock() const;
  [[noreturn]] void over_budget() const;
  void collect_warnings();
  std::string unfinished_ranks() const;
  std::string describe_block(int r) const;
  const Envelope* envelope_of(std::uint32_t q, int owner) const;
  std::int32_t comm_rank_of(int r, std::int32_t handle, int world) const;

  events::JobSource& job_;
  SimOptions options_;
  int nranks_;
  machine::Pricing net_;
  ComputeModel compute_;

  // Per-rank state, in huge pages for big jobs (kHugePagesFromRanks).
  std::vector<RankState, LargeAllocator<RankState>> ranks_;
  std::deque<Comm> comms_;  // [0] is MPI_COMM_WORLD; a deque so references survive new communicators
  // Pools with global free lists: slots freed by one rank serve the next, which
  // keeps the pools at the job's peak of operations in flight. (Per-rank free
  // lists were tried: more memory and no faster.)
  Pool<Request> requests_;
  std::uint32_t free_requests_ = kNone;
  Pool<Envelope> envelopes_;
  std::uint32_t free_envelopes_ = kNone;
  Pool<MoverCopy> event_copies_;
  std::vector<std::uint32_t> free_event_copies_;
  // The event of the rank acting: one buffer for all ranks (sources refill it
  // whole), so it stays in cache and costs no memory per rank.
  Event ev_;
  std::vector<Event> mover_events_;  // a collective's members, for the DataMover
  ReadyQueue heap_;
  int current_ = -1;
  int finished_ = 0;
  // SimOptions::progress: when to look at the clock next, and when it was last called.
  std::uint64_t next_progress_check_ = kProgressCheckEvents;
  std::chrono::steady_clock::time_point last_progress_{};
  SimResult result_;
  TimedRegionMarks region_marks_;
  std::vector<MemberOutcome> outcomes_;
};

// ---------------------------------------------------------------------------
// Scheduling

void Engine::push(int r, double t) {
  auto& R = ranks_[static_cast<size_t>(r)];
  heap_.push({t, r, ++R.seq});
}

// True when rank r at time t comes before every other rank waiting to act, so
// it can go on without a trip through the heap.
bool Engine::first_in_line(int r, double t) {
  while (!heap_.empty()) {
    const HeapEntry& top = heap_.top();
    if (ranks_[static_cast<size_t>(top.rank)].seq == top.seq) break;
    heap_.pop();
  }
  if (heap_.empty()) return true;
  const HeapEntry& top = heap_.top();
  return t < top.t || (t == top.t && r < top.rank);
}

SimResult Engine::run() {
  auto wall_start = std::chrono::steady_clock::now();
  ranks_.reserve(static_cast<size_t>(nranks_));
  heap_.reserve(static_cast<size_t>(nranks_));
  if (nranks_ >= kHugePagesFromRanks) {
    // Before the first touch, which would fault small pages in.
    advise_huge_pages(ranks_.data(), ranks_.capacity() * sizeof(RankState));
    heap_.use_huge_pages();
    requests_.use_huge_pages();
    envelopes_.use_huge_pages();
    event_copies_.use_huge_pages();
  }
  ranks_.resize(static_cast<size_t>(nranks_));
  comms_.emplace_back().size = nranks_;
  for (int r = 0; r < nranks_; ++r) ranks_[static_cast<size_t>(r)].source = job_.open_rank(r);
  for (int r = 0; r < nranks_; ++r) push(r, 0.0);

  while (!heap_.empty()) {
    HeapEntry e = heap_.top();
    heap_.pop();
    if (ranks_[static_cast<size_t>(e.rank)].seq != e.seq) continue;  // superseded
    // The rank likely next: its state loads while this one steps.
    if (!heap_.empty()) ranks_[static_cast<size_t>(heap_.top().rank)].source->prefetch();
    step(e.rank);
    if (options_.progress && result_.events >= next_progress_check_) report_progress(wall_start);
  }
  if (finished_ < nranks_) deadlock();
  collect_warnings();

  size_t bytes = ranks_.capacity() * sizeof(RankState) + requests_.bytes() + envelopes_.bytes() +
                 heap_.bytes() + event_copies_.bytes() +
                 free_event_copies_.capacity() * sizeof(std::uint32_t) + sizeof(Event) +
                 (ev_.requests.capacity() + ev_.counts.capacity() + ev_.counts2.capacity()) * sizeof(std::uint64_t) +
                 mover_events_.capacity() * sizeof(Event) + outcomes_.capacity() * sizeof(MemberOutcome);
  for (const auto& R : ranks_) bytes += R.comms.capacity() * sizeof(CommRef);
  for (const auto& c : comms_)
    bytes += (c.world.capacity() + c.handles.capacity() + c.entered.capacity()) * sizeof(std::int32_t) +
             c.arrival.capacity() * sizeof(double) + c.creating.capacity() * sizeof(Creating);
  result_.engine_bytes = bytes;
  // The pools are done with: give them back before the results are made, so
  // that memory serves the results instead of adding to the peak.
  requests_.release();
  envelopes_.release();
  event_copies_.release();
  heap_.release();
  result_.ranks.resize(static_cast<size_t>(nranks_));
  result_.placement = net_.placement();
  size_t slowest = 0;
  for (size_t r = 0; r < ranks_.size(); ++r) {
    const auto& R = ranks_[r];
    // A time past the largest double (a message of 2^64 bytes at a bandwidth near zero)
    // is no prediction: say so rather than hand back infinity.
    if (!std::isfinite(R.clock) || !std::isfinite(R.wait) || !std::isfinite(R.comm))
      throw UserError(fmt::format("rank {}: the simulated time overflows (calc {} s, wait {} s, comm {} s)", r,
                                  R.calc, R.wait, R.comm),
                      {}, "check the machine's bandwidths and latencies and the streams' message sizes");
    result_.ranks[r] = {R.calc, R.wait, R.comm, R.clock};
    if (R.clock > ranks_[slowest].clock) slowest = r;
  }
  if (nranks_ > 0) {
    const auto& S = ranks_[slowest];
    result_.slowest_rank = static_cast<int>(slowest);
    result_.predicted_time_s = S.clock;
    result_.slowest_component = S.calc >= S.wait && S.calc >= S.comm ? "calc" : S.wait >= S.comm ? "wait" : "comm";
    if (result_.slowest_component == "wait") {
      const WaitTally* best = &S.tally[0];
      for (const auto& t : S.tally)
        if (t.seconds > best->seconds) best = &t;
      result_.slowest_waited_on = best->peer;
    }
  }
  result_.timed_region = region_marks_.region(nranks_);
  result_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return std::move(result_);
}

void Engine::report_progress(std::chrono::steady_clock::time_point wall_start) {
  next_progress_check_ = result_.events + kProgressCheckEvents;
  auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - std::max(last_progress_, wall_start)).count() < options_.progress_every_s)
    return;
  last_progress_ = now;
  SimProgress p;
  p.events = result_.events;
  p.ranks_done = finished_;
  p.ranks = nranks_;
  p.simulated_s = heap_.empty() ? 0 : heap_.top().t;
  p.wall_s = std::chrono::duration<double>(now - wall_start).count();
  options_.progress(p);
}

void Engine::step(int r) {
  auto& R = ranks_[static_cast<size_t>(r)];
  current_ = r;
  if (R.block != Block::None) finish_block(R, r);
  for (;;) {
    if (!R.source->next(ev_, R.clock)) {
      R.block = Block::Done;
      ++finished_;
      break;
    }
    R.call = Call::of(ev_);
    ++R.index;
    if (auto why = events::domain_error(ev_)) fail(r, *why);
    ++result_.events;
    if (R.finalized && ev_.kind != Kind::Compute && ev_.kind != Kind::Marker) ++R.calls_after_finalize;
    if (ev_.kind == Kind::Init) R.initialized = true;
    if (ev_.kind == Kind::Finalize) R.finalized = true;
    if ((options_.max_events && result_.events > options_.max_events) ||
        (options_.max_simulated_s > 0 && R.clock > options_.max_simulated_s))
      over_budget();
    ++result_.kind_counts[static_cast<size_t>(ev_.kind)];
    if (ev_.kind != Kind::Compute && ev_.kind != Kind::Marker) ++result_.mpi_calls;
    process(R, r);
    if (R.block == Block::None) {
      if (first_in_line(r, R.clock)) continue;
      push(r, R.clock);
      break;
    }
    if (!R.resolved) break;  // someone else's action will release it
    if (!first_in_line(r, R.resume_end)) {
      push(r, R.resume_end);
      break;
    }
    finish_block(R, r);
  }
  current_ = -1;
}

// Rank r's blocking call ends at `end`; the part after `transfer_start` is comm.
void Engine::resolve(int r, double end, double transfer_start, int peer_world) {
  auto& R = ranks_[static_cast<size_t>(r)];
  end = std::max(end, R.block_start);
  R.resolved = true;
  R.resume_end = end;
  R.resume_comm = std::clamp(end - std::max(R.block_start, transfer_start), 0.0, end - R.block_start);
  R.resume_peer = peer_world;
  if (r != current_) push(r, end);
}

void Engine::finish_block(RankState& R, int r) {
  if (R.block == Block::Requests) {
    if (R.mode == WaitMode::Any) {
      // The earliest completed, ties by position; it may have become known
      // after the rank was first released.
      std::uint32_t chosen = kNone;
      for (auto q = R.waiting; q != kNone; q = requests_[q].wait_next)
        if (requests_[q].done && (chosen == kNone || requests_[q].end_s < requests_[chosen].end_s)) chosen = q;
      const Request& c = requests_[chosen];
      R.resume_end = std::max(c.end_s, R.block_start);
      R.resume_comm =
          std::clamp(R.resume_end - std::max(R.block_start, c.transfer_start_s), 0.0, R.resume_end - R.block_start);
      R.resume_peer = c.peer_world;
      for (auto q = R.waiting; q != kNone; q = requests_[q].wait_next) requests_[q].waited = false;
      release(R, chosen);
    } else {
      for (auto q = R.waiting; q != kNone;) {
        auto next = requests_[q].wait_next;  // read before release frees q
        requests_[q].waited = false;
        if (R.mode == WaitMode::All || (requests_[q].done && requests_[q].end_s <= R.resume_end)) release(R, q);
        q = next;
      }
    }
    R.waiting = kNone;
  }
  double blocked = R.resume_end - R.block_start;
  double comm = R.resume_comm;
  double wait = std::max(0.0, blocked - comm);
  if (options_.timeline && blocked > 0) {
    if (wait > 0) options_.timeline->span(r, SpanKind::Wait, R.call.kind, R.block_start, R.block_start + wait);
    if (comm > 0) options_.timeline->span(r, SpanKind::Comm, R.call.kind, R.block_start + wait, R.resume_end);
  }
  R.wait += wait;
  R.comm += comm;
  R.add_wait(R.resume_peer, wait);
  R.clock = R.resume_end;
  R.block = Block::None;
  R.resolved = false;
}

// ---------------------------------------------------------------------------
// Events

void Engine::process(RankState& R, int r) {
  const Event& e = ev_;
  switch (e.kind) {
    case Kind::Compute: {
      if (e.seconds < 0 && e.live && !options_.work_pricer)
        fail(r, "a compute burst given by its work (a program model's counts), and nothing to price it with");
      double dt = compute_.start(e, r, R.clock);
      if (dt < 0 || dt != dt) fail(r, fmt::format("compute burst of {} s", dt));
      if (!std::isfinite(R.clock + dt))
        fail(r, fmt::format("compute burst of {} s at t = {} s: the rank's time overflows", dt, R.clock));
      if (options_.timeline && dt > 0) options_.timeline->span(r, SpanKind::Compute, e.kind, R.clock, R.clock + dt);
      R.clock += dt;
      R.calc += dt;
      // Bursts that started at this moment on the node, priced again with
      // this one among them (sim/costs.h); each waits in the heap at its end.
      for (const auto& [m, delta] : compute_.repriced()) {
        auto& M = ranks_[static_cast<size_t>(m)];
        if (options_.timeline && delta > 0) options_.timeline->span(m, SpanKind::Compute, e.kind, M.clock, M.clock + delta);
        M.clock += delta;
        M.calc += delta;
        push(m, M.clock);
      }
      return;
    }
    case Kind::Send:
    case Kind::Ssend: {
      auto q = post_send(R, r, e.peer, e.tag, e.bytes, e.kind == Kind::Ssend);
      if (q == kNone) return;  // eager: gone
      requests_[q].internal = true;
      std::uint32_t tail = kNone;
      wait_for(R, q, tail);
      block_on(R, r, WaitMode::All);
      return;
    }
    case Kind::Isend:
    case Kind::Issend:
    case Kind::Irecv: {
      std::uint32_t q = e.kind == Kind::Irecv ? post_recv(R, r, e.peer, e.tag, e.bytes)
                                               : post_send(R, r, e.peer, e.tag, e.bytes, e.kind == Kind::Issend);
      if (q == kNone) {  // an eager send is complete once posted
        q = new_request(e.kind);
        requests_[q].done = true;
        requests_[q].end_s = requests_[q].transfer_start_s = R.clock;
      }
      requests_[q].id = e.request;
      if (R.requests_tail == kNone) R.requests = q;
      else requests_[R.requests_tail].next = q;
      R.requests_tail = q;
      return;
    }
    case Kind::Recv: {
      auto q = post_recv(R, r, e.peer, e.tag, e.bytes);
      requests_[q].internal = true;
      std::uint32_t tail = kNone;
      wait_for(R, q, tail);
      block_on(R, r, WaitMode::All);
      return;
    }
    case Kind::Sendrecv: {
      auto s = post_send(R, r, e.peer, e.tag, e.bytes, false);
      auto q = post_recv(R, r, e.root, e.tag2, e.bytes2);
      std::uint32_t tail = kNone;
      if (s != kNone) {
        requests_[s].internal = true;
        wait_for(R, s, tail);
      }
      requests_[q].internal = true;
      wait_for(R, q, tail);
      block_on(R, r, WaitMode::All);
      return;
    }
    case Kind::Probe: probe(R, r); return;
    case Kind::Wait:
    case Kind::Waitall:
    case Kind::Waitany:
    case Kind::Waitsome: {
      std::uint32_t tail = kNone;
      for (auto id : e.requests) wait_for(R, lookup_request(R, r, id), tail);
      if (R.waiting == kNone) return;
      block_on(R, r, e.kind == Kind::Waitany ? WaitMode::Any : e.kind == Kind::Waitsome ? WaitMode::Some : WaitMode::All);
      return;
    }
    case Kind::Test:
    case Kind::Testall: {
      bool all = true;
      for (auto id : e.requests) {
        auto q = lookup_request(R, r, id);
        if (!requests_[q].done || requests_[q].end_s > R.clock) all = false;
      }
      if (all)
        for (auto id : e.requests) release(R, lookup_request(R, r, id));
      return;
    }
    case Kind::CommFree: free_communicator(R, r); return;
    case Kind::Pcontrol: region_marks_.mark(r, e.tag, R.clock); return;
    case Kind::Init:
    case Kind::Finalize:
    case Kind::Marker: return;
    default:
      if (events::is_collective(e.kind)) return collective(R, r);
      fail(r, fmt::format("unsupported event kind {}", static_cast<int>(e.kind)));
  }
}

void Engine::block_on(RankState& R, int r, WaitMode mode) {
  R.block = Block::Requests;
  R.mode = mode;
  R.block_start = R.clock;
  R.resolved = false;
  R.pending = 0;
  R.pending_max = R.clock;
  R.critical = kNone;
  std::uint32_t earliest = kNone;
  for (auto q = R.waiting; q != kNone; q = requests_[q].wait_next) {
    Request& req = requests_[q];
    if (!req.done) {
      ++R.pending;
      continue;
    }
    if (R.critical == kNone || req.end_s > R.pending_max) {
      R.pending_max = std::max(R.pending_max, req.end_s);
      R.critical = q;
    }
    if (earliest == kNone || req.end_s < requests_[earliest].end_s) earliest = q;
  }
  if (mode == WaitMode::All) {
    if (R.pending == 0) {
      const Request& c = requests_[R.critical];
      resolve(r, R.pending_max, c.transfer_start_s, c.peer_world);
    }
  } else if (earliest != kNone) {
    const Request& c = requests_[earliest];
    resolve(r, c.end_s, c.transfer_start_s, c.peer_world);
  }
}

// A request's end became known: release its owner when that was the last
// (or, for waitany/waitsome, an earlier) one it waited for.
void Engine::complete(std::uint32_t q, int owner) {
  Request& req = requests_[q];
  req.done = true;
  if (!req.waited) return;
  auto& R = ranks_[static_cast<size_t>(owner)];
  if (R.block != Block::Requests) return;
  if (R.mode == WaitMode::All) {
    if (R.critical == kNone || req.end_s > R.pending_max) {
      R.pending_max = std::max(R.pending_max, req.end_s);
      R.critical = q;
    }
    if (--R.pending == 0) {
      const Request& c = requests_[R.critical];
      resolve(owner, R.pending_max, c.transfer_start_s, c.peer_world);
    }
  } else if (!R.resolved || std::max(req.end_s, R.block_start) < R.resume_end) {
    resolve(owner, req.end_s, req.transfer_start_s, req.peer_world);
  }
}

// Completions mostly name requests in the order they were made, which is the
// list's: the search starts after the last request found and wraps around, so
// a waitall of k requests costs O(k), not O(k^2).
std::uint32_t Engine::lookup_request(RankState& R, int r, std::uint64_t id) {
  std::uint32_t start = R.found == kNone ? kNone : requests_[R.found].next;
  for (auto q = start; q != kNone; q = requests_[q].next)
    if (requests_[q].id == id) return R.found = q;
  for (auto q = R.requests; q != start; q = requests_[q].next)
    if (requests_[q].id == id) return R.found = q;
  fail(r, fmt::format("{} on request {}, which no earlier isend/irecv of this rank created (or was already completed)",
                      events::kind_name(R.call.kind), id));
}

// Appends request q to the blocking call's list (tail: its last element so far).
// Marking it waited here catches a request listed twice, which would close the list on itself.
void Engine::wait_for(RankState& R, std::uint32_t q, std::uint32_t& tail) {
  Request& req = requests_[q];
  if (req.waited)
    fail(static_cast<int>(&R - ranks_.data()),
         fmt::format("request {} is listed twice in the same completion call", req.id));
  req.waited = true;
  req.wait_next = kNone;
  if (tail == kNone) R.waiting = q;
  else requests_[tail].wait_next = q;
  tail = q;
}

void Engine::release(RankState& R, std::uint32_t q) {
  if (!requests_[q].internal) {
    // Requests mostly complete in the order they were made: q is near the head.
    std::uint32_t prev = kNone, i = R.requests;
    for (; i != kNone && i != q; i = requests_[i].next) prev = i;
    if (i == q) {
      std::uint32_t next = requests_[q].next;
      if (prev == kNone) R.requests = next;
      else requests_[prev].next = next;
      if (R.requests_tail == q) R.requests_tail = prev;
      if (R.found == q) R.found = prev;
    }
  }
  free_request(q);
}

std::uint32_t Engine::new_request(Kind kind) {
  std::uint32_t q;
  auto& free_list = free_requests_;
  if (free_list != kNone) {
    q = free_list;
    free_list = static_cast<std::uint32_t>(requests_[q].id);
  } else {
    q = requests_.add();
  }
  Request& req = requests_[q];
  req = Request{};
  req.kind = kind;
  return q;
}

void Engine::free_request(std::uint32_t q) {
  auto& free_list = free_requests_;
  requests_[q].id = free_list;
  free_list = q;
}

std::uint32_t Engine::new_envelope(int owner) {
  std::uint32_t i;
  auto& free_list = free_envelopes_;
  if (free_list != kNone) {
    i = free_list;
    free_list = envelopes_[i].next;
  } else {
    i = envelopes_.add();
  }
  envelopes_[i] = Envelope{};
  envelopes_[i].world = owner;
  return i;
}

void Engine::free_envelope(std::uint32_t i) {
  auto& free_list = free_envelopes_;
  envelopes_[i].next = free_list;
  free_list = i;
}

std::uint32_t Engine::copy_event(const Event& e) {
  if (!options_.mover) return kNone;
  std::uint32_t i;
  if (!free_event_copies_.empty()) {
    i = free_event_copies_.back();
    free_event_copies_.pop_back();
  } else {
    i = event_copies_.add();
  }
  event_copies_[i] = mover_copy(e);
  return i;
}

Engine::Route Engine::route(RankState& R, int r, std::int32_t comm, std::int32_t peer, const char* what) {
  if (comm == events::kCommWorld) {
    if (peer < 0 || peer >= nranks_) fail(r, fmt::format("{} {} is not a rank of MPI_COMM_WORLD (size {})", what, peer, nranks_));
    return {peer, events::kCommWorld, r};
  }
  if (comm == events::kCommSelf) {
    if (peer != 0) fail(r, fmt::format("{} {} is not a rank of MPI_COMM_SELF", what, peer));
    return {r, events::kCommSelf, 0};
  }
  size_t h = static_cast<size_t>(comm) - 2;
  if (comm < 0 || h >= R.comms.size() || R.comms[h].id < 0)
    fail(r, fmt::format("communicator handle {} was not created by this rank (or was freed)", comm));
  const Comm& c = comms_[static_cast<size_t>(R.comms[h].id)];
  if (peer < 0 || peer >= c.size)
    fail(r, fmt::format("{} {} is not a rank of communicator {} (size {})", what, peer, comm, c.size));
  return {c.world_of(peer), c.handle_of(peer), R.comms[h].my_rank};
}

Queues& Engine::queues(int world, int handle) {
  auto& R = ranks_[static_cast<size_t>(world)];
  if (handle == events::kCommWorld) return R.world_queues;
  if (handle == events::kCommSelf) return R.self_queues;
  return R.comms[static_cast<size_t>(handle) - 2].queues;
}

// Returns the send's request, or kNone for an eager message (done once posted).
std::uint32_t Engine::post_send(RankState& R, int r, std::int32_t peer, std::int32_t tag, std::uint64_t bytes,
                                bool sync) {
  const Event& e = ev_;
  if (peer == events::kProcNull) return kNone;
  Route to = route(R, r, e.comm, peer, "destination");
  double n = static_cast<double>(bytes);
  auto m = new_envelope(r);
  Envelope& env = envelopes_[m];
  env.source = to.my_rank;
  env.tag = tag;
  env.world = r;
  env.bytes = n;
  env.time_s = R.clock;
  env.comm = e.comm;
  env.live = e.live;
  env.kind = e.kind;
  std::uint32_t q = kNone;
  if (net_.eager(n) && !sync) {
    Flight flight = eager_flight(R, r, e.comm, to.world, n);
    env.crossed = flight.crossing;
    env.arrival_s = R.clock + flight.seconds;
    double o = net_.overhead_s();
    if (o > 0) {
      if (options_.timeline) options_.timeline->span(r, SpanKind::Comm, e.kind, R.clock, R.clock + o);
      R.clock += o;
      R.comm += o;
    }
  } else {
    env.rendezvous = true;
    env.arrival_s = R.clock + net_.latency_s(r, to.world);
    q = new_request(e.kind);
    requests_[q].peer_world = to.world;
    env.request = q;
  }
  arrive(to.world, to.handle, m);
  return q;
}

// The flight of an eager message rank r sends `peer_world` now. A message
// from that peer still in flight (sent before this one would arrive, arriving
// after now) crosses it: the two are one step of an exchange, and where the
// machine measured that step (network.intra_node_exchange: 1.2-1.5x the
// one-way time on the calibration host, both copies contending) each takes it.
// The earlier message was priced one-way when it was sent; its flight is
// stretched by the same ratio here. Rank r has not waited for it (it is
// sending), so no completion has been handed out yet. Only messages on the
// same communicator and still eager are looked at: a rendezvous transfer is
// priced when both sides are there, by the one-way curve that holds its
// handshakes.
Engine::Flight Engine::eager_flight(RankState& R, int r, std::int32_t my_handle, int peer_world, double bytes) {
  const double one_way = net_.transfer_s(r, peer_world, bytes);
  auto step = net_.exchange_s(r, peer_world, bytes);
  if (!step || !(*step > one_way)) return {one_way, false};
  const double now = R.clock, ratio = *step / one_way, o = net_.overhead_s();
  auto crosses = [&](double sent, double arrival) { return arrival > now && sent < now + *step; };
  bool crossing = false;
  // Arrived before a receive was posted for it: waiting in r's unexpected queue.
  Queues& mine = queues(r, my_handle);
  for (auto m = mine.unexpected_head; m != kNone; m = envelopes_[m].next) {
    Envelope& msg = envelopes_[m];
    if (msg.world != peer_world || msg.rendezvous || !crosses(msg.time_s, msg.arrival_s)) continue;
    crossing = true;
    if (!msg.crossed) msg.arrival_s = msg.time_s + (msg.arrival_s - msg.time_s) * ratio, msg.crossed = true;
  }
  // Matched with a receive r posted: that request is done, its end the arrival
  // + o. The scan stops after kCrossingScan live requests: a halo exchange has
  // a few dozen; a rank with thousands in flight runs an all-to-all by hand,
  // where a per-send scan would cost O(k^2), and its crossings stay one-way.
  int scanned = 0;
  for (auto q = R.requests; q != kNone && scanned < kCrossingScan; q = requests_[q].next, ++scanned) {
    Request& req = requests_[q];
    if (!req.eager_in || !req.done || req.peer_world != peer_world || !crosses(req.transfer_start_s, req.end_s - o))
      continue;
    crossing = true;
    if (!req.crossed) {
      double arrival = req.transfer_start_s + (req.end_s - o - req.transfer_start_s) * ratio;
      req.end_s = arrival + o;
      req.crossed = true;
    }
  }
  return crossing ? Flight{*step, true} : Flight{one_way, false};
}

std::uint32_t Engine::post_recv(RankState& R, int r, std::int32_t peer, std::int32_t tag, std::uint64_t bytes) {
  const Event& e = ev_;
  auto q = new_request(Kind::Irecv);
  if (peer == events::kProcNull) {
    requests_[q].done = true;
    requests_[q].end_s = requests_[q].transfer_start_s = R.clock;
    return q;
  }
  int my_handle = e.comm;
  if (peer != events::kAnySource) requests_[q].peer_world = route(R, r, e.comm, peer, "source").world;
  else route(R, r, e.comm, 0, "source");  // checks the handle
  auto p = new_envelope(r);
  {
    Envelope& posted = envelopes_[p];
    posted.source = peer;
    posted.tag = tag;
    posted.world = r;
    posted.bytes = static_cast<double>(bytes);
    posted.time_s = R.clock;
    posted.request = q;
    posted.comm = e.comm;
    posted.live = e.live;
    posted.kind = e.kind;
  }
  Queues& qs = queues(r, my_handle);
  std::uint32_t prev = kNone;
  for (auto m = qs.unexpected_head; m != kNone; prev = m, m = envelopes_[m].next) {
    if (!matches(peer, tag, envelopes_[m].source, envelopes_[m].tag)) continue;
    std::uint32_t next = envelopes_[m].next;
    if (prev == kNone) qs.unexpected_head = next;
    else envelopes_[prev].next = next;
    if (qs.unexpected_tail == m) qs.unexpected_tail = prev;
    match(m, p);
    return q;
  }
  if (qs.posted_tail == kNone) qs.posted_head = p;
  else envelopes_[qs.posted_tail].next = p;
  qs.posted_tail = p;
  return q;
}

// A message reaches receiver d: the first posted receive it matches takes it,
// else it waits in arrival order (which keeps MPI's non-overtaking rule).
void Engine::arrive(int d, int handle, std::uint32_t m) {
  Queues& qs = queues(d, handle);
  const Envelope& msg = envelopes_[m];
  std::uint32_t prev = kNone;
  for (auto p = qs.posted_head; p != kNone; prev = p, p = envelopes_[p].next) {
    if (!matches(envelopes_[p].source, envelopes_[p].tag, msg.source, msg.tag)) continue;
    std::uint32_t next = envelopes_[p].next;
    if (prev == kNone) qs.posted_head = next;
    else envelopes_[prev].next = next;
    if (qs.posted_tail == p) qs.posted_tail = prev;
    match(m, p);
    return;
  }
  if (qs.unexpected_tail == kNone) qs.unexpected_head = m;
  else envelopes_[qs.unexpected_tail].next = m;
  qs.unexpected_tail = m;
  auto& R = ranks_[static_cast<size_t>(d)];
  if (R.block == Block::Probe && !R.resolved && R.call.comm == handle &&
      matches(R.call.peer, R.call.tag, msg.source, msg.tag))
    probe_found(R, d, m);
}

// Rank r's probe sees message m (which stays queued): its status is m's envelope.
void Engine::probe_found(RankState& R, int r, std::uint32_t m) {
  const Envelope& msg = envelopes_[m];
  if (options_.mover) {
    // A copy: the probe's own call keeps its filters (wildcards) for reports.
    Event status;
    status.kind = R.call.kind;
    status.comm = R.call.comm;
    status.peer = msg.source;
    status.tag = msg.tag;
    status.live = R.call.live;
    options_.mover->deliver(mover_event(msg), msg.world, status, r);
  }
  resolve(r, msg.arrival_s, msg.time_s, msg.world);
}

void Engine::match(std::uint32_t m, std::uint32_t p) {
  const Envelope& msg = envelopes_[m];
  const Envelope& posted = envelopes_[p];
  if (msg.bytes > posted.bytes)  // MPI_ERR_TRUNCATE: a receive takes at most its buffer
    throw UserError(fmt::format("rank {} received a message of {} bytes from rank {} (tag {}) into a receive of {} "
                                "bytes: MPI_ERR_TRUNCATE",
                                posted.world, msg.bytes, msg.world, msg.tag, posted.bytes),
                    {}, "a receive's count x datatype size must hold the matched message");
  double o = net_.overhead_s();
  Request& recv = requests_[posted.request];
  recv.peer_world = msg.world;
  if (!msg.rendezvous) {
    recv.end_s = std::max(posted.time_s, msg.arrival_s) + o;
    recv.transfer_start_s = msg.time_s;
    recv.eager_in = true;  // a send of its receiver that crosses it can still stretch its flight
    recv.crossed = msg.crossed;
  } else {
    double start = std::max(msg.time_s, posted.time_s);
    double end = start + net_.handshake_s(msg.world, posted.world) + net_.transfer_s(msg.world, posted.world, msg.bytes);
    Request& send = requests_[msg.request];
    send.end_s = end;
    send.transfer_start_s = start;
    recv.end_s = end + o;
    recv.transfer_start_s = start;
  }
  if (options_.mover) {
    Event received = mover_event(posted);
    received.peer = msg.source;
    received.tag = msg.tag;
    options_.mover->deliver(mover_event(msg), msg.world, received, posted.world);
  }
  std::uint32_t send_request = msg.rendezvous ? msg.request : kNone;
  std::uint32_t recv_request = posted.request;
  int send_world = msg.world, recv_world = posted.world;
  free_envelope(m);
  free_envelope(p);
  if (send_request != kNone) complete(send_request, send_world);
  complete(recv_request, recv_world);
}

void Engine::probe(RankState& R, int r) {
  const Event& e = ev_;
  R.block = Block::Probe;
  R.block_start = R.clock;
  R.resolved = false;
  if (e.peer == events::kProcNull) return resolve(r, R.clock, R.clock, -1);
  if (e.peer != events::kAnySource) route(R, r, e.comm, e.peer, "source");
  else route(R, r, e.comm, 0, "source");
  const Queues& qs = queues(r, e.comm);
  for (auto m = qs.unexpected_head; m != kNone; m = envelopes_[m].next) {
    const Envelope& msg = envelopes_[m];
    if (matches(e.peer, e.tag, msg.source, msg.tag)) return probe_found(R, r, m);
  }
}

// ---------------------------------------------------------------------------
// Collectives and communicators

void Engine::collective(RankState& R, int r) {
  const Event& e = ev_;
  Comm self;
  Comm* c = nullptr;
  int my_rank = 0;
  if (e.comm == events::kCommWorld) {
    c = &comms_[0];
    my_rank = r;
  } else if (e.comm == events::kCommSelf) {
    self.size = 1;
    self.world = {r};
    self.handles = {events::kCommSelf};
    c = &self;
  } else {
    size_t h = static_cast<size_t>(e.comm) - 2;
    if (e.comm < 0 || h >= R.comms.size() || R.comms[h].id < 0)
      fail(r, fmt::format("{} on communicator handle {}, which this rank did not create (or freed)",
                          events::kind_name(e.kind), e.comm));
    c = &comms_[static_cast<size_t>(R.comms[h].id)];
    my_rank = R.comms[h].my_rank;
  }
  if (events::is_rooted(e.kind) && (e.root < 0 || e.root >= c->size))
    fail(r, fmt::format("{} with root {} on a communicator of size {}", events::kind_name(e.kind), e.root, c->size));
  if (c->arrived == 0) {
    c->kind = e.kind;
    c->root = e.root;
    c->first_world = r;
    c->first_index = R.index - 1;
    c->bytes = 0;
    c->arrival.assign(static_cast<size_t>(c->size), 0.0);
    if (creates_communicator(e.kind)) c->creating.assign(static_cast<size_t>(c->size), Creating{});
    if (options_.mover) c->entered.assign(static_cast<size_t>(c->size), kNone);
  } else if (c->kind != e.kind) {
    fail(r, fmt::format("{} on communicator {} while rank {} (event {}) called {} on it: members disagree on the "
                        "collective",
                        events::kind_name(e.kind), e.comm, c->first_world, c->first_index,
                        events::kind_name(c->kind)));
  } else if (events::is_rooted(e.kind) && c->root != e.root) {
    fail(r, fmt::format("{} with root {} while rank {} (event {}) gave root {}: members disagree on the root",
                        events::kind_name(e.kind), e.root, c->first_world, c->first_index, c->root));
  }
  c->arrival[static_cast<size_t>(my_rank)] = R.clock;
  if (creates_communicator(e.kind)) c->creating[static_cast<size_t>(my_rank)] = {e.color, e.key, e.new_comm};
  if (options_.mover) c->entered[static_cast<size_t>(my_rank)] = copy_event(e);
  c->bytes = std::max(c->bytes, collective_bytes(e, c->size));
  ++c->arrived;
  R.block = Block::Collective;
  R.block_start = R.clock;
  R.resolved = false;
  if (c->arrived == c->size) complete_collective(*c);
}

void Engine::complete_collective(Comm& c) {
  const Kind kind = c.kind;
  double table_s = -1;
  if (options_.collectives != CollectiveMode::Algorithms) {
    const mpi::Op op = *events::op_of(kind);
    if (auto t = net_.collective_s(op, c.size, c.bytes)) table_s = *t;
    else if (auto table = mpi::facts(op).table; table && options_.collectives == CollectiveMode::Table)
      throw UserError(fmt::format("the machine has no [[collective]] table for '{}' (needed for {} on {} ranks)",
                                  machine::collective_op_name(*table), events::kind_name(kind), c.size),
                      {}, "add a table for it to the machine file, or use --collectives auto");
  }
  CollectiveCall call;
  call.kind = kind;
  call.size = c.size;
  call.root = c.root;
  call.bytes = c.bytes;
  call.world_ranks = c.world;
  call.arrival_s = c.arrival;
  collective_outcomes(call, net_, table_s, outcomes_);

  if (options_.mover) {
    std::vector<Event*> members(static_cast<size_t>(c.size));
    std::vector<int> worlds(static_cast<size_t>(c.size));
    mover_events_.resize(static_cast<size_t>(c.size));
    for (int i = 0; i < c.size; ++i) {
      worlds[static_cast<size_t>(i)] = c.world_of(i);
      mover_events_[static_cast<size_t>(i)] = mover_event(event_copies_[c.entered[static_cast<size_t>(i)]]);
      members[static_cast<size_t>(i)] = &mover_events_[static_cast<size_t>(i)];
    }
    options_.mover->collective(members, worlds);
    for (auto copy : c.entered) free_event_copies_.push_back(copy);
    c.entered.clear();
  }
  if (creates_communicator(kind)) {
    create_communicators(c);
    std::vector<Creating>().swap(c.creating);  // usually once per communicator: give it back
  }

  c.arrived = 0;
  for (int i = 0; i < c.size; ++i) {
    const auto& m = outcomes_[static_cast<size_t>(i)];
    int w = c.world_of(i);
    auto& R = ranks_[static_cast<size_t>(w)];
    R.resolved = true;
    R.resume_end = m.end_s;
    R.resume_comm = m.comm_s;
    R.resume_peer = m.waited_on < 0 ? -1 : c.world_of(m.waited_on);
    if (w != current_) push(w, m.end_s);
  }
}

// Split: groups by color, ordered by key then old rank; the undefined color
// gets no communicator. Dup and cart_create: the same members in the same order.
void Engine::create_communicators(Comm& c) {
  struct Member {
    std::int32_t color, key, old_rank;
  };
  std::vector<Member> members(static_cast<size_t>(c.size));
  for (int i = 0; i < c.size; ++i) {
    const Creating& e = c.creating[static_cast<size_t>(i)];
    members[static_cast<size_t>(i)] = c.kind == Kind::CommSplit ? Member{e.color, e.key, i} : Member{0, 0, i};
  }
  std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
    if (a.color != b.color) return a.color < b.color;
    if (a.key != b.key) return a.key < b.key;
    return a.old_rank < b.old_rank;
  });
  std::vector<std::int32_t> old_world(static_cast<size_t>(c.size));
  for (int i = 0; i < c.size; ++i) old_world[static_cast<size_t>(i)] = c.world_of(i);
  size_t begin = 0;
  while (begin < members.size()) {
    size_t end = begin;
    while (end < members.size() && members[end].color == members[begin].color) ++end;
    if (members[begin].color != events::kUndefinedColor) {
      Comm created;
      created.size = static_cast<int>(end - begin);
      for (size_t j = begin; j < end; ++j) {
        int w = old_world[static_cast<size_t>(members[j].old_rank)];
        auto& R = ranks_[static_cast<size_t>(w)];
        std::int32_t handle = c.creating[static_cast<size_t>(members[j].old_rank)].new_comm;
        if (handle < 2)
          fail(w, fmt::format("{} gives this rank a communicator but new_comm is {} (expected a handle >= 2)",
                              events::kind_name(R.call.kind), handle));
        created.world.push_back(w);
        created.handles.push_back(handle);
      }
      auto id = static_cast<std::int32_t>(comms_.size());
      for (size_t j = begin; j < end; ++j) {
        auto& R = ranks_[static_cast<size_t>(created.world[j - begin])];
        size_t h = static_cast<size_t>(created.handles[j - begin]) - 2;
        if (R.comms.size() <= h) R.comms.resize(h + 1);
        R.comms[h] = CommRef{id, static_cast<std::int32_t>(j - begin), Queues{}};
      }
      created.drop_trivial_maps(nranks_);
      comms_.push_back(std::move(created));
    }
    begin = end;
  }
}

void Engine::free_communicator(RankState& R, int r) {
  const Event& e = ev_;
  size_t h = static_cast<size_t>(e.comm) - 2;
  if (e.comm < 2 || h >= R.comms.size() || R.comms[h].id < 0)
    fail(r, fmt::format("comm_free of handle {}, which this rank did not create (or freed already)", e.comm));
  R.comms[h].id = -1;
}

// ---------------------------------------------------------------------------
// Errors

void Engine::fail(int r, const std::string& what) const {
  const auto& R = ranks_[static_cast<size_t>(r)];
  throw UserError(fmt::format("rank {}, event {} ({}): {}", r, R.index == 0 ? 0 : R.index - 1,
                              events::kind_name(R.call.kind), what),
                  {}, "the event streams are inconsistent: check the trace or the skeleton that produced them");
}

std::string Engine::describe_block(int r) const {
  const auto& R = ranks_[static_cast<size_t>(r)];
  const Call& e = R.call;
  std::string what = fmt::format("rank {} (event {}, t = {:.9g} s): {}", r, R.index - 1, R.block_start,
                                 events::kind_name(e.kind));
  auto peer_text = [](std::int32_t p) {
    return p == events::kAnySource ? std::string("any source") : fmt::format("peer {}", p);
  };
  auto tag_text = [](std::int32_t t) { return t == events::kAnyTag ? std::string("any tag") : fmt::format("tag {}", t); };
  switch (R.block) {
    case Block::Requests: {
      for (auto q = R.waiting; q != kNone; q = requests_[q].wait_next) {
        const Request& req = requests_[q];
        if (req.done) continue;
        bool send = req.kind != Kind::Irecv;
        const Envelope* env = envelope_of(q, r);
        if (!env) break;
        std::int32_t peer = send ? comm_rank_of(r, env->comm, req.peer_world) : env->source;
        what += fmt::format(" waiting for {} {}, {}, comm {}", send ? "its send to" : "a message from",
                            peer_text(peer), tag_text(env->tag), env->comm);
        if (!req.internal) what += fmt::format(" (request {})", req.id);
        break;
      }
      break;
    }
    case Block::Probe:
      what += fmt::format(" for a message from {}, {}, comm {}", peer_text(e.peer), tag_text(e.tag), e.comm);
      break;
    case Block::Collective: {
      int arrived = 0, size = 1;
      if (e.comm == events::kCommWorld) {
        arrived = comms_[0].arrived;
        size = comms_[0].size;
      } else if (e.comm >= 2) {
        const Comm& c = comms_[static_cast<size_t>(R.comms[static_cast<size_t>(e.comm) - 2].id)];
        arrived = c.arrived;
        size = c.size;
      }
      what += fmt::format(" on comm {}: {} of {} members arrived", e.comm, arrived, size);
      break;
    }
    default: break;
  }
  return what;
}

// The envelope still holding request q: a request not done has one (its posted
// receive, or its rendezvous message at the receiver). Reports only, so a scan.
const Envelope* Engine::envelope_of(std::uint32_t q, int owner) const {
  const Request& req = requests_[q];
  const RankState& R = ranks_[static_cast<size_t>(req.kind == Kind::Irecv ? owner : req.peer_world)];
  auto scan = [&](const Queues& qs) -> const Envelope* {
    for (auto head : {qs.posted_head, qs.unexpected_head})
      for (auto e = head; e != kNone; e = envelopes_[e].next)
        if (envelopes_[e].request == q) return &envelopes_[e];
    return nullptr;
  };
  if (auto* e = scan(R.world_queues)) return e;
  if (auto* e = scan(R.self_queues)) return e;
  for (const auto& c : R.comms)
    if (auto* e = scan(c.queues)) return e;
  return nullptr;
}

// World rank `world` as a rank of rank r's communicator `handle` (as the event
// named it); the world rank itself when the communicator is gone.
std::int32_t Engine::comm_rank_of(int r, std::int32_t handle, int world) const {
  if (handle == events::kCommWorld) return world;
  if (handle == events::kCommSelf) return 0;
  const auto& R = ranks_[static_cast<size_t>(r)];
  size_t h = static_cast<size_t>(handle) - 2;
  if (handle < 2 || h >= R.comms.size() || R.comms[h].id < 0) return world;
  const Comm& c = comms_[static_cast<size_t>(R.comms[h].id)];
  for (int i = 0; i < c.size; ++i)
    if (c.world_of(i) == world) return i;
  return world;
}

void Engine::deadlock() const {
  std::vector<int> blocked;
  for (int r = 0; r < nranks_; ++r)
    if (ranks_[static_cast<size_t>(r)].block != Block::Done) blocked.push_back(r);
  std::string text = fmt::format("deadlock: no rank can proceed and {} of {} ranks have not finished:", blocked.size(),
                                 nranks_);
  for (size_t i = 0; i < blocked.size() && i < 10; ++i) text += "\n  " + describe_block(blocked[i]);
  if (blocked.size() > 10) text += fmt::format("\n  ... and {} more", blocked.size() - 10);
  // Ranks whose streams ended before MPI_Finalize (a skeleton rank that
  // returned or called exit() early) are often the ones the others wait for.
  std::vector<int> early;
  for (int r = 0; r < nranks_; ++r) {
    const auto& R = ranks_[static_cast<size_t>(r)];
    if (R.block == Block::Done && !R.finalized && R.index > 0) early.push_back(r);
  }
  for (size_t i = 0; i < early.size() && i < 10; ++i)
    text += fmt::format("\n  rank {} ended without MPI_Finalize (it returned or exited early)", early[i]);
  if (early.size() > 10) text += fmt::format("\n  ... and {} more ended early", early.size() - 10);
  throw UserError(text, {}, "a receive without a matching send, or members that never reach a collective");
}

void Engine::collect_warnings() {
  auto count_list = [&](std::uint32_t head) {
    std::uint64_t n = 0;
    for (auto m = head; m != kNone; m = envelopes_[m].next) ++n;
    return n;
  };
  for (int r = 0; r < nranks_; ++r) {
    const auto& R = ranks_[static_cast<size_t>(r)];
    RankWarnings w;
    w.rank = r;
    w.unreceived_messages = count_list(R.world_queues.unexpected_head) + count_list(R.self_queues.unexpected_head);
    for (const auto& c : R.comms) w.unreceived_messages += count_list(c.queues.unexpected_head);
    for (auto q = R.requests; q != kNone; q = requests_[q].next) ++w.incomplete_requests;
    w.missing_finalize = R.initialized && !R.finalized;
    w.calls_after_finalize = R.calls_after_finalize;
    if (w.unreceived_messages || w.incomplete_requests || w.missing_finalize || w.calls_after_finalize)
      result_.warnings.push_back(w);
  }
}

std::string Engine::unfinished_ranks() const {
  std::string list;
  int count = 0;
  for (int r = 0; r < nranks_; ++r) {
    if (ranks_[static_cast<size_t>(r)].block == Block::Done) continue;
    if (++count <= 16) list += fmt::format("{}{}", list.empty() ? "" : ", ", r);
  }
  if (count > 16) list += ", ...";
  return fmt::format("{} of {} ranks still running ({})", count, nranks_, list);
}

void Engine::over_budget() const {
  double clock = 0;
  for (const auto& R : ranks_) clock = std::max(clock, R.clock);
  bool events = options_.max_events && result_.events > options_.max_events;
  throw UserError(events ? fmt::format("stopped after {} events, at simulated {} s: {}", options_.max_events, clock,
                                       unfinished_ranks())
                         : fmt::format("stopped at simulated {} s, past the {} s budget, after {} events: {}", clock,
                                       options_.max_simulated_s, result_.events, unfinished_ranks()),
                  {}, events ? "the job may never end; if it is only long, raise --max-events"
                             : "the job may never end; if it is only long, raise --max-time");
}

}  // namespace

SimResult simulate(events::JobSource& job, const machine::Machine& machine, const SimOptions& options) {
  Engine engine(job, machine, options);
  return engine.run();
}

}  // namespace perfcast::sim
