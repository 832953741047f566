#include "report/otf2_timeline.h"

#include <fmt/format.h>
#include <otf2/otf2.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <system_error>

#include "support/error.h"
#include "support/mpi_op.h"

namespace perfcast::report {

namespace fs = std::filesystem;

namespace {

// A slot per possible region: 0 is compute; an operation of kind k has 1 + 2k
// (its communication) and 2 + 2k (its wait). OTF2 wants region references
// dense and defined in order, so each slot gets the next reference on first use.
constexpr size_t kRegionSlots = 1 + 2 * static_cast<size_t>(events::kKindCount);
size_t slot_of(sim::SpanKind kind, events::Kind op) {
  if (kind == sim::SpanKind::Compute) return 0;
  return 1 + 2 * static_cast<size_t>(op) + (kind == sim::SpanKind::Wait ? 1 : 0);
}

// OTF2's roles tell viewers which operations are collectives and of what shape.
OTF2_RegionRole role_of(events::Kind op) {
  if (events::is_point_to_point(op) || events::is_completion(op)) return OTF2_REGION_ROLE_POINT2POINT;
  if (!events::is_collective(op)) return OTF2_REGION_ROLE_FUNCTION;
  std::string_view name = events::kind_name(op);
  if (name == "barrier") return OTF2_REGION_ROLE_BARRIER;
  if (name == "bcast" || name == "scatter" || name == "scatterv") return OTF2_REGION_ROLE_COLL_ONE2ALL;
  if (name == "reduce" || name == "gather" || name == "gatherv") return OTF2_REGION_ROLE_COLL_ALL2ONE;
  if (name.starts_with("all") || name.starts_with("reduce_scatter")) return OTF2_REGION_ROLE_COLL_ALL2ALL;
  return OTF2_REGION_ROLE_COLL_OTHER;
}

// OTF2 flushes its chunks to disk when they fill; no timestamps are recorded for
// the flushes (the simulated clock has no cost for them).
OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp post_flush(void*, OTF2_FileType, OTF2_LocationRef) { return 0; }
const OTF2_FlushCallbacks kFlushCallbacks = {pre_flush, post_flush};

void check(OTF2_ErrorCode code, const char* what, const fs::path& where) {
  if (code != OTF2_SUCCESS)
    throw UserError(fmt::format("cannot write the OTF2 archive {}: {} failed ({})", where.string(), what,
                                OTF2_Error_GetDescription(code)));
}

std::uint64_t nanoseconds(double s) { return s <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(s * 1e9)); }

}  // namespace

std::string otf2_region_name(sim::SpanKind kind, events::Kind op) {
  if (kind == sim::SpanKind::Compute) return "compute";
  std::optional<mpi::Op> mpi_op = events::op_of(op);
  std::string name = mpi_op ? std::string(mpi::facts(*mpi_op).function) : std::string(events::kind_name(op));
  return kind == sim::SpanKind::Wait ? name + " wait" : name;
}

struct Otf2TimelineWriter::State {
  OTF2_Archive* archive = nullptr;
  std::vector<OTF2_EvtWriter*> writers;
  std::vector<std::uint64_t> last_ns;       // per rank: the latest timestamp written
  std::vector<OTF2_RegionRef> region_of_slot = std::vector<OTF2_RegionRef>(kRegionSlots, OTF2_UNDEFINED_REGION);
  std::vector<std::pair<sim::SpanKind, events::Kind>> regions;  // by reference
  std::uint64_t end_ns = 0;
};

Otf2TimelineWriter::Otf2TimelineWriter(const fs::path& directory, int nranks, std::string description)
    : state_(std::make_unique<State>()), directory_(directory), nranks_(nranks) {
  std::error_code ec;
  if (fs::exists(directory, ec))
    throw UserError(fmt::format("{} already exists: an OTF2 archive is a new directory", directory.string()), {},
                    "remove it or name another directory");
  fs::path parent = directory.has_parent_path() ? directory.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec))
    throw UserError(fmt::format("cannot write the OTF2 archive {}: {} is not a directory", directory.string(),
                                parent.string()));
  scratch_ = parent / fmt::format(".{}.partial-{}", directory.filename().string(), ::getpid());
  fs::remove_all(scratch_, ec);

  State& s = *state_;
  s.archive = OTF2_Archive_Open(scratch_.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!s.archive) throw UserError(fmt::format("cannot create the OTF2 archive in {}", scratch_.string()));
  check(OTF2_Archive_SetFlushCallbacks(s.archive, &kFlushCallbacks, nullptr), "setting flush callbacks", directory);
  check(OTF2_Archive_SetSerialCollectiveCallbacks(s.archive), "setting collective callbacks", directory);
  check(OTF2_Archive_SetDescription(s.archive, description.c_str()), "setting the description", directory);
  check(OTF2_Archive_SetCreator(s.archive, "perfcast simulate"), "setting the creator", directory);
  check(OTF2_Archive_OpenEvtFiles(s.archive), "opening the event files", directory);
  s.writers.resize(static_cast<size_t>(nranks), nullptr);
  s.last_ns.assign(static_cast<size_t>(nranks), 0);
}

Otf2TimelineWriter::~Otf2TimelineWriter() {
  if (state_ && state_->archive) {
    OTF2_Archive_Close(state_->archive);
    std::error_code ec;
    fs::remove_all(scratch_, ec);  // close() did not finish: leave nothing behind
  }
}

void Otf2TimelineWriter::span(int rank, sim::SpanKind kind, events::Kind op, double start_s, double end_s) {
  State& s = *state_;
  if (rank < 0 || rank >= nranks_ || !s.archive) return;
  OTF2_EvtWriter*& w = s.writers[static_cast<size_t>(rank)];
  if (!w) {
    w = OTF2_Archive_GetEvtWriter(s.archive, static_cast<OTF2_LocationRef>(rank));
    if (!w) throw UserError(fmt::format("cannot write the OTF2 archive {}: no event writer for rank {}",
                                        directory_.string(), rank));
  }
  std::uint64_t start = nanoseconds(start_s), end = nanoseconds(end_s);
  std::uint64_t& last = s.last_ns[static_cast<size_t>(rank)];
  if (start < last) {
    ++clamped_;
    start = last;
  }
  end = std::max(end, start);
  OTF2_RegionRef& region = s.region_of_slot[slot_of(kind, op)];
  if (region == OTF2_UNDEFINED_REGION) {
    region = static_cast<OTF2_RegionRef>(s.regions.size());
    s.regions.emplace_back(kind, op);
  }
  check(OTF2_EvtWriter_Enter(w, nullptr, start, region), "an Enter record", directory_);
  check(OTF2_EvtWriter_Leave(w, nullptr, end, region), "a Leave record", directory_);
  last = end;
  s.end_ns = std::max(s.end_ns, end);
}

void Otf2TimelineWriter::close() {
  State& s = *state_;
  if (!s.archive) return;
  // Event counts per location, before their writers close.
  std::vector<std::uint64_t> counts(static_cast<size_t>(nranks_), 0);
  for (int r = 0; r < nranks_; ++r) {
    OTF2_EvtWriter* w = s.writers[static_cast<size_t>(r)];
    if (!w) continue;
    check(OTF2_EvtWriter_GetNumberOfEvents(w, &counts[static_cast<size_t>(r)]), "counting events", directory_);
    check(OTF2_Archive_CloseEvtWriter(s.archive, w), "closing an event writer", directory_);
  }
  check(OTF2_Archive_CloseEvtFiles(s.archive), "closing the event files", directory_);
  // Every location has a local definition file, empty here: readers open each.
  check(OTF2_Archive_OpenDefFiles(s.archive), "opening the local definition files", directory_);
  for (int r = 0; r < nranks_; ++r) {
    OTF2_DefWriter* d = OTF2_Archive_GetDefWriter(s.archive, static_cast<OTF2_LocationRef>(r));
    if (!d) throw UserError(fmt::format("cannot write the OTF2 archive {}: no definition writer for rank {}",
                                        directory_.string(), r));
    check(OTF2_Archive_CloseDefWriter(s.archive, d), "closing a local definition file", directory_);
  }
  check(OTF2_Archive_CloseDefFiles(s.archive), "closing the local definition files", directory_);

  OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(s.archive);
  if (!g) throw UserError(fmt::format("cannot write the OTF2 archive {}: no definition writer", directory_.string()));
  check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, s.end_ns, OTF2_UNDEFINED_TIMESTAMP),
        "the clock properties", directory_);
  // Strings: 0 "", 1 "perfcast", 2 "node", 3 "MPI job", then one per region and rank.
  OTF2_StringRef next_string = 0;
  auto string = [&](const std::string& text) {
    check(OTF2_GlobalDefWriter_WriteString(g, next_string, text.c_str()), "a string", directory_);
    return next_string++;
  };
  OTF2_StringRef empty = string(""), machine = string("simulated machine"), node = string("node"),
                 job = string("MPI job");
  for (OTF2_RegionRef region = 0; region < s.regions.size(); ++region) {
    const auto& what = s.regions[region];
    std::string name = otf2_region_name(what.first, what.second);
    OTF2_StringRef name_ref = string(name);
    bool compute = what.first == sim::SpanKind::Compute;
    OTF2_RegionRole role = compute ? OTF2_RegionRole{OTF2_REGION_ROLE_ARTIFICIAL} : role_of(what.second);
    OTF2_Paradigm paradigm = compute ? OTF2_Paradigm{OTF2_PARADIGM_USER} : OTF2_Paradigm{OTF2_PARADIGM_MPI};
    check(OTF2_GlobalDefWriter_WriteRegion(g, region, name_ref, name_ref, empty, role, paradigm,
                                           OTF2_REGION_FLAG_NONE, empty, 0, 0),
          "a region", directory_);
  }
  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, node, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "the system tree", directory_);
  check(OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, job, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP),
        "the location group", directory_);
  for (int r = 0; r < nranks_; ++r) {
    OTF2_StringRef name = string(fmt::format("rank {}", r));
    check(OTF2_GlobalDefWriter_WriteLocation(g, static_cast<OTF2_LocationRef>(r), name, OTF2_LOCATION_TYPE_CPU_THREAD,
                                             counts[static_cast<size_t>(r)], 0),
          "a location", directory_);
  }
  check(OTF2_Archive_CloseGlobalDefWriter(s.archive, g), "closing the definitions", directory_);
  OTF2_ErrorCode closed = OTF2_Archive_Close(s.archive);
  s.archive = nullptr;
  check(closed, "closing the archive", directory_);
  std::error_code ec;
  fs::rename(scratch_, directory_, ec);
  if (ec)
    throw UserError(fmt::format("cannot move the OTF2 archive from {} to {}: {}", scratch_.string(),
                                directory_.string(), ec.message()));
}

}  // namespace perfcast::report
