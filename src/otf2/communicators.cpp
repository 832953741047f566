#include "otf2/communicators.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "support/error.h"

namespace perfcast::otf2 {

using events::Kind;

namespace {

bool creates_communicator(Kind kind) {
  return kind == Kind::CommSplit || kind == Kind::CommDup || kind == Kind::CartCreate;
}

}  // namespace

JobComms resolve_communicators(events::JobSource& job) {
  const int n = job.size();
  std::vector<std::vector<CreationCall>> calls(static_cast<std::size_t>(n));
  events::Event e;
  for (int r = 0; r < n; ++r) {
    auto source = job.open_rank(r);
    for (std::uint64_t index = 0; source->next(e, 0); ++index)
      if (creates_communicator(e.kind))
        calls[static_cast<std::size_t>(r)].push_back({e.kind, e.comm, e.color, e.key, e.new_comm, index});
  }
  return resolve_communicators(calls);
}

JobComms resolve_communicators(const std::vector<std::vector<CreationCall>>& calls) {
  const int n = static_cast<int>(calls.size());
  JobComms out;
  GlobalComm world;
  for (int r = 0; r < n; ++r) world.world_ranks.push_back(r);
  out.comms.push_back(world);
  out.comms.push_back(GlobalComm{});  // self: each rank alone
  out.created.resize(calls.size());
  // Per rank: its handles' global communicators (a handle made again later names the new one).
  std::vector<std::map<std::int32_t, int>> handles(calls.size());
  for (auto& h : handles) h = {{events::kCommWorld, 0}, {events::kCommSelf, 1}};
  std::vector<std::size_t> next(calls.size(), 0);
  auto parent_of = [&](int r) -> int {
    const CreationCall& c = calls[static_cast<std::size_t>(r)][next[static_cast<std::size_t>(r)]];
    auto it = handles[static_cast<std::size_t>(r)].find(c.comm);
    if (it == handles[static_cast<std::size_t>(r)].end())
      throw UserError(fmt::format("rank {}, event {}: {} on communicator {}, which no earlier call of this rank made",
                                  r, c.event_index, events::kind_name(c.kind), c.comm));
    return it->second;
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (int r = 0; r < n; ++r) {
      if (next[static_cast<std::size_t>(r)] >= calls[static_cast<std::size_t>(r)].size()) continue;
      const int parent = parent_of(r);
      if (parent == 1) {
        throw UserError(fmt::format("rank {}, event {}: a communicator made from MPI_COMM_SELF cannot be written", r,
                                    calls[static_cast<std::size_t>(r)][next[static_cast<std::size_t>(r)]].event_index));
      }
      // Every member's next call must be on the same communicator; else wait for them.
      const std::vector<std::int32_t> members = out.comms[static_cast<std::size_t>(parent)].world_ranks;
      bool ready = std::all_of(members.begin(), members.end(), [&](std::int32_t m) {
        return next[static_cast<std::size_t>(m)] < calls[static_cast<std::size_t>(m)].size() && parent_of(m) == parent;
      });
      if (!ready) continue;
      const Kind kind = calls[static_cast<std::size_t>(r)][next[static_cast<std::size_t>(r)]].kind;
      struct Member {
        std::int32_t color, key, old_rank;
      };
      std::vector<Member> order;
      for (std::size_t i = 0; i < members.size(); ++i) {
        const CreationCall& c = calls[static_cast<std::size_t>(members[i])][next[static_cast<std::size_t>(members[i])]];
        if (c.kind != kind)
          throw UserError(fmt::format("rank {}, event {}: {} where rank {} makes {} on the same communicator",
                                      members[i], c.event_index, events::kind_name(c.kind), r,
                                      events::kind_name(kind)));
        order.push_back(kind == Kind::CommSplit ? Member{c.color, c.key, static_cast<std::int32_t>(i)}
                                                : Member{0, 0, static_cast<std::int32_t>(i)});
      }
      std::sort(order.begin(), order.end(), [](const Member& a, const Member& b) {
        if (a.color != b.color) return a.color < b.color;
        if (a.key != b.key) return a.key < b.key;
        return a.old_rank < b.old_rank;
      });
      for (std::size_t begin = 0; begin < order.size();) {
        std::size_t end = begin;
        while (end < order.size() && order[end].color == order[begin].color) ++end;
        int id = -1;
        if (order[begin].color != events::kUndefinedColor) {
          id = static_cast<int>(out.comms.size());
          GlobalComm made;
          made.parent = parent;
          made.made_by = kind;
          for (std::size_t j = begin; j < end; ++j)
            made.world_ranks.push_back(members[static_cast<std::size_t>(order[j].old_rank)]);
          out.comms.push_back(std::move(made));
        }
        for (std::size_t j = begin; j < end; ++j) {
          const auto m = static_cast<std::size_t>(members[static_cast<std::size_t>(order[j].old_rank)]);
          const CreationCall& c = calls[m][next[m]];
          if ((id >= 0) != (c.new_comm >= 0))
            throw UserError(fmt::format("rank {}, event {}: {} gives new_comm {} but its color {}", m, c.event_index,
                                        events::kind_name(c.kind), c.new_comm,
                                        id >= 0 ? "makes a communicator" : "is MPI_UNDEFINED"));
          if (id >= 0) handles[m][c.new_comm] = id;
          out.created[m].push_back(id);
        }
        begin = end;
      }
      for (std::int32_t m : members) ++next[static_cast<std::size_t>(m)];
      progress = true;
    }
  }
  for (int r = 0; r < n; ++r)
    if (next[static_cast<std::size_t>(r)] < calls[static_cast<std::size_t>(r)].size()) {
      const CreationCall& c = calls[static_cast<std::size_t>(r)][next[static_cast<std::size_t>(r)]];
      throw UserError(
          fmt::format("rank {}, event {}: {} on communicator {} is not matched by the same call on every member", r,
                      c.event_index, events::kind_name(c.kind), c.comm));
    }
  return out;
}

}  // namespace perfcast::otf2
