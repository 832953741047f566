#include "otf2/otf2_export.h"

#include <fmt/format.h>
#include <otf2/otf2.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "otf2/communicators.h"
#include "otf2/otf2_mpi.h"
#include "support/error.h"
#include "support/mpi_op.h"

namespace perfcast::otf2 {

namespace fs = std::filesystem;
using events::Event;
using events::Kind;

namespace {

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
const OTF2_FlushCallbacks kFlushCallbacks = {pre_flush, post_flush};

constexpr OTF2_AttributeRef kPcontrolLevel = 0;
constexpr OTF2_AttributeRef kMarkerId = 1;

struct Refused {
  std::string why;
};

// A nanosecond count of a traced duration: the tracer's clock counts whole
// nanoseconds (events::seconds_of_ns), so this reads back bit for bit.
std::uint64_t ticks_of(double seconds) {
  return seconds <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(seconds * static_cast<double>(kTicksPerSecond)));
}

// What a completion must write for a request an earlier call made.
struct Pending {
  Kind kind = Kind::Isend;
  bool proc_null = false;
  std::uint32_t peer = 0;
  OTF2_CommRef comm = 0;
  std::uint32_t tag = 0;
  std::uint64_t bytes = 0;
};

class ArchiveWriter {
 public:
  ArchiveWriter(const fs::path& dir, const fs::path& scratch, const std::string& description) : dir_(dir) {
    archive_ = OTF2_Archive_Open(scratch.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                 OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!archive_) throw UserError(fmt::format("cannot create the OTF2 archive in {}", scratch.string()));
    check(OTF2_Archive_SetFlushCallbacks(archive_, &kFlushCallbacks, nullptr), "setting flush callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(archive_), "setting collective callbacks");
    check(OTF2_Archive_SetDescription(archive_, description.c_str()), "setting the description");
    check(OTF2_Archive_SetCreator(archive_, "perfcast trace export"), "setting the creator");
    check(OTF2_Archive_OpenEvtFiles(archive_), "opening the event files");
  }
  ~ArchiveWriter() {
    if (archive_) OTF2_Archive_Close(archive_);
  }

  void check(OTF2_ErrorCode code, const char* what) const {
    if (code != OTF2_SUCCESS)
      throw UserError(fmt::format("cannot write the OTF2 archive {}: {} failed ({})", dir_.string(), what,
                                  OTF2_Error_GetDescription(code)));
  }

  OTF2_RegionRef region(const std::string& name, OTF2_RegionRole role, OTF2_Paradigm paradigm) {
    auto [it, added] = region_of_name_.try_emplace(name, static_cast<OTF2_RegionRef>(regions_.size()));
    if (added) regions_.push_back({name, role, paradigm});
    return it->second;
  }

  OTF2_Archive* archive_ = nullptr;
  fs::path dir_;
  struct Region {
    std::string name;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
  };
  std::vector<Region> regions_;
  std::map<std::string, OTF2_RegionRef> region_of_name_;
};

// One rank's stream as OTF2 records.
class RankExport {
 public:
  RankExport(ArchiveWriter& out, OTF2_EvtWriter* writer, const JobComms& comms, int rank, Otf2Export& totals)
      : out_(out), w_(writer), comms_(comms), rank_(rank), totals_(totals) {
    handles_ = {{events::kCommWorld, 0}, {events::kCommSelf, 1}};
    attributes_ = OTF2_AttributeList_New();
  }
  ~RankExport() { OTF2_AttributeList_Delete(attributes_); }

  void write(const Event& e) {
    if (e.kind == Kind::Compute) {
      if (e.seconds < 0) throw Refused{"a burst without measured seconds (OTF2 records times, not work)"};
      now_ += ticks_of(e.seconds);
      return;
    }
    if (e.kind == Kind::Marker) {
      OTF2_RegionRef region = out_.region(kMarkerRegion, OTF2_REGION_ROLE_ARTIFICIAL, OTF2_PARADIGM_USER);
      OTF2_AttributeValue value;
      value.int32 = e.tag;
      out_.check(OTF2_AttributeList_AddAttribute(attributes_, kMarkerId, OTF2_TYPE_INT32, value), "an attribute");
      out_.check(OTF2_EvtWriter_Enter(w_, attributes_, now_, region), "an Enter record");
      out_.check(OTF2_EvtWriter_Leave(w_, nullptr, now_, region), "a Leave record");
      return;
    }
    if (e.duration_s < 0) throw Refused{"a call without a recorded duration (OTF2 needs its enter and leave times)"};
    const std::uint64_t enter = now_, leave = now_ + ticks_of(e.duration_s);
    const mpi::Op op = *events::op_of(e.kind);
    OTF2_RegionRef region =
        out_.region(std::string(mpi::facts(op).function), region_role_of(e.kind), OTF2_PARADIGM_MPI);
    OTF2_AttributeList* enter_attributes = nullptr;
    if (e.kind == Kind::Pcontrol) {
      OTF2_AttributeValue value;
      value.int32 = e.tag;
      out_.check(OTF2_AttributeList_AddAttribute(attributes_, kPcontrolLevel, OTF2_TYPE_INT32, value), "an attribute");
      enter_attributes = attributes_;
    }
    out_.check(OTF2_EvtWriter_Enter(w_, enter_attributes, enter, region), "an Enter record");
    records(e, enter, leave);
    out_.check(OTF2_EvtWriter_Leave(w_, nullptr, leave, region), "a Leave record");
    now_ = leave;
  }

 private:
  OTF2_CommRef comm_of(std::int32_t handle) const {
    auto it = handles_.find(handle);
    if (it == handles_.end()) throw Refused{fmt::format("communicator {} was made by no earlier call", handle)};
    return static_cast<OTF2_CommRef>(it->second);
  }
  std::uint64_t members(OTF2_CommRef comm) const {
    return comm == 1 ? 1 : comms_.comms[comm].world_ranks.size();  // 1: MPI_COMM_SELF
  }
  std::uint64_t rank_in(OTF2_CommRef comm) const {
    if (comm == 1) return 0;
    const auto& world = comms_.comms[comm].world_ranks;
    return static_cast<std::uint64_t>(std::find(world.begin(), world.end(), rank_) - world.begin());
  }
  static std::uint32_t peer_of(std::int32_t peer, const char* what) {
    if (peer == events::kAnySource)
      throw Refused{
          fmt::format("its {} is MPI_ANY_SOURCE, which the tracer could not resolve (OTF2 records the rank "
                      "a message came from)",
                      what)};
    return static_cast<std::uint32_t>(peer);
  }
  static std::uint32_t tag_of(std::int32_t tag) {
    if (tag == events::kAnyTag) throw Refused{"its tag is MPI_ANY_TAG, which the tracer could not resolve"};
    return static_cast<std::uint32_t>(tag);
  }

  void records(const Event& e, std::uint64_t enter, std::uint64_t leave) {
    switch (e.kind) {
      case Kind::Send:
      case Kind::Ssend:
        if (e.peer == events::kProcNull) return;
        out_.check(OTF2_EvtWriter_MpiSend(w_, nullptr, enter, peer_of(e.peer, "destination"), comm_of(e.comm),
                                          tag_of(e.tag), e.bytes),
                   "an MpiSend record");
        ++totals_.messages;
        return;
      case Kind::Isend:
      case Kind::Issend: {
        Pending& p = pending_[e.request];
        p = {e.kind, e.peer == events::kProcNull, 0, 0, 0, 0};
        if (p.proc_null) return;
        out_.check(OTF2_EvtWriter_MpiIsend(w_, nullptr, enter, peer_of(e.peer, "destination"), comm_of(e.comm),
                                           tag_of(e.tag), e.bytes, e.request),
                   "an MpiIsend record");
        ++totals_.messages;
        return;
      }
      case Kind::Recv:
        if (e.peer == events::kProcNull) return;
        out_.check(OTF2_EvtWriter_MpiRecv(w_, nullptr, leave, peer_of(e.peer, "source"), comm_of(e.comm), tag_of(e.tag),
                                          e.bytes),
                   "an MpiRecv record");
        return;
      case Kind::Irecv: {
        Pending& p = pending_[e.request];
        p = {e.kind, e.peer == events::kProcNull, 0, 0, 0, e.bytes};
        if (p.proc_null) return;
        p.peer = peer_of(e.peer, "source");
        p.comm = comm_of(e.comm);
        p.tag = tag_of(e.tag);
        out_.check(OTF2_EvtWriter_MpiIrecvRequest(w_, nullptr, enter, e.request), "an MpiIrecvRequest record");
        return;
      }
      case Kind::Sendrecv:
        if (e.peer != events::kProcNull) {
          out_.check(OTF2_EvtWriter_MpiSend(w_, nullptr, enter, peer_of(e.peer, "destination"), comm_of(e.comm),
                                            tag_of(e.tag), e.bytes),
                     "an MpiSend record");
          ++totals_.messages;
        }
        if (e.root != events::kProcNull)
          out_.check(OTF2_EvtWriter_MpiRecv(w_, nullptr, leave, peer_of(e.root, "source"), comm_of(e.comm),
                                            tag_of(e.tag2), e.bytes2),
                     "an MpiRecv record");
        return;
      case Kind::Probe:
        throw Refused{"OTF2 has no record of a probe's source and tag"};
      case Kind::Wait:
      case Kind::Waitall:
      case Kind::Waitany:
      case Kind::Waitsome:
      case Kind::Test:
      case Kind::Testall:
        for (std::uint64_t id : e.requests) complete(id, leave);
        return;
      case Kind::Init:
      case Kind::Finalize:
      case Kind::Pcontrol:
        return;
      default:
        break;
    }
    std::optional<OTF2_CollectiveOp> op = collective_op_of(e.kind);
    if (!op)
      throw Refused{fmt::format("OTF2's collective record holds one size per rank, not the per-peer counts {} has",
                                events::kind_name(e.kind))};
    const OTF2_CommRef comm = comm_of(e.comm);
    out_.check(OTF2_EvtWriter_MpiCollectiveBegin(w_, nullptr, enter), "an MpiCollectiveBegin record");
    const std::uint32_t root = events::is_rooted(e.kind) ? static_cast<std::uint32_t>(e.root) : OTF2_UNDEFINED_UINT32;
    auto [sent, received] = scorep_sizes(e.kind, e.bytes, e.bytes2, members(comm), rank_in(comm), root);
    if (e.kind == Kind::CommSplit || e.kind == Kind::CommDup || e.kind == Kind::CartCreate) {
      const int made = comms_.created[static_cast<std::size_t>(rank_)][creations_++];
      if (made >= 0) {
        handles_[e.new_comm] = made;
        out_.check(OTF2_EvtWriter_CommCreate(w_, nullptr, leave, static_cast<OTF2_CommRef>(made)),
                   "a CommCreate record");
      }
      sent = received = 0;
    } else if (e.kind == Kind::CommFree) {
      out_.check(OTF2_EvtWriter_CommDestroy(w_, nullptr, leave, comm), "a CommDestroy record");
      sent = received = 0;
    }
    out_.check(OTF2_EvtWriter_MpiCollectiveEnd(w_, nullptr, leave, *op, comm, root, sent, received),
               "an MpiCollectiveEnd record");
    ++totals_.collectives;
  }

  void complete(std::uint64_t id, std::uint64_t at) {
    auto it = pending_.find(id);
    if (it == pending_.end()) throw Refused{fmt::format("it completes request {}, which no earlier call made", id)};
    const Pending p = it->second;
    pending_.erase(it);
    if (p.proc_null) return;
    if (p.kind == Kind::Irecv)
      out_.check(OTF2_EvtWriter_MpiIrecv(w_, nullptr, at, p.peer, p.comm, p.tag, p.bytes, id), "an MpiIrecv record");
    else
      out_.check(OTF2_EvtWriter_MpiIsendComplete(w_, nullptr, at, id), "an MpiIsendComplete record");
  }

  ArchiveWriter& out_;
  OTF2_EvtWriter* w_;
  const JobComms& comms_;
  int rank_;
  Otf2Export& totals_;
  OTF2_AttributeList* attributes_;
  std::map<std::int32_t, int> handles_;  // this rank's communicator handles: global communicators
  std::size_t creations_ = 0;
  std::unordered_map<std::uint64_t, Pending> pending_;

 public:
  std::uint64_t now_ = 0;
};

const char* comm_name_prefix(Kind made_by) {
  switch (made_by) {
    case Kind::CommSplit:
      return "MPI_Comm_split";
    case Kind::CommDup:
      return "MPI_Comm_dup";
    default:
      return "MPI_Cart_create";
  }
}

void write_definitions(ArchiveWriter& out, const JobComms& comms, const std::vector<std::uint64_t>& counts,
                       std::uint64_t end_ticks) {
  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(out.archive_);
  if (!g) throw UserError(fmt::format("cannot write the OTF2 archive {}: no definition writer", out.dir_.string()));
  out.check(OTF2_GlobalDefWriter_WriteClockProperties(g, kTicksPerSecond, 0, end_ticks, OTF2_UNDEFINED_TIMESTAMP),
            "the clock properties");
  OTF2_StringRef next_string = 0;
  auto string = [&](const std::string& text) {
    out.check(OTF2_GlobalDefWriter_WriteString(g, next_string, text.c_str()), "a string");
    return next_string++;
  };
  const OTF2_StringRef empty = string("");
  out.check(OTF2_GlobalDefWriter_WriteAttribute(g, kPcontrolLevel, string(kPcontrolLevelAttribute),
                                                string("MPI_Pcontrol's level"), OTF2_TYPE_INT32),
            "an attribute");
  out.check(OTF2_GlobalDefWriter_WriteAttribute(g, kMarkerId, string(kMarkerIdAttribute),
                                                string("a perfcast marker's id"), OTF2_TYPE_INT32),
            "an attribute");
  for (OTF2_RegionRef r = 0; r < out.regions_.size(); ++r) {
    const auto& region = out.regions_[r];
    const OTF2_StringRef name = string(region.name);
    out.check(OTF2_GlobalDefWriter_WriteRegion(g, r, name, name, empty, region.role, region.paradigm,
                                               OTF2_REGION_FLAG_NONE, empty, 0, 0),
              "a region");
  }
  out.check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, string("traced machine"), string("machine"),
                                                     OTF2_UNDEFINED_SYSTEM_TREE_NODE),
            "the system tree");
  const auto ranks = static_cast<std::uint32_t>(counts.size());
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const OTF2_StringRef name = string(fmt::format("MPI Rank {}", r));
    out.check(OTF2_GlobalDefWriter_WriteLocationGroup(g, r, name, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                      OTF2_UNDEFINED_LOCATION_GROUP),
              "a location group");
    out.check(
        OTF2_GlobalDefWriter_WriteLocation(g, r, string("Master thread"), OTF2_LOCATION_TYPE_CPU_THREAD, counts[r], r),
        "a location");
  }
  // Groups: 0 the MPI locations (world rank r is location r), 1 MPI_COMM_SELF,
  // then each communicator's members as world ranks (indices into group 0).
  std::vector<std::uint64_t> members(ranks);
  for (std::uint32_t r = 0; r < ranks; ++r) members[r] = r;
  out.check(OTF2_GlobalDefWriter_WriteGroup(g, 0, empty, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, ranks, members.data()),
            "the MPI locations group");
  out.check(OTF2_GlobalDefWriter_WriteGroup(g, 1, empty, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                            OTF2_GROUP_FLAG_NONE, 0, nullptr),
            "the MPI_COMM_SELF group");
  OTF2_GroupRef next_group = 2;  // references are dense, in the order defined
  for (std::size_t c = 0; c < comms.comms.size(); ++c) {
    const GlobalComm& comm = comms.comms[c];
    const OTF2_GroupRef group = c == 1 ? 1 : next_group++;
    if (c != 1) {
      std::vector<std::uint64_t> world(comm.world_ranks.begin(), comm.world_ranks.end());
      out.check(
          OTF2_GlobalDefWriter_WriteGroup(g, group, empty, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                          OTF2_GROUP_FLAG_NONE, static_cast<std::uint32_t>(world.size()), world.data()),
          "a communicator's group");
    }
    const std::string name = c == 0 ? "MPI_COMM_WORLD"
                             : c == 1
                                 ? "MPI_COMM_SELF"
                                 : fmt::format("{} of communicator {}", comm_name_prefix(comm.made_by), comm.parent);
    out.check(
        OTF2_GlobalDefWriter_WriteComm(g, static_cast<OTF2_CommRef>(c), string(name), group,
                                       comm.parent < 0 ? OTF2_UNDEFINED_COMM : static_cast<OTF2_CommRef>(comm.parent),
                                       c < 2 ? OTF2_COMM_FLAG_NONE : OTF2_COMM_FLAG_CREATE_DESTROY_EVENTS),
        "a communicator");
  }
  out.check(OTF2_Archive_CloseGlobalDefWriter(out.archive_, g), "closing the definitions");
}

}  // namespace

Otf2Export export_otf2(events::JobSource& job, const fs::path& dir, const std::string& description) {
  std::error_code ec;
  if (fs::exists(dir, ec))
    throw UserError(fmt::format("{} already exists: an OTF2 archive is a new directory", dir.string()), {},
                    "remove it or name another directory");
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec))
    throw UserError(
        fmt::format("cannot write the OTF2 archive {}: {} is not a directory", dir.string(), parent.string()));
  const fs::path scratch = parent / fmt::format(".{}.partial-{}", dir.filename().string(), ::getpid());
  fs::remove_all(scratch, ec);
  struct RemoveScratch {
    const fs::path& path;
    ~RemoveScratch() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } remove_scratch{scratch};

  const JobComms comms = resolve_communicators(job);
  Otf2Export result;
  result.ranks = job.size();
  result.communicators = static_cast<int>(comms.comms.size());
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(job.size()), 0);
  std::uint64_t end_ticks = 0;
  {
    ArchiveWriter out(dir, scratch, description);
    Event e;
    for (int r = 0; r < job.size(); ++r) {
      OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(out.archive_, static_cast<OTF2_LocationRef>(r));
      if (!w)
        throw UserError(fmt::format("cannot write the OTF2 archive {}: no event writer for rank {}", dir.string(), r));
      RankExport rank(out, w, comms, r, result);
      auto source = job.open_rank(r);
      for (std::uint64_t index = 0; source->next(e, 0); ++index) {
        try {
          rank.write(e);
        } catch (const Refused& refused) {
          throw UserError(fmt::format("rank {}, event {} ({}): cannot be written as OTF2: {}", r, index,
                                      events::kind_name(e.kind), refused.why));
        }
        ++result.events;
      }
      end_ticks = std::max(end_ticks, rank.now_);
      out.check(OTF2_EvtWriter_GetNumberOfEvents(w, &counts[static_cast<std::size_t>(r)]), "counting events");
      out.check(OTF2_Archive_CloseEvtWriter(out.archive_, w), "closing an event writer");
    }
    out.check(OTF2_Archive_CloseEvtFiles(out.archive_), "closing the event files");
    // Every location has a local definition file, empty here: readers open each.
    out.check(OTF2_Archive_OpenDefFiles(out.archive_), "opening the local definition files");
    for (int r = 0; r < job.size(); ++r) {
      OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(out.archive_, static_cast<OTF2_LocationRef>(r));
      if (!d)
        throw UserError(
            fmt::format("cannot write the OTF2 archive {}: no definition writer for rank {}", dir.string(), r));
      out.check(OTF2_Archive_CloseDefWriter(out.archive_, d), "closing a local definition file");
    }
    out.check(OTF2_Archive_CloseDefFiles(out.archive_), "closing the local definition files");
    write_definitions(out, comms, counts, end_ticks);
    OTF2_ErrorCode closed = OTF2_Archive_Close(out.archive_);
    out.archive_ = nullptr;
    out.check(closed, "closing the archive");
  }
  fs::rename(scratch, dir, ec);
  if (ec)
    throw UserError(
        fmt::format("cannot move the OTF2 archive from {} to {}: {}", scratch.string(), dir.string(), ec.message()));
  result.anchor = dir / "traces.otf2";
  return result;
}

}  // namespace perfcast::otf2
