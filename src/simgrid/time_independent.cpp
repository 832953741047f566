#include "simgrid/time_independent.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "simgrid/platform.h"
#include "support/error.h"
#include "support/output_file.h"

namespace perfcast::simgrid {

namespace fs = std::filesystem;
using events::Event;
using events::Kind;

const std::vector<KindMapping>& kind_mapping() {
  static const std::vector<KindMapping> table = [] {
    std::vector<KindMapping> t;
    auto add = [&](Kind k, bool mapped, std::string_view actions) { t.push_back({k, mapped, actions}); };
    add(Kind::Compute, true, "compute FLOPS (measured seconds x the rank's flop rate)");
    add(Kind::Send, true, "send PEER TAG BYTES (rsend and bsend are traced as send)");
    add(Kind::Ssend, false, "SimGrid's replay has no synchronous send: below the eager threshold it would not wait");
    add(Kind::Isend, true, "isend PEER TAG BYTES");
    add(Kind::Issend, false, "SimGrid's replay has no synchronous send: below the eager threshold it would not wait");
    add(Kind::Recv, true, "recv PEER TAG BYTES");
    add(Kind::Irecv, true, "irecv PEER TAG BYTES");
    add(Kind::Sendrecv, true, "isend DEST TAG BYTES; recv SOURCE TAG2 BYTES2; wait (its send)");
    add(Kind::Probe, false, "SimGrid's replay has no probe action");
    add(Kind::Wait, true, "wait SRC DST TAG");
    add(Kind::Waitall, true, "wait SRC DST TAG per request, in the call's order");
    add(Kind::Waitany, false, "the trace does not say which request completed");
    add(Kind::Waitsome, false, "the trace does not say which requests completed");
    add(Kind::Test, true, "test SRC DST TAG");
    add(Kind::Testall, false, "SimGrid's test completes each request alone, testall none unless all are done");
    add(Kind::Barrier, true, "barrier");
    add(Kind::Bcast, true, "bcast BYTES ROOT");
    add(Kind::Reduce, true, "reduce BYTES 0 ROOT (no flops for the operator, as perfcast)");
    add(Kind::Allreduce, true, "allreduce BYTES 0");
    add(Kind::Gather, true, "gather BYTES BYTES ROOT (per rank)");
    add(Kind::Gatherv, true, "gatherv BYTES COUNTS... ROOT (counts are the root's; zeros elsewhere)");
    add(Kind::Scatter, true, "scatter BYTES2 BYTES2 ROOT (per rank)");
    add(Kind::Scatterv, true, "scatterv COUNTS... BYTES2 ROOT (counts are the root's; zeros elsewhere)");
    add(Kind::Allgather, true, "allgather BYTES BYTES (per rank)");
    add(Kind::Allgatherv, true, "allgatherv BYTES COUNTS...");
    add(Kind::Alltoall, true, "alltoall BYTES/P BYTES2/P (per peer)");
    add(Kind::Alltoallv, true, "alltoallv BYTES COUNTS... BYTES2 COUNTS2...");
    add(Kind::ReduceScatter, true, "reducescatter COUNTS... 0");
    add(Kind::Scan, false, "SimGrid's replay has no scan action");
    add(Kind::Exscan, false, "SimGrid's replay has no exscan action");
    add(Kind::CommSplit, true, "allreduce 8 0 (what perfcast prices it as); calls on the new communicator are refused");
    add(Kind::CommDup, true, "allreduce 8 0; the copy's calls are written as MPI_COMM_WORLD's (same ranks)");
    add(Kind::CartCreate, true, "allreduce 8 0; the copy's calls are written as MPI_COMM_WORLD's (same ranks)");
    add(Kind::CommFree, true, "nothing (free in both simulators)");
    add(Kind::Init, true, "init");
    add(Kind::Finalize, true, "finalize");
    add(Kind::Pcontrol, true, "nothing (a tool's marker: free in both simulators)");
    add(Kind::Marker, true, "nothing (a point in the program, not a call)");
    return t;
  }();
  return table;
}

namespace {

// SimGrid's replay finds a request by (source, destination, tag), world ranks.
using RequestKey = std::tuple<int, int, int>;

class RankWriter {
 public:
  RankWriter(int rank, int ranks, double flops_per_s, std::ostream& out, TimeIndependentExport& summary,
             std::map<std::uint64_t, std::uint64_t>& allreduce_bytes)
      : rank_(rank), ranks_(ranks), flops_per_s_(flops_per_s), out_(out), summary_(summary),
        allreduce_bytes_(allreduce_bytes) {}

  void write(const Event& e, std::uint64_t index) {
    index_ = index;
    ++summary_.events[static_cast<std::size_t>(e.kind)];
    const KindMapping& how = kind_mapping()[static_cast<std::size_t>(e.kind)];
    if (!how.mapped) refuse(how.actions);
    if (e.kind != Kind::Compute && e.kind != Kind::Marker && e.kind != Kind::Pcontrol && !world_like_.contains(e.comm))
      refuse(fmt::format("it runs on communicator {}, not a copy of MPI_COMM_WORLD: SimGrid's replay runs every "
                         "call on MPI_COMM_WORLD",
                         e.comm));
    switch (e.kind) {
      case Kind::Compute:
        if (e.seconds < 0) refuse("a burst without measured seconds (a model's) has no flop count SimGrid would time as perfcast does");
        if (e.seconds > 0) action("compute {:.17g}", e.seconds * flops_per_s_);
        return;
      case Kind::Marker:
      case Kind::Pcontrol:
      case Kind::CommFree: return;
      case Kind::Init: action("init"); return;
      case Kind::Finalize: action("finalize"); return;
      case Kind::Send:
        if (e.peer == events::kProcNull) return;
        action("send {} {} {}", e.peer, e.tag, e.bytes);
        return;
      case Kind::Recv:
        if (e.peer == events::kProcNull) return;
        check_receive(e.peer, e.tag);
        action("recv {} {} {}", e.peer, e.tag, e.bytes);
        return;
      case Kind::Isend:
      case Kind::Irecv: {
        if (e.peer == events::kProcNull) {
          requests_[e.request] = std::nullopt;
          return;
        }
        const bool send = e.kind == Kind::Isend;
        if (!send) check_receive(e.peer, e.tag);
        post(e.request, send ? RequestKey{rank_, e.peer, e.tag} : RequestKey{e.peer, rank_, e.tag});
        action("{} {} {} {}", send ? "isend" : "irecv", e.peer, e.tag, e.bytes);
        return;
      }
      case Kind::Sendrecv: {
        const bool sends = e.peer != events::kProcNull;
        if (sends) action("isend {} {} {}", e.peer, e.tag, e.bytes);
        if (e.root != events::kProcNull) {
          check_receive(e.root, e.tag2);
          action("recv {} {} {}", e.root, e.tag2, e.bytes2);
        }
        if (sends) action("wait {} {} {}", rank_, e.peer, e.tag);
        return;
      }
      case Kind::Wait:
      case Kind::Waitall:
      case Kind::Test:
        for (auto id : e.requests) complete(id, e.kind == Kind::Test ? "test" : "wait");
        return;
      case Kind::Barrier: action("barrier"); return;
      case Kind::Bcast: action("bcast {} {}", e.bytes, e.root); return;
      case Kind::Reduce: action("reduce {} 0 {}", e.bytes, e.root); return;
      case Kind::Allreduce:
        ++allreduce_bytes_[e.bytes];
        action("allreduce {} 0", e.bytes);
        return;
      case Kind::Gather: action("gather {0} {0} {1}", e.bytes, e.root); return;
      case Kind::Scatter: action("scatter {0} {0} {1}", e.bytes2, e.root); return;
      case Kind::Allgather: action("allgather {0} {0}", e.bytes); return;
      case Kind::Alltoall: action("alltoall {} {}", e.bytes / ranks_, e.bytes2 / ranks_); return;
      case Kind::Gatherv: action("gatherv {} {} {}", e.bytes, counts(e.counts2), e.root); return;
      case Kind::Allgatherv: action("allgatherv {} {}", e.bytes, counts(e.counts2)); return;
      case Kind::Scatterv: action("scatterv {} {} {}", counts(e.counts), e.bytes2, e.root); return;
      case Kind::Alltoallv:
        action("alltoallv {} {} {} {}", e.bytes, counts(e.counts), e.bytes2, counts(e.counts2));
        return;
      case Kind::ReduceScatter: action("reducescatter {} 0", counts(e.counts)); return;
      case Kind::CommSplit:
      case Kind::CommDup:
      case Kind::CartCreate:
        if (e.kind != Kind::CommSplit && e.new_comm >= 0) world_like_.insert(e.new_comm);
        action("allreduce {} 0", static_cast<std::uint64_t>(mpi::kContextIdBytes));
        return;
      default: refuse("no action for it");
    }
  }

  // Requests still outstanding at the end: SimGrid waits for them, perfcast
  // reports them; both finish, so they are only counted.
  std::size_t outstanding() const { return outstanding_.size(); }

 private:
  template <typename... Args>
  void action(fmt::format_string<Args...> f, Args&&... args) {
    out_ << rank_ << ' ' << fmt::format(f, std::forward<Args>(args)...) << '\n';
    ++summary_.actions;
  }

  [[noreturn]] void refuse(std::string_view why) const {
    throw UserError(fmt::format("rank {}, event {}: cannot be written as a SimGrid action: {}", rank_, index_, why),
                    {}, "the kinds SimGrid's replay takes are listed in docs/trace.md#simgrid-export");
  }

  void check_receive(int source, int tag) const {
    if (source == events::kAnySource) refuse("a receive from MPI_ANY_SOURCE that the tracer did not resolve");
    if (tag == events::kAnyTag) refuse("a receive with MPI_ANY_TAG (SimGrid's replay matches requests by tag)");
  }

  void post(std::uint64_t id, RequestKey key) {
    if (!outstanding_.insert(key).second)
      refuse(fmt::format("two requests pending at once between ranks {} and {} with tag {}: SimGrid's replay keys "
                         "requests by (source, destination, tag) and would lose one",
                         std::get<0>(key), std::get<1>(key), std::get<2>(key)));
    requests_[id] = key;
  }

  void complete(std::uint64_t id, std::string_view verb) {
    auto it = requests_.find(id);
    if (it == requests_.end())
      refuse(fmt::format("it completes request {}, which no earlier isend or irecv of this rank made", id));
    if (it->second) {
      auto [src, dst, tag] = *it->second;
      action("{} {} {} {}", verb, src, dst, tag);
      // A test may leave the request pending (SimGrid re-files it); a wait ends it.
      if (verb == "wait") outstanding_.erase(*it->second);
    }
    if (verb == "wait") requests_.erase(it);
  }

  std::string counts(const std::vector<std::uint64_t>& bytes) const {
    if (bytes.empty()) return fmt::format("{}", fmt::join(std::vector<int>(static_cast<std::size_t>(ranks_), 0), " "));
    if (bytes.size() != static_cast<std::size_t>(ranks_))
      refuse(fmt::format("it lists {} byte counts for {} ranks", bytes.size(), ranks_));
    return fmt::format("{}", fmt::join(bytes, " "));
  }

  int rank_, ranks_;
  double flops_per_s_;
  std::ostream& out_;
  TimeIndependentExport& summary_;
  std::map<std::uint64_t, std::uint64_t>& allreduce_bytes_;
  std::uint64_t index_ = 0;
  std::set<int> world_like_{events::kCommWorld};
  std::unordered_map<std::uint64_t, std::optional<RequestKey>> requests_;
  std::set<RequestKey> outstanding_;
};

}  // namespace

TimeIndependentExport export_time_independent(events::JobSource& job, const machine::Machine& machine,
                                              const fs::path& dir) {
  TimeIndependentExport summary;
  summary.ranks = job.size();
  check_machine_for_smpi(machine, summary.ranks);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UserError(fmt::format("{}: cannot create the directory: {}", dir.string(), ec.message()));

  std::map<std::uint64_t, std::uint64_t> allreduce_bytes;  // bytes -> calls
  std::string index;
  for (int r = 0; r < summary.ranks; ++r) {
    const std::string name = fmt::format("rank_{}.txt", r);
    AtomicFile file(dir / name);
    const double rate = machine.group_of_node(machine.node_of_rank(r, summary.ranks)).flops_per_core;
    RankWriter writer(r, summary.ranks, rate, file.stream(), summary, allreduce_bytes);
    auto source = job.open_rank(r);
    Event e;
    for (std::uint64_t i = 0; source->next(e, 0); ++i) writer.write(e, i);
    file.commit();
    summary.action_files.push_back(name);
    index += fs::absolute(dir / name).lexically_normal().string() + "\n";  // smpirun may run elsewhere
  }
  summary.index_file = "traces.txt";
  write_file_atomically(dir / summary.index_file, index);
  write_file_atomically(dir / "platform.xml", platform_xml(machine, summary.ranks));

  std::map<std::string, std::uint64_t> by_algorithm;
  for (const auto& [bytes, calls] : allreduce_bytes)
    by_algorithm[allreduce_algorithm(summary.ranks, static_cast<double>(bytes))] += calls;
  std::uint64_t most = 0, all = 0;
  for (const auto& [name, calls] : by_algorithm) {
    all += calls;
    if (calls > most) {
      most = calls;
      summary.allreduce_algorithm = name;
    }
  }
  summary.other_allreduces = all - most;
  std::vector<std::string> options = smpi_options(machine, SmpiUse::Replay);
  if (!summary.allreduce_algorithm.empty()) options.push_back("--cfg=smpi/allreduce:" + summary.allreduce_algorithm);
  write_file_atomically(dir / "smpi_options.txt", fmt::format("{}\n", fmt::join(options, "\n")));
  return summary;
}

}  // namespace perfcast::simgrid
