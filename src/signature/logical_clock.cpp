#include "signature/logical_clock.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

#include "support/error.h"

namespace perfcast::signature {

namespace {

using events::Event;
using events::Kind;

std::string where(int rank, std::size_t index, const Event& e) {
  return fmt::format("rank {} event {} ({})", rank, index, events::kind_name(e.kind));
}

bool is_send(Kind k) { return k == Kind::Send || k == Kind::Ssend || k == Kind::Isend || k == Kind::Issend; }

// MPI_Init runs before the traced region starts (the tracer's wall time starts
// at its return) and MPI_Finalize is teardown no phase repeats: their
// durations stay out of the rebuilt time.
bool counts_duration(Kind k) { return k != Kind::Compute && k != Kind::Init && k != Kind::Finalize; }

// A message on its way: sent by world rank `source` with `tag` at `tick`.
struct Sent {
  int source = 0;
  std::int32_t tag = 0;
  std::int64_t tick = 0;
  double sent_s = 0;
};

// A receive posted and not yet matched (source -1: any).
struct Posted {
  int source = -1;
  std::int32_t tag = events::kAnyTag;
  std::size_t record = 0;
};

struct ReceiveRecord {
  bool matched = false;
  std::int64_t sent_tick = 0;
  double sent_s = 0;
};

// One call of a collective: the k-th collective on one communicator.
struct Collective {
  std::vector<bool> arrived;
  std::vector<std::int64_t> start;
  std::vector<double> arrived_s;
  std::vector<const Event*> calls;
  int count = 0;
  std::int64_t tick = 0;
  double end_s = 0;
  std::vector<int> created;  // per member: the communicator a creating call gave it, or -1
};

struct RankState {
  std::size_t next = 0;
  std::int64_t tick = 0;  // of the last MPI event
  double now_s = 0;
  double compute_s = 0;  // since the last MPI event
  bool started = false;  // the current event's sends, posts and arrival are done
  std::int64_t start = 0;
  std::vector<std::size_t> waiting;                        // receive records the current event completes
  std::optional<std::pair<int, std::int64_t>> collective;  // (communicator, call number)
  std::unordered_map<int, int> handles;                    // handle -> communicator
  std::map<int, std::int64_t> collectives_called;          // communicator -> calls so far
  std::unordered_map<std::uint64_t, std::size_t> receive_of_request;
};

class Clock {
 public:
  explicit Clock(const std::vector<std::vector<Event>>& streams) : streams_(streams) {
    int n = static_cast<int>(streams.size());
    std::vector<int> world(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) world[static_cast<std::size_t>(r)] = r;
    comms_.push_back(world);
    states_.resize(static_cast<std::size_t>(n));
    records_.resize(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      comms_.push_back({r});
      state(r).handles = {{events::kCommWorld, 0}, {events::kCommSelf, static_cast<int>(comms_.size()) - 1}};
    }
    trace_.ranks = n;
    trace_.by_rank.resize(static_cast<std::size_t>(n));
    // Durations count all or not at all: a partial set would make some phases
    // look slower than others only because their calls were timed.
    std::uint64_t timed = 0;
    for (const auto& stream : streams)
      for (const auto& e : stream)
        if (counts_duration(e.kind) && e.duration_s >= 0)
          ++timed;
        else if (counts_duration(e.kind) && e.kind != Kind::Marker)  // a marker need not be a call
          ++trace_.untimed_calls;
    trace_.calls_timed = timed > 0 && trace_.untimed_calls == 0;
  }

  LogicalTrace run() {
    int n = trace_.ranks;
    for (;;) {
      bool progress = false, all_done = true;
      for (int r = 0; r < n; ++r) {
        while (step(r)) progress = true;
        if (state(r).next < streams_[static_cast<std::size_t>(r)].size()) all_done = false;
      }
      if (all_done) break;
      if (!progress) stuck();
    }
    std::int64_t last = 0;
    for (int r = 0; r < n; ++r) {
      trace_.total_s = std::max(trace_.total_s, state(r).now_s);
      last = std::max(last, state(r).tick);
    }
    // Ticks no event landed on (a symmetric exchange's first tick) are
    // dropped: ticks then count 1, 2, ... and every tick holds an event.
    std::vector<std::int64_t> renumbered(static_cast<std::size_t>(last) + 1, 0);
    for (const auto& rank : trace_.by_rank)
      for (const auto& e : rank) renumbered[static_cast<std::size_t>(e.tick)] = 1;
    for (std::size_t t = 1; t < renumbered.size(); ++t) renumbered[t] += renumbered[t - 1];
    for (auto& rank : trace_.by_rank)
      for (auto& e : rank) e.tick = renumbered[static_cast<std::size_t>(e.tick)];
    trace_.ticks = renumbered.back();
    return std::move(trace_);
  }

 private:
  RankState& state(int r) { return states_[static_cast<std::size_t>(r)]; }

  int comm_of(int r, std::size_t index, const Event& e) {
    auto it = state(r).handles.find(e.comm);
    if (it == state(r).handles.end())
      throw UserError(fmt::format("{} uses communicator handle {}, which no earlier call of this rank created",
                                  where(r, index, e), e.comm));
    return it->second;
  }

  int position(int comm, int world_rank) const {
    const auto& m = comms_[static_cast<std::size_t>(comm)];
    if (comm == 0) return world_rank;
    return static_cast<int>(std::find(m.begin(), m.end(), world_rank) - m.begin());
  }

  int world_of(int comm, int r, std::size_t index, const Event& e, int comm_rank) const {
    const auto& m = comms_[static_cast<std::size_t>(comm)];
    if (comm_rank < 0 || comm_rank >= static_cast<int>(m.size()))
      throw UserError(
          fmt::format("{} names rank {} of a communicator of {} ranks", where(r, index, e), comm_rank, m.size()));
    return m[static_cast<std::size_t>(comm_rank)];
  }

  static bool matches(const Posted& p, const Sent& s) {
    return (p.source < 0 || p.source == s.source) && (p.tag == events::kAnyTag || p.tag == s.tag);
  }

  void send(int comm, int source, int dest, std::int32_t tag, std::int64_t tick, double sent_s) {
    Sent s{source, tag, tick, sent_s};
    auto& queue = posted_[{comm, dest}];
    for (auto it = queue.begin(); it != queue.end(); ++it)
      if (matches(*it, s)) {
        auto& rec = records_[static_cast<std::size_t>(dest)][it->record];
        rec = {true, tick, sent_s};
        queue.erase(it);
        return;
      }
    unexpected_[{comm, dest}].push_back(s);
  }

  std::size_t post(int comm, int dest, int source, std::int32_t tag) {
    auto& recs = records_[static_cast<std::size_t>(dest)];
    std::size_t record = recs.size();
    recs.push_back({});
    Posted p{source, tag, record};
    auto& queue = unexpected_[{comm, dest}];
    for (auto it = queue.begin(); it != queue.end(); ++it)
      if (matches(p, *it)) {
        recs[record] = {true, it->tick, it->sent_s};
        queue.erase(it);
        return record;
      }
    posted_[{comm, dest}].push_back(p);
    return record;
  }

  // The sends, posted receives and collective arrival of rank r's current event.
  void begin(int r, std::size_t index, const Event& e) {
    RankState& s = state(r);
    s.start = s.tick + 1;
    s.waiting.clear();
    s.collective.reset();
    Kind k = e.kind;
    auto peer_ok = [](std::int32_t peer) { return peer != events::kProcNull; };
    if (is_send(k) || k == Kind::Sendrecv) {
      int comm = comm_of(r, index, e);
      if (peer_ok(e.peer)) send(comm, r, world_of(comm, r, index, e, e.peer), e.tag, s.start, s.now_s);
    }
    if (k == Kind::Recv || k == Kind::Irecv || k == Kind::Sendrecv) {
      int comm = comm_of(r, index, e);
      std::int32_t from = k == Kind::Sendrecv ? e.root : e.peer;
      std::int32_t tag = k == Kind::Sendrecv ? e.tag2 : e.tag;
      if (peer_ok(from)) {
        int source = from == events::kAnySource ? -1 : world_of(comm, r, index, e, from);
        std::size_t record = post(comm, r, source, tag);
        if (k == Kind::Irecv)
          s.receive_of_request[e.request] = record;
        else
          s.waiting.push_back(record);
      }
    }
    if (events::is_completion(k) && k != Kind::Test && k != Kind::Testall) {
      for (std::uint64_t request : e.requests) {
        auto it = s.receive_of_request.find(request);
        if (it == s.receive_of_request.end()) continue;  // a send's request: nothing to wait for
        s.waiting.push_back(it->second);
        s.receive_of_request.erase(it);
      }
    }
    if (events::is_collective(k)) {
      int comm = comm_of(r, index, e);
      std::int64_t call = s.collectives_called[comm]++;
      const auto& members = comms_[static_cast<std::size_t>(comm)];
      Collective& c = collectives_[{comm, call}];
      if (c.arrived.empty()) {
        c.arrived.assign(members.size(), false);
        c.start.assign(members.size(), 0);
        c.arrived_s.assign(members.size(), 0);
        c.calls.assign(members.size(), nullptr);
      }
      auto me = static_cast<std::size_t>(position(comm, r));
      c.arrived[me] = true;
      c.start[me] = s.start;
      c.arrived_s[me] = s.now_s;
      c.calls[me] = &e;
      if (++c.count == static_cast<int>(members.size())) complete(comm, c);
      s.collective = {{comm, call}};
    }
  }

  // Every member has arrived: the common tick, and the communicators a
  // creating call makes (split: one per color, ordered by key then rank).
  void complete(int comm, Collective& c) {
    c.tick = *std::max_element(c.start.begin(), c.start.end());
    c.end_s = *std::max_element(c.arrived_s.begin(), c.arrived_s.end());
    const auto members = comms_[static_cast<std::size_t>(comm)];
    c.created.assign(members.size(), -1);
    Kind k = c.calls[0]->kind;
    if (k == Kind::CommDup || k == Kind::CartCreate) {
      comms_.push_back(members);
      std::fill(c.created.begin(), c.created.end(), static_cast<int>(comms_.size()) - 1);
    } else if (k == Kind::CommSplit) {
      std::map<std::int32_t, std::vector<std::pair<std::int32_t, std::size_t>>> groups;
      for (std::size_t i = 0; i < members.size(); ++i)
        if (c.calls[i]->color != events::kUndefinedColor) groups[c.calls[i]->color].push_back({c.calls[i]->key, i});
      for (auto& [color, group] : groups) {
        std::sort(group.begin(), group.end());
        std::vector<int> world;
        for (auto& [key, i] : group) world.push_back(members[i]);
        comms_.push_back(world);
        for (auto& [key, i] : group) c.created[i] = static_cast<int>(comms_.size()) - 1;
      }
    }
  }

  // Advances rank r by one event; false when it is finished or must wait.
  bool step(int r) {
    RankState& s = state(r);
    const auto& stream = streams_[static_cast<std::size_t>(r)];
    if (s.next >= stream.size()) return false;
    const Event& e = stream[s.next];
    if (e.kind == Kind::Compute) {
      if (e.seconds >= 0) {
        s.compute_s += e.seconds;
        s.now_s += e.seconds;
      } else {
        ++trace_.unpriced_bursts;
      }
      ++s.next;
      return true;
    }
    if (!s.started) {
      begin(r, s.next, e);
      s.started = true;
    }
    std::int64_t tick = s.start;
    // Timed calls end when they were recorded to: their waits are in their
    // durations already, and each rank's times count from its own MPI_Init
    // return, so pushing them after another rank's times would add the skew
    // between those returns. Untimed calls end no earlier than their messages
    // and collectives allow.
    const bool timed = trace_.calls_timed;
    const double call_s = timed && counts_duration(e.kind) ? std::max(0.0, e.duration_s) : 0;
    double end_s = s.now_s + call_s;
    auto& recs = records_[static_cast<std::size_t>(r)];
    for (std::size_t record : s.waiting) {
      const ReceiveRecord& rec = recs[record];
      if (!rec.matched) return false;
      tick = std::max(tick, rec.sent_tick + 1);
      if (!timed) end_s = std::max(end_s, rec.sent_s);
    }
    if (s.collective) {
      auto [comm, call] = *s.collective;
      Collective& c = collectives_.at({comm, call});
      if (c.count < static_cast<int>(c.arrived.size())) return false;
      tick = c.tick;
      if (!timed) end_s = c.end_s;
      int created = c.created[static_cast<std::size_t>(position(comm, r))];
      if (e.new_comm >= 0 && created >= 0) s.handles[e.new_comm] = created;
      if (e.kind == Kind::CommFree) s.handles.erase(e.comm);
    }
    LogicalEvent le;
    le.event = e;
    le.tick = tick;
    le.compute_before_s = s.compute_s;
    le.call_s = call_s;
    le.end_s = end_s;
    if (events::is_point_to_point(e.kind) || events::is_collective(e.kind)) {
      auto it = s.handles.find(e.comm);
      if (it != s.handles.end()) le.comm_rank = position(it->second, r);
    } else {
      le.comm_rank = r;
    }
    trace_.by_rank[static_cast<std::size_t>(r)].push_back(std::move(le));
    s.tick = tick;
    s.now_s = end_s;
    s.compute_s = 0;
    s.started = false;
    ++s.next;
    return true;
  }

  [[noreturn]] void stuck() {
    std::string waits;
    for (int r = 0; r < trace_.ranks && waits.size() < 400; ++r) {
      const auto& stream = streams_[static_cast<std::size_t>(r)];
      if (state(r).next >= stream.size()) continue;
      waits += fmt::format("{}{}", waits.empty() ? "" : "; ", where(r, state(r).next, stream[state(r).next]));
    }
    throw UserError(
        fmt::format("the event streams cannot have run: every rank still running waits for a message "
                    "or a collective no other rank provides ({})",
                    waits));
  }

  const std::vector<std::vector<Event>>& streams_;
  std::vector<std::vector<int>> comms_;  // communicator -> world ranks, in communicator rank order
  std::vector<RankState> states_;
  std::vector<std::vector<ReceiveRecord>> records_;             // per rank
  std::map<std::pair<int, int>, std::deque<Sent>> unexpected_;  // (communicator, dest) -> sends
  std::map<std::pair<int, int>, std::deque<Posted>> posted_;    // (communicator, dest) -> receives
  std::map<std::pair<int, std::int64_t>, Collective> collectives_;
  LogicalTrace trace_;
};

}  // namespace

std::vector<std::vector<events::Event>> read_streams(events::JobSource& job) {
  std::vector<std::vector<Event>> streams(static_cast<std::size_t>(job.size()));
  for (int r = 0; r < job.size(); ++r) {
    auto source = job.open_rank(r);
    Event e;
    while (source->next(e, 0)) streams[static_cast<std::size_t>(r)].push_back(e);
  }
  return streams;
}

LogicalTrace logical_clock(const std::vector<std::vector<events::Event>>& streams) { return Clock(streams).run(); }

}  // namespace perfcast::signature
