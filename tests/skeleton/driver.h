// A deliberately small engine for the runtime's tests: pulls events round-robin
// from every rank, matches messages (communicator, source, tag, wildcards, order
// of arrival), completes collectives when all members have arrived, and calls the
// job's DataMover as the real engine must. Eager sends, zero network time:
// clocks move only by compute (seconds, or flops at 1 Gflop/s) and by waiting.
#pragma once

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "events/event.h"
#include "sim/skeleton/live_job.h"

namespace perfcast::test {

using events::Event;
using events::Kind;

class TestDriver {
 public:
  explicit TestDriver(sim::skeleton::LiveJobSource& job, bool record = true) : job_(job), record_(record) {
    n_ = job.size();
    ranks_.resize(static_cast<std::size_t>(n_));
    for (int r = 0; r < n_; ++r) {
      ranks_[r].source = job.open_rank(r);
      ranks_[r].comms[events::kCommWorld] = world_comm();
      ranks_[r].comms[events::kCommSelf] = self_comm(r);
    }
    if (record_) log_.resize(static_cast<std::size_t>(n_));
    unexpected_.resize(static_cast<std::size_t>(n_));
    posted_.resize(static_cast<std::size_t>(n_));
  }

  // Runs every rank to its end; throws std::runtime_error on deadlock.
  void run() {
    for (;;) {
      bool progress = false, all_done = true;
      for (int r = 0; r < n_; ++r) {
        RankState& s = ranks_[r];
        if (s.done) continue;
        all_done = false;
        if (s.blocked) continue;
        step(r);
        ++events_;
        progress = true;
      }
      if (all_done) return;
      if (!progress) {
        std::string where;
        for (int r = 0; r < n_; ++r) {
          if (!ranks_[r].done)
            where += " rank " + std::to_string(r) + " in " + std::string(events::kind_name(ranks_[r].current.kind));
        }
        throw std::runtime_error("test driver: deadlock:" + where);
      }
    }
  }

  const std::vector<Event>& events(int rank) const { return log_[static_cast<std::size_t>(rank)]; }
  double clock(int rank) const { return ranks_[static_cast<std::size_t>(rank)].now; }
  std::size_t event_count() const { return events_; }
  // Releases the ranks (their RankSources) as an engine does at the end.
  void close() { ranks_.clear(); }

 private:
  struct Group {
    int context = 0;
    std::vector<int> world;  // empty: identity over n ranks
    int size(int n) const { return world.empty() ? n : static_cast<int>(world.size()); }
    int to_world(int r) const { return world.empty() ? r : world[static_cast<std::size_t>(r)]; }
    int from_world(int w) const {
      if (world.empty()) return w;
      auto it = std::find(world.begin(), world.end(), w);
      return it == world.end() ? -1 : static_cast<int>(it - world.begin());
    }
  };
  using GroupPtr = std::shared_ptr<const Group>;

  struct Message {
    int from = 0;  // world
    int to = 0;    // world
    int context = 0;
    int tag = 0;
    Event event;  // the send (or sendrecv) event
  };
  struct Posted {
    int rank = 0;
    std::uint64_t request = 0;  // 0: blocking
    Event event;
  };
  struct RankState {
    std::unique_ptr<events::RankSource> source;
    Event current;
    double now = 0;
    bool blocked = false, done = false;
    std::map<int, GroupPtr> comms;
    std::map<int, int> collective_seq;       // per context
    std::map<std::uint64_t, bool> requests;  // id -> complete
    std::vector<std::uint64_t> waiting;      // requests a wait blocks on
    Kind waiting_kind = Kind::Wait;
    bool waiting_recv = false;  // blocked in Recv/Sendrecv/Probe
  };
  struct Arrival {
    std::vector<Event> events;
    std::vector<int> ranks;  // world, in comm order
    int arrived = 0;
    GroupPtr group;
  };

  GroupPtr world_comm() {
    static auto g = std::make_shared<Group>();
    return g;
  }
  GroupPtr self_comm(int r) {
    auto g = std::make_shared<Group>();
    g->context = -1 - r;
    g->world = {r};
    return g;
  }

  void step(int r) {
    RankState& s = ranks_[r];
    if (!s.source->next(s.current, s.now)) {
      s.done = true;
      return;
    }
    const Event& e = s.current;
    if (record_) log_[r].push_back(e);
    switch (e.kind) {
      case Kind::Compute:
        s.now += e.seconds >= 0 ? e.seconds : e.flops * 1e-9;
        break;
      case Kind::Send:
      case Kind::Ssend:
        post_send(r, e);
        break;
      case Kind::Isend:
      case Kind::Issend:
        post_send(r, e);
        s.requests[e.request] = true;
        break;
      case Kind::Recv:
      case Kind::Probe:
        s.waiting_recv = true;
        s.blocked = true;
        post_recv(r, e, 0);
        break;
      case Kind::Irecv:
        s.requests[e.request] = e.peer == events::kProcNull;
        if (e.peer != events::kProcNull) post_recv(r, e, e.request);
        break;
      case Kind::Sendrecv: {
        post_send(r, e);
        if (e.root != events::kProcNull) {
          s.waiting_recv = true;
          s.blocked = true;
          post_recv(r, e, 0);
        }
        break;
      }
      case Kind::Wait:
      case Kind::Waitall:
      case Kind::Waitany:
      case Kind::Waitsome:
        s.waiting = e.requests;
        s.waiting_kind = e.kind;
        s.blocked = !wait_satisfied(s);
        if (!s.blocked) s.waiting.clear();
        break;
      case Kind::Test:
      case Kind::Testall:
        break;
      case Kind::Init:
      case Kind::Finalize:
      case Kind::Marker:
      case Kind::CommFree:
        break;
      default:
        if (events::is_collective(e.kind)) arrive(r, e);
        break;
    }
  }

  bool wait_satisfied(RankState& s) {
    bool any = false, all = true;
    for (auto id : s.waiting) {
      bool c = s.requests[id];
      any = any || c;
      all = all && c;
    }
    return (s.waiting_kind == Kind::Waitany || s.waiting_kind == Kind::Waitsome) ? any : all;
  }

  void post_send(int r, const Event& e) {
    if (e.peer == events::kProcNull) return;
    const GroupPtr& g = ranks_[r].comms.at(e.comm);
    Message m{r, g->to_world(e.peer), g->context, e.tag, e};
    // A matching posted receive takes it at once, in posting order.
    auto& posted = posted_[static_cast<std::size_t>(m.to)];
    for (auto it = posted.begin(); it != posted.end();) {
      if (!matches(*it, m)) {
        ++it;
        continue;
      }
      Posted p = std::move(*it);
      it = posted.erase(it);
      complete(p, m);
      if (p.event.kind != Kind::Probe) return;  // a probe leaves the message in place
    }
    unexpected_[static_cast<std::size_t>(m.to)].push_back(std::move(m));
  }

  bool matches(const Posted& p, const Message& m) {
    if (p.rank != m.to) return false;
    const Event& e = p.event;
    const GroupPtr& g = ranks_[p.rank].comms.at(e.comm);
    if (g->context != m.context) return false;
    int source = e.kind == Kind::Sendrecv ? e.root : e.peer;
    int tag = e.kind == Kind::Sendrecv ? e.tag2 : e.tag;
    if (source != events::kAnySource && g->to_world(source) != m.from) return false;
    return tag == events::kAnyTag || tag == m.tag;
  }

  void post_recv(int r, const Event& e, std::uint64_t request) {
    Posted p{r, request, e};
    auto& unexpected = unexpected_[static_cast<std::size_t>(r)];
    for (auto it = unexpected.begin(); it != unexpected.end(); ++it) {
      if (matches(p, *it)) {
        Message m = *it;
        if (e.kind != Kind::Probe) unexpected.erase(it);
        complete(p, m);
        return;
      }
    }
    posted_[static_cast<std::size_t>(r)].push_back(std::move(p));
  }

  void complete(Posted& p, Message& m) {
    RankState& s = ranks_[p.rank];
    // As the engine does: the receive's status (peer, tag) is the matched message's.
    p.event.peer = ranks_[p.rank].comms.at(p.event.comm)->from_world(m.from);
    p.event.tag = m.tag;
    job_.deliver(m.event, m.from, p.event, p.rank);
    s.now = std::max(s.now, ranks_[m.from].now);
    if (p.request) {
      s.requests[p.request] = true;
      if (s.blocked && !s.waiting.empty() && wait_satisfied(s)) {
        s.blocked = false;
        s.waiting.clear();
      }
    } else {
      s.waiting_recv = false;
      s.blocked = false;
    }
  }

  void arrive(int r, const Event& e) {
    RankState& s = ranks_[r];
    const GroupPtr& g = s.comms.at(e.comm);
    int seq = s.collective_seq[g->context]++;
    Arrival& a = arrivals_[{g->context, seq}];
    int size = g->size(n_);
    if (a.events.empty()) {
      a.events.resize(static_cast<std::size_t>(size));
      a.ranks.resize(static_cast<std::size_t>(size));
      a.group = g;
    }
    int me = g->from_world(r);
    a.events[me] = e;
    a.ranks[me] = r;
    s.blocked = true;
    if (++a.arrived < size) return;
    std::vector<Event*> members;
    for (auto& ev : a.events) members.push_back(&ev);
    job_.collective(members, a.ranks);
    double t = 0;
    for (int w : a.ranks) t = std::max(t, ranks_[w].now);
    made_.clear();
    for (int i = 0; i < size; ++i) {
      RankState& m = ranks_[a.ranks[i]];
      m.now = t;
      m.blocked = false;
      const Event& ev = a.events[i];
      if (ev.new_comm >= 0) m.comms[ev.new_comm] = new_group(a, i);
    }
    arrivals_.erase({g->context, seq});
  }

  // The communicator member i of arrival a gets from a split, dup or cart_create.
  GroupPtr new_group(const Arrival& a, int i) {
    const Event& ev = a.events[i];
    std::vector<std::pair<std::pair<int, int>, int>> members;  // ((key, old rank), world)
    for (std::size_t j = 0; j < a.events.size(); ++j) {
      const Event& o = a.events[j];
      bool same = ev.kind != Kind::CommSplit || (o.color == ev.color);
      if (same && o.new_comm >= 0) {
        members.push_back({{ev.kind == Kind::CommSplit ? o.key : 0, static_cast<int>(j)}, a.ranks[j]});
      }
    }
    std::stable_sort(members.begin(), members.end());
    auto key = std::make_pair(a.group->context * 1000 + ev.color, static_cast<int>(ev.kind));
    auto& g = made_[key];  // the members of one new communicator share one Group
    if (!g) {
      auto group = std::make_shared<Group>();
      group->context = ++next_context_;
      for (auto& m : members) group->world.push_back(m.second);
      g = group;
    }
    return g;
  }

  sim::skeleton::LiveJobSource& job_;
  bool record_;
  int n_ = 0;
  std::vector<RankState> ranks_;
  std::vector<std::vector<Event>> log_;
  std::vector<std::deque<Message>> unexpected_;  // per destination world rank, in arrival order
  std::vector<std::deque<Posted>> posted_;       // per receiving world rank, in posting order
  std::map<std::pair<int, int>, Arrival> arrivals_;
  std::map<std::pair<int, int>, GroupPtr> made_;
  int next_context_ = 100;
  std::size_t events_ = 0;
};

}  // namespace perfcast::test
