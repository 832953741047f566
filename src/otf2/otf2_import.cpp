#include "otf2/otf2_import.h"

#include <fmt/format.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <cstdarg>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "events/trace.h"
#include "otf2/otf2_mpi.h"
#include "support/error.h"
#include "support/mpi_op.h"

namespace perfcast::otf2 {

namespace fs = std::filesystem;
using events::Event;
using events::Kind;

namespace {

// --- the global definitions -----------------------------------------------------------------

struct RegionDef {
  std::string name;
  OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
};
struct LocationDef {
  std::string name;
  OTF2_LocationType type = OTF2_LOCATION_TYPE_UNKNOWN;
  std::uint64_t events = 0;
};
struct GroupDef {
  OTF2_GroupType type = OTF2_GROUP_TYPE_UNKNOWN;
  OTF2_Paradigm paradigm = OTF2_PARADIGM_UNKNOWN;
  std::vector<std::uint64_t> members;
};
struct CommDef {
  std::string name;
  OTF2_GroupRef group = OTF2_UNDEFINED_GROUP;
  OTF2_CommRef parent = OTF2_UNDEFINED_COMM;
};

struct Definitions {
  std::uint64_t ticks_per_second = 0;
  std::unordered_map<OTF2_StringRef, std::string> strings;
  std::unordered_map<OTF2_RegionRef, RegionDef> regions;
  std::unordered_map<OTF2_AttributeRef, std::string> attributes;
  std::map<OTF2_LocationRef, LocationDef> locations;
  std::unordered_map<OTF2_GroupRef, GroupDef> groups;
  std::map<OTF2_CommRef, CommDef> comms;

  std::string string(OTF2_StringRef ref) const {
    auto it = strings.find(ref);
    return it == strings.end() ? std::string() : it->second;
  }
  std::optional<OTF2_AttributeRef> attribute(const char* name) const {
    for (const auto& [ref, n] : attributes)
      if (n == name) return ref;
    return std::nullopt;
  }
};

// Region, location and communicator names are strings, defined anywhere in the file:
// they are kept as references and looked up once everything is read.
struct RawDefinitions {
  Definitions defs;
  std::unordered_map<OTF2_RegionRef, OTF2_StringRef> region_names;
  std::unordered_map<OTF2_LocationRef, OTF2_StringRef> location_names;
  std::unordered_map<OTF2_AttributeRef, OTF2_StringRef> attribute_names;
  std::unordered_map<OTF2_CommRef, OTF2_StringRef> comm_names;
};

OTF2_CallbackCode on_clock(void* user, uint64_t resolution, uint64_t, uint64_t, uint64_t) {
  static_cast<RawDefinitions*>(user)->defs.ticks_per_second = resolution;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_string(void* user, OTF2_StringRef self, const char* text) {
  static_cast<RawDefinitions*>(user)->defs.strings[self] = text ? text : "";
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_region(void* user, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef, OTF2_StringRef,
                            OTF2_RegionRole, OTF2_Paradigm paradigm, OTF2_RegionFlag, OTF2_StringRef, uint32_t,
                            uint32_t) {
  auto& raw = *static_cast<RawDefinitions*>(user);
  raw.defs.regions[self].paradigm = paradigm;
  raw.region_names[self] = name;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_attribute(void* user, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef, OTF2_Type) {
  static_cast<RawDefinitions*>(user)->attribute_names[self] = name;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_location(void* user, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
                              uint64_t events, OTF2_LocationGroupRef) {
  auto& raw = *static_cast<RawDefinitions*>(user);
  raw.defs.locations[self] = {std::string(), type, events};
  raw.location_names[self] = name;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_group(void* user, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type, OTF2_Paradigm paradigm,
                           OTF2_GroupFlag, uint32_t count, const uint64_t* members) {
  static_cast<RawDefinitions*>(user)->defs.groups[self] = {type, paradigm,
                                                           std::vector<std::uint64_t>(members, members + count)};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_comm(void* user, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef parent,
                          OTF2_CommFlag) {
  auto& raw = *static_cast<RawDefinitions*>(user);
  raw.defs.comms[self] = {std::string(), group, parent};
  raw.comm_names[self] = name;
  return OTF2_CALLBACK_SUCCESS;
}

// libotf2 reports its errors through this callback (by default it prints them);
// the last one is kept for the error perfcast raises.
OTF2_ErrorCode keep_error(void* user, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char* format,
                          va_list arguments) {
  char text[512];
  std::vsnprintf(text, sizeof text, format ? format : "", arguments);
  *static_cast<std::string*>(user) = text;
  return code;
}

// --- one location's events ------------------------------------------------------------------

// A record that arrived inside an MPI region, kept until the region's Leave.
struct Message {
  std::uint32_t peer = 0;
  OTF2_CommRef comm = 0;
  std::uint32_t tag = 0;
  std::uint64_t bytes = 0;
  std::optional<std::uint64_t> request;
};
struct CollectiveEnd {
  OTF2_CollectiveOp op = OTF2_COLLECTIVE_OP_BARRIER;
  OTF2_CommRef comm = 0;
  std::uint32_t root = 0;
  std::uint64_t sent = 0, received = 0;
};
struct OpenCall {
  OTF2_RegionRef region = 0;
  std::optional<Kind> kind;  // none: an MPI function the vocabulary has no event for
  std::uint64_t enter = 0;
  std::uint64_t position = 0;
  std::optional<std::int32_t> level;  // MPI_Pcontrol's, or a marker's id
  std::vector<Message> sends, receives;
  std::optional<std::uint64_t> irecv_request;
  std::vector<std::uint64_t> completed;  // OTF2 request ids, in record order
  std::vector<Message> irecv_completions;
  bool collective_begun = false;
  std::optional<CollectiveEnd> collective;
  std::optional<OTF2_CommRef> created, destroyed;
};

class LocationReader {
 public:
  LocationReader(const Definitions& defs, OTF2_LocationRef location, int rank, events::RankWriter& out,
                 Otf2Import& totals)
      : defs_(defs), location_(location), rank_(rank), out_(out), totals_(totals) {
    level_attribute_ = defs.attribute(kPcontrolLevelAttribute);
    marker_attribute_ = defs.attribute(kMarkerIdAttribute);
  }

  // The rank's two predefined communicators, found by the reader.
  void predefine(OTF2_CommRef world, std::optional<OTF2_CommRef> self) {
    handles_[world] = events::kCommWorld;
    if (self) handles_[*self] = events::kCommSelf;
  }

  // The first refusal, with where it happened; empty while all is well.
  std::string error;

  OTF2_CallbackCode refuse(const std::string& why, OTF2_TimeStamp time, std::uint64_t position) {
    if (error.empty())
      error = fmt::format("location {} ({}, rank {}), event {} at tick {}: {}", location_,
                          defs_.locations.at(location_).name, rank_, position, time, why);
    return OTF2_CALLBACK_INTERRUPT;
  }

  OTF2_CallbackCode enter(OTF2_TimeStamp time, std::uint64_t position, OTF2_AttributeList* attributes,
                          OTF2_RegionRef region) {
    ++totals_.records;
    const RegionDef* def = region_def(region);
    if (!def) return refuse(fmt::format("region {} is not defined", region), time, position);
    if (def->paradigm != OTF2_PARADIGM_MPI) {
      if (def->name == kMarkerRegion && !open_) {
        OpenCall call{region, Kind::Marker, time, position};
        call.level = int_attribute(attributes, marker_attribute_);
        if (!call.level) return refuse("a perfcast_marker region without its marker id", time, position);
        open_ = std::move(call);
        return OTF2_CALLBACK_SUCCESS;
      }
      if (!compute_paradigm(def->paradigm))
        return refuse(fmt::format("region {} is of paradigm {}: perfcast maps MPI processes, not threads or "
                                  "accelerators",
                                  def->name, paradigm_name(def->paradigm)),
                      time, position);
      ++totals_.read_as_compute[def->name];
      ++user_depth_;
      return OTF2_CALLBACK_SUCCESS;
    }
    if (open_)
      return refuse(
          fmt::format("{} entered inside {}: MPI calls do not nest", def->name, defs_.regions.at(open_->region).name),
          time, position);
    OpenCall call{region, std::nullopt, time, position};
    if (std::optional<mpi::Op> op = mpi::op_of_function(def->name)) {
      Kind kind = events::kind_of(*op);
      if (kind != Kind::Marker) call.kind = kind;
    }
    if (!call.kind) ++totals_.read_as_compute[def->name];
    if (call.kind == Kind::Pcontrol) {
      call.level = int_attribute(attributes, level_attribute_);
      if (!call.level)
        return refuse("MPI_Pcontrol without its level (attribute perfcast::pcontrol_level)", time, position);
    }
    open_ = std::move(call);
    return OTF2_CALLBACK_SUCCESS;
  }

  OTF2_CallbackCode leave(OTF2_TimeStamp time, std::uint64_t position, OTF2_RegionRef region) {
    ++totals_.records;
    if (!open_ || open_->region != region) {
      if (user_depth_ > 0) {
        --user_depth_;
        return OTF2_CALLBACK_SUCCESS;
      }
      return refuse(fmt::format("Leave of region {} that is not the one entered", region_name(region)), time, position);
    }
    OpenCall call = std::move(*open_);
    open_.reset();
    if (!call.kind) {  // an MPI function with no event of its own: compute, unless it moved data
      if (!call.sends.empty() || !call.receives.empty() || call.irecv_request || !call.completed.empty() ||
          call.collective)
        return refuse(fmt::format("{} carries MPI records, but perfcast has no event for it", region_name(region)),
                      time, position);
      return OTF2_CALLBACK_SUCCESS;
    }
    if (last_leave_ && call.enter > *last_leave_) {
      Event burst;
      burst.kind = Kind::Compute;
      burst.seconds = seconds(call.enter - *last_leave_);
      emit(std::move(burst));
    }
    last_leave_ = time;
    try {
      Event e = make_event(call, time);
      emit(std::move(e));
    } catch (const UserError& refused) {
      return refuse(fmt::format("{}: {}", region_name(region), refused.what()), time, position);
    }
    return OTF2_CALLBACK_SUCCESS;
  }

  OTF2_CallbackCode send(OTF2_TimeStamp time, std::uint64_t position, Message m) {
    ++totals_.records;
    OpenCall* call = inside_mpi("an MPI send record", time, position);
    if (!call) return OTF2_CALLBACK_INTERRUPT;
    call->sends.push_back(m);
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode receive(OTF2_TimeStamp time, std::uint64_t position, Message m) {
    ++totals_.records;
    OpenCall* call = inside_mpi("an MpiRecv record", time, position);
    if (!call) return OTF2_CALLBACK_INTERRUPT;
    call->receives.push_back(m);
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode irecv_request(OTF2_TimeStamp time, std::uint64_t position, std::uint64_t request) {
    ++totals_.records;
    OpenCall* call = inside_mpi("an MpiIrecvRequest record", time, position);
    if (!call) return OTF2_CALLBACK_INTERRUPT;
    call->irecv_request = request;
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode completion(OTF2_TimeStamp time, std::uint64_t position, std::optional<Message> irecv,
                               std::uint64_t request) {
    ++totals_.records;
    OpenCall* call = inside_mpi("a request completion record", time, position);
    if (!call) return OTF2_CALLBACK_INTERRUPT;
    call->completed.push_back(request);
    if (irecv) call->irecv_completions.push_back(*irecv);
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode request_test(OTF2_TimeStamp time, std::uint64_t position) {
    ++totals_.records;  // a test that completed nothing: the call's event lists no request
    return inside_mpi("an MpiRequestTest record", time, position) ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_INTERRUPT;
  }
  OTF2_CallbackCode collective_begin(OTF2_TimeStamp time, std::uint64_t position) {
    ++totals_.records;
    OpenCall* call = inside_mpi("an MpiCollectiveBegin record", time, position);
    if (!call) return OTF2_CALLBACK_INTERRUPT;
    call->collective_begun = true;
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode collective_end(OTF2_TimeStamp time, std::uint64_t position, CollectiveEnd end) {
    ++totals_.records;
    OpenCall* call = inside_mpi("an MpiCollectiveEnd record", time, position);
    if (!call) return OTF2_CALLBACK_INTERRUPT;
    if (!call->collective_begun) return refuse("an MpiCollectiveEnd without its MpiCollectiveBegin", time, position);
    call->collective = end;
    return OTF2_CALLBACK_SUCCESS;
  }
  OTF2_CallbackCode comm_event(OTF2_TimeStamp time, std::uint64_t position, OTF2_CommRef comm, bool create) {
    ++totals_.records;
    OpenCall* call = inside_mpi(create ? "a CommCreate record" : "a CommDestroy record", time, position);
    if (!call) return OTF2_CALLBACK_INTERRUPT;
    (create ? call->created : call->destroyed) = comm;
    return OTF2_CALLBACK_SUCCESS;
  }

  void count_as_compute(const std::string& what) {
    ++totals_.records;
    ++totals_.read_as_compute[what];
  }

  // At the end of the location's records: every event written, or the reason not.
  void finish() {
    if (!error.empty()) return;
    if (open_) {
      error = fmt::format("location {} (rank {}): the archive ends inside {}", location_, rank_,
                          region_name(open_->region));
      return;
    }
    if (!unresolved_.empty()) {
      error = fmt::format(
          "location {} (rank {}): MPI_Irecv request {} is never completed by an MpiIrecv record, "
          "so its source, tag and size are unknown",
          location_, rank_, unresolved_.begin()->first);
      return;
    }
    flush(true);
  }

 private:
  static bool compute_paradigm(OTF2_Paradigm p) {
    return p == OTF2_PARADIGM_USER || p == OTF2_PARADIGM_COMPILER || p == OTF2_PARADIGM_SAMPLING ||
           p == OTF2_PARADIGM_MEASUREMENT_SYSTEM || p == OTF2_PARADIGM_UNKNOWN;
  }
  static std::string paradigm_name(OTF2_Paradigm p) {
    switch (p) {
      case OTF2_PARADIGM_OPENMP:
        return "OpenMP";
      case OTF2_PARADIGM_PTHREAD:
        return "POSIX threads";
      case OTF2_PARADIGM_CUDA:
        return "CUDA";
      case OTF2_PARADIGM_OPENCL:
        return "OpenCL";
      case OTF2_PARADIGM_SHMEM:
        return "SHMEM";
      default:
        return fmt::format("number {}", static_cast<int>(p));
    }
  }
  const RegionDef* region_def(OTF2_RegionRef region) const {
    auto it = defs_.regions.find(region);
    return it == defs_.regions.end() ? nullptr : &it->second;
  }
  std::string region_name(OTF2_RegionRef region) const {
    const RegionDef* def = region_def(region);
    return def ? def->name : fmt::format("region {}", region);
  }
  static std::optional<std::int32_t> int_attribute(OTF2_AttributeList* list, std::optional<OTF2_AttributeRef> ref) {
    std::int32_t value = 0;
    if (!list || !ref || OTF2_AttributeList_GetInt32(list, *ref, &value) != OTF2_SUCCESS) return std::nullopt;
    return value;
  }
  OpenCall* inside_mpi(const char* what, OTF2_TimeStamp time, std::uint64_t position) {
    if (!open_ || open_->kind == Kind::Marker) {
      refuse(fmt::format("{} outside any MPI region", what), time, position);
      return nullptr;
    }
    return &*open_;
  }
  double seconds(std::uint64_t ticks) const {
    if (defs_.ticks_per_second == kTicksPerSecond) return events::seconds_of_ns(ticks);
    return static_cast<double>(ticks) / static_cast<double>(defs_.ticks_per_second);
  }

  // This rank's handle of an archive communicator.
  std::int32_t handle_of(OTF2_CommRef comm) {
    if (auto it = handles_.find(comm); it != handles_.end()) return it->second;
    auto def = defs_.comms.find(comm);
    if (def == defs_.comms.end()) throw UserError(fmt::format("communicator {} is not defined", comm));
    throw UserError(fmt::format("communicator {} ({}) was not created on this rank by any MPI call read before", comm,
                                def->second.name));
  }
  const std::vector<std::uint64_t>& members_of(OTF2_CommRef comm) const {
    static const std::vector<std::uint64_t> none;
    auto def = defs_.comms.find(comm);
    if (def == defs_.comms.end()) return none;
    auto group = defs_.groups.find(def->second.group);
    return group == defs_.groups.end() ? none : group->second.members;
  }

  static void expect_at_most_one(const std::vector<Message>& records, const char* what) {
    if (records.size() > 1) throw UserError(fmt::format("{} {} records in one call", records.size(), what));
  }
  std::uint64_t new_request(std::uint64_t otf2_request) {
    const std::uint64_t id = ++last_request_;
    requests_[otf2_request] = id;
    return id;
  }

  Event make_event(const OpenCall& call, std::uint64_t leave) {
    Event e;
    e.kind = *call.kind;
    e.duration_s = seconds(leave - call.enter);
    const bool point_to_point = events::is_point_to_point(e.kind);
    if (!point_to_point && !events::is_completion(e.kind) && (!call.sends.empty() || !call.receives.empty()))
      throw UserError("it carries message records");
    switch (e.kind) {
      case Kind::Marker:  // a point in the program, not a call: no duration
        e.tag = *call.level;
        e.duration_s = -1;
        return e;
      case Kind::Pcontrol:
        e.tag = *call.level;
        return e;
      case Kind::Init:
      case Kind::Finalize:
        return e;
      case Kind::Send:
      case Kind::Ssend:
      case Kind::Recv: {
        const auto& records = e.kind == Kind::Recv ? call.receives : call.sends;
        expect_at_most_one(records, e.kind == Kind::Recv ? "MpiRecv" : "MpiSend");
        if (records.empty()) return e;  // MPI_PROC_NULL: no message, no record
        set_message(e, records.front());
        return e;
      }
      case Kind::Isend:
      case Kind::Issend: {
        expect_at_most_one(call.sends, "MpiIsend");
        if (call.sends.empty()) {
          // MPI_PROC_NULL: no record, and no completion names its request. The
          // blocking form completes at once as the nonblocking one would.
          e.kind = e.kind == Kind::Isend ? Kind::Send : Kind::Ssend;
          return e;
        }
        set_message(e, call.sends.front());
        if (!call.sends.front().request) throw UserError("an MpiSend record where MpiIsend was expected");
        e.request = new_request(*call.sends.front().request);
        return e;
      }
      case Kind::Irecv:
        if (!call.irecv_request) {  // MPI_PROC_NULL, as for MPI_Isend
          e.kind = Kind::Recv;
          return e;
        }
        e.request = new_request(*call.irecv_request);
        unresolved_[*call.irecv_request] = flushed_ + pending_.size();  // filled in by its MpiIrecv record
        return e;
      case Kind::Sendrecv:
        expect_at_most_one(call.sends, "MpiSend");
        expect_at_most_one(call.receives, "MpiRecv");
        e.peer = e.root = events::kProcNull;
        if (!call.sends.empty()) set_message(e, call.sends.front());
        if (!call.receives.empty()) {
          const Message& r = call.receives.front();
          e.comm = handle_of(r.comm);
          e.root = static_cast<std::int32_t>(r.peer);
          e.tag2 = static_cast<std::int32_t>(r.tag);
          e.bytes2 = r.bytes;
        }
        return e;
      case Kind::Probe:
        throw UserError("OTF2 records no source and tag for a probe");
      case Kind::Wait:
      case Kind::Waitall:
      case Kind::Waitany:
      case Kind::Waitsome:
      case Kind::Test:
      case Kind::Testall: {
        std::size_t irecv = 0;
        for (std::uint64_t otf2_request : call.completed) {
          auto it = requests_.find(otf2_request);
          if (it == requests_.end())
            throw UserError(
                fmt::format("it completes request {}, which no earlier MPI_Isend or MPI_Irecv made", otf2_request));
          e.requests.push_back(it->second);
          requests_.erase(it);
          if (auto u = unresolved_.find(otf2_request); u != unresolved_.end()) {
            if (irecv >= call.irecv_completions.size()) throw UserError("an irecv completion without its record");
            const Message& m = call.irecv_completions[irecv++];
            Event& posted = pending_[u->second - flushed_];
            posted.comm = handle_of(m.comm);
            posted.peer = static_cast<std::int32_t>(m.peer);
            posted.tag = static_cast<std::int32_t>(m.tag);
            posted.bytes = m.bytes;
            unresolved_.erase(u);
          }
        }
        return e;
      }
      default:
        break;
    }
    // Collectives and communicator calls.
    if (!call.collective) throw UserError("no MpiCollectiveEnd record inside it");
    const CollectiveEnd& end = *call.collective;
    const std::optional<OTF2_CollectiveOp> expected = collective_op_of(e.kind);
    if (!expected)
      throw UserError("OTF2 records one size per rank, not the per-peer counts perfcast's event for it needs");
    if (end.op != *expected)
      throw UserError(fmt::format("its MpiCollectiveEnd has collective operation {}, expected {}",
                                  static_cast<int>(end.op), static_cast<int>(*expected)));
    e.comm = handle_of(end.comm);
    if (events::is_rooted(e.kind)) {
      if (end.root == OTF2_UNDEFINED_UINT32) throw UserError("its MpiCollectiveEnd has no root");
      e.root = static_cast<std::int32_t>(end.root);
    }
    if (e.kind == Kind::CommSplit || e.kind == Kind::CommDup || e.kind == Kind::CartCreate) {
      if (!call.created) {
        if (e.kind != Kind::CommSplit) throw UserError("no CommCreate record names the communicator it made");
        e.color = events::kUndefinedColor;  // this rank got MPI_COMM_NULL
        e.new_comm = -1;
        return e;
      }
      // The split's color and key are not recorded: the new communicator's
      // reference and this rank's place in it make the same communicator.
      const auto& members = members_of(*call.created);
      const auto me = std::find(members.begin(), members.end(), static_cast<std::uint64_t>(rank_));
      if (me == members.end())
        throw UserError(fmt::format("this rank is not a member of the communicator {} it created", *call.created));
      e.color = static_cast<std::int32_t>(*call.created);
      e.key = static_cast<std::int32_t>(me - members.begin());
      e.new_comm = next_handle_++;
      handles_[*call.created] = e.new_comm;
      return e;
    }
    if (e.kind == Kind::CommFree) {
      handles_.erase(call.destroyed.value_or(end.comm));
      return e;
    }
    const auto& members = members_of(end.comm);
    const auto me = std::find(members.begin(), members.end(), static_cast<std::uint64_t>(rank_));
    if (!members.empty() && me == members.end())
      throw UserError(fmt::format("this rank is not a member of its communicator {}", end.comm));
    // MPI_COMM_SELF's group lists no members: the rank alone.
    const std::uint64_t size = members.empty() ? 1 : members.size();
    const std::uint64_t rank = members.empty() ? 0 : static_cast<std::uint64_t>(me - members.begin());
    const CollectiveSizes sizes = perfcast_sizes(e.kind, end.sent, end.received, size, rank, end.root);
    e.bytes = sizes.sent;
    e.bytes2 = sizes.received;
    return e;
  }

  void set_message(Event& e, const Message& m) {
    e.comm = handle_of(m.comm);
    e.peer = static_cast<std::int32_t>(m.peer);
    e.tag = static_cast<std::int32_t>(m.tag);
    e.bytes = m.bytes;
  }

  // Events wait here until every irecv before them knows its message.
  void emit(Event e) {
    pending_.push_back(std::move(e));
    ++totals_.events;
    flush(false);
  }
  void flush(bool all) {
    std::size_t first_unresolved = pending_.size() + flushed_;
    if (!all)
      for (const auto& [request, index] : unresolved_) first_unresolved = std::min(first_unresolved, index);
    while (flushed_ < first_unresolved && !pending_.empty()) {
      out_.append(pending_.front());
      pending_.pop_front();
      ++flushed_;
    }
  }

  const Definitions& defs_;
  OTF2_LocationRef location_;
  int rank_;
  events::RankWriter& out_;
  Otf2Import& totals_;
  std::optional<OTF2_AttributeRef> level_attribute_, marker_attribute_;
  std::optional<OpenCall> open_;
  int user_depth_ = 0;
  std::optional<std::uint64_t> last_leave_;
  std::map<OTF2_CommRef, std::int32_t> handles_;
  std::int32_t next_handle_ = 2;
  std::unordered_map<std::uint64_t, std::uint64_t> requests_;  // pending: OTF2 request -> stream request
  std::uint64_t last_request_ = 0;
  std::map<std::uint64_t, std::size_t> unresolved_;  // OTF2 request of an irecv -> its event's index
  std::deque<Event> pending_;
  std::size_t flushed_ = 0;  // events appended to the stream so far
};

// --- callbacks ------------------------------------------------------------------------------

LocationReader& reader_of(void* user) { return *static_cast<LocationReader*>(user); }

OTF2_CallbackCode on_enter(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList* a,
                           OTF2_RegionRef region) {
  return reader_of(u).enter(t, p, a, region);
}
OTF2_CallbackCode on_leave(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                           OTF2_RegionRef region) {
  return reader_of(u).leave(t, p, region);
}
OTF2_CallbackCode on_send(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                          uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return reader_of(u).send(t, p, {receiver, comm, tag, bytes, std::nullopt});
}
OTF2_CallbackCode on_isend(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                           uint32_t receiver, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  return reader_of(u).send(t, p, {receiver, comm, tag, bytes, request});
}
OTF2_CallbackCode on_isend_complete(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                                    uint64_t request) {
  return reader_of(u).completion(t, p, std::nullopt, request);
}
OTF2_CallbackCode on_recv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*, uint32_t sender,
                          OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return reader_of(u).receive(t, p, {sender, comm, tag, bytes, std::nullopt});
}
OTF2_CallbackCode on_irecv_request(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                                   uint64_t request) {
  return reader_of(u).irecv_request(t, p, request);
}
OTF2_CallbackCode on_irecv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                           uint32_t sender, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  return reader_of(u).completion(t, p, Message{sender, comm, tag, bytes, request}, request);
}
OTF2_CallbackCode on_request_test(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                                  uint64_t) {
  return reader_of(u).request_test(t, p);
}
OTF2_CallbackCode on_collective_begin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*) {
  return reader_of(u).collective_begin(t, p);
}
OTF2_CallbackCode on_collective_end(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                                    OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                    uint64_t received) {
  return reader_of(u).collective_end(t, p, {op, comm, root, sent, received});
}
OTF2_CallbackCode on_comm_create(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                                 OTF2_CommRef comm) {
  return reader_of(u).comm_event(t, p, comm, true);
}
OTF2_CallbackCode on_comm_destroy(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                                  OTF2_CommRef comm) {
  return reader_of(u).comm_event(t, p, comm, false);
}
// The measurement system flushing its buffers: its time is in the gap between two
// calls (compute), and is reported with the regions read as compute.
OTF2_CallbackCode on_buffer_flush(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* u, OTF2_AttributeList*,
                                  OTF2_TimeStamp) {
  reader_of(u).count_as_compute("BufferFlush records (the measurement writing its buffers)");
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode on_measurement(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*,
                                 OTF2_MeasurementMode mode) {
  if (mode == OTF2_MEASUREMENT_ON) return OTF2_CALLBACK_SUCCESS;
  return reader_of(u).refuse("measurement was switched off here (MeasurementOnOff): the calls after it are missing", t,
                             p);
}

// Records no perfcast event stands for: the import stops on them, naming them.
#define PERFCAST_REFUSE_RECORD(Record, why)                                                                            \
  OTF2_EvtReaderCallbacks_Set##Record##Callback(                                                                       \
      callbacks,                                                                                                       \
      [](OTF2_LocationRef, OTF2_TimeStamp t, uint64_t p, void* u, OTF2_AttributeList*, auto...) -> OTF2_CallbackCode { \
        return reader_of(u).refuse(fmt::format("a {} record: {}", #Record, why), t, p);                                \
      })

OTF2_EvtReaderCallbacks* event_callbacks() {
  OTF2_EvtReaderCallbacks* callbacks = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(callbacks, on_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(callbacks, on_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(callbacks, on_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(callbacks, on_isend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(callbacks, on_isend_complete);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(callbacks, on_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(callbacks, on_irecv_request);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(callbacks, on_irecv);
  OTF2_EvtReaderCallbacks_SetMpiRequestTestCallback(callbacks, on_request_test);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(callbacks, on_collective_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(callbacks, on_collective_end);
  OTF2_EvtReaderCallbacks_SetCommCreateCallback(callbacks, on_comm_create);
  OTF2_EvtReaderCallbacks_SetCommDestroyCallback(callbacks, on_comm_destroy);
  OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(callbacks, on_measurement);
  OTF2_EvtReaderCallbacks_SetBufferFlushCallback(callbacks, on_buffer_flush);
#define PERFCAST_WHY_RMA "one-sided MPI (RMA) has no perfcast event"
  PERFCAST_REFUSE_RECORD(RmaWinCreate, PERFCAST_WHY_RMA);
  PERFCAST_REFUSE_RECORD(RmaWinDestroy, PERFCAST_WHY_RMA);
  PERFCAST_REFUSE_RECORD(RmaCollectiveBegin, PERFCAST_WHY_RMA);
  PERFCAST_REFUSE_RECORD(RmaPut, PERFCAST_WHY_RMA);
  PERFCAST_REFUSE_RECORD(RmaGet, PERFCAST_WHY_RMA);
  PERFCAST_REFUSE_RECORD(RmaAtomic, PERFCAST_WHY_RMA);
  PERFCAST_REFUSE_RECORD(RmaSync, PERFCAST_WHY_RMA);
  PERFCAST_REFUSE_RECORD(RmaGroupSync, PERFCAST_WHY_RMA);
  PERFCAST_REFUSE_RECORD(RmaRequestLock, PERFCAST_WHY_RMA);
#define PERFCAST_WHY_NBC "non-blocking collectives have no perfcast event"
  PERFCAST_REFUSE_RECORD(NonBlockingCollectiveRequest, PERFCAST_WHY_NBC);
  PERFCAST_REFUSE_RECORD(NonBlockingCollectiveComplete, PERFCAST_WHY_NBC);
  PERFCAST_REFUSE_RECORD(MpiRequestCancelled, "a cancelled request has no perfcast event");
#define PERFCAST_WHY_THREADS "perfcast maps MPI processes, not threads"
  PERFCAST_REFUSE_RECORD(ThreadFork, PERFCAST_WHY_THREADS);
  PERFCAST_REFUSE_RECORD(ThreadTeamBegin, PERFCAST_WHY_THREADS);
  PERFCAST_REFUSE_RECORD(ThreadCreate, PERFCAST_WHY_THREADS);
  PERFCAST_REFUSE_RECORD(ThreadBegin, PERFCAST_WHY_THREADS);
  PERFCAST_REFUSE_RECORD(OmpFork, PERFCAST_WHY_THREADS);
#undef PERFCAST_WHY_RMA
#undef PERFCAST_WHY_NBC
#undef PERFCAST_WHY_THREADS
  return callbacks;
}
#undef PERFCAST_REFUSE_RECORD

// --- the archive ----------------------------------------------------------------------------

class Archive {
 public:
  explicit Archive(const fs::path& anchor) : anchor_(anchor) {
    previous_ = OTF2_Error_RegisterCallback(keep_error, &last_error_);
    std::error_code ec;
    if (!fs::is_regular_file(anchor, ec))
      throw UserError(fmt::format("{} is not an OTF2 archive's anchor file", anchor.string()), {},
                      "name the archive's .otf2 file (DIR/traces.otf2)");
    reader_ = OTF2_Reader_Open(anchor.c_str());
    if (!reader_) fail("cannot open it");
    check(OTF2_Reader_SetSerialCollectiveCallbacks(reader_), "setting up the reader");
  }
  ~Archive() {
    if (reader_) OTF2_Reader_Close(reader_);
    OTF2_Error_RegisterCallback(previous_, nullptr);
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw UserError(fmt::format("cannot read the OTF2 archive {}: {}{}", anchor_.string(), what,
                                last_error_.empty() ? "" : " (" + last_error_ + ")"),
                    {}, "is it complete? an archive copied or written only in part cannot be read");
  }
  // The archive reads, but holds what perfcast's streams cannot stand for.
  [[noreturn]] void refuse(const std::string& what) const {
    throw UserError(fmt::format("cannot import the OTF2 archive {}: {}", anchor_.string(), what), {},
                    "perfcast imports the MPI calls of one location per rank (docs/trace.md, OTF2)");
  }
  void check(OTF2_ErrorCode code, const std::string& what) const {
    if (code != OTF2_SUCCESS) fail(fmt::format("{} failed: {}", what, OTF2_Error_GetDescription(code)));
  }

  OTF2_Reader* reader_ = nullptr;
  fs::path anchor_;
  std::string last_error_;
  OTF2_ErrorCallback previous_ = nullptr;
};

Definitions read_definitions(Archive& archive) {
  OTF2_GlobalDefReader* global = OTF2_Reader_GetGlobalDefReader(archive.reader_);
  if (!global) archive.fail("no global definitions");
  OTF2_GlobalDefReaderCallbacks* callbacks = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(callbacks, on_clock);
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(callbacks, on_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(callbacks, on_region);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(callbacks, on_attribute);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(callbacks, on_location);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(callbacks, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(callbacks, on_comm);
  RawDefinitions raw;
  OTF2_ErrorCode code = OTF2_Reader_RegisterGlobalDefCallbacks(archive.reader_, global, callbacks, &raw);
  OTF2_GlobalDefReaderCallbacks_Delete(callbacks);
  archive.check(code, "registering the definition callbacks");
  std::uint64_t read = 0;
  archive.check(OTF2_Reader_ReadAllGlobalDefinitions(archive.reader_, global, &read), "reading the definitions");
  Definitions defs = std::move(raw.defs);
  for (auto& [ref, region] : defs.regions) region.name = defs.string(raw.region_names[ref]);
  for (auto& [ref, location] : defs.locations) location.name = defs.string(raw.location_names[ref]);
  for (auto& [ref, comm] : defs.comms) comm.name = defs.string(raw.comm_names[ref]);
  for (const auto& [ref, name] : raw.attribute_names) defs.attributes[ref] = defs.string(name);
  if (defs.ticks_per_second == 0) archive.fail("its definitions hold no clock properties (timer resolution)");
  return defs;
}

}  // namespace

Otf2Import import_otf2(const fs::path& anchor, const fs::path& trace_dir) {
  Archive archive(anchor);
  const Definitions defs = read_definitions(archive);
  Otf2Import result;
  result.ticks_per_second = defs.ticks_per_second;

  // The MPI ranks: the members of the MPI locations group, in rank order.
  const GroupDef* ranks = nullptr;
  for (const auto& [ref, group] : defs.groups)
    if (group.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && group.paradigm == OTF2_PARADIGM_MPI) ranks = &group;
  if (!ranks || ranks->members.empty())
    archive.refuse("it defines no MPI locations group (OTF2_GROUP_TYPE_COMM_LOCATIONS): not the trace of an MPI run");
  std::map<OTF2_LocationRef, int> rank_of;
  for (std::size_t r = 0; r < ranks->members.size(); ++r) rank_of[ranks->members[r]] = static_cast<int>(r);
  for (const auto& [ref, location] : defs.locations) {
    if (rank_of.count(ref) || location.events == 0) continue;
    archive.refuse(
        fmt::format("location {} ({}) has {} events but is no MPI rank's (a thread, an accelerator or a "
                    "metric location): perfcast maps one location per rank",
                    ref, location.name, location.events));
  }
  for (const auto& [ref, rank] : rank_of)
    if (!defs.locations.count(ref))
      archive.fail(fmt::format("MPI rank {} is location {}, which is not defined", rank, ref));

  // MPI_COMM_WORLD: the communicator without parent over every rank in order; MPI_COMM_SELF by its group type.
  std::optional<OTF2_CommRef> world, self;
  for (const auto& [ref, comm] : defs.comms) {
    auto group = defs.groups.find(comm.group);
    if (group == defs.groups.end()) continue;
    if (group->second.type == OTF2_GROUP_TYPE_COMM_SELF && !self) self = ref;
    bool everyone =
        group->second.type == OTF2_GROUP_TYPE_COMM_GROUP && group->second.members.size() == ranks->members.size();
    for (std::size_t i = 0; everyone && i < group->second.members.size(); ++i) everyone = group->second.members[i] == i;
    if (everyone && comm.parent == OTF2_UNDEFINED_COMM && !world) world = ref;
  }
  if (!world) archive.refuse("it defines no communicator over every MPI rank in order (MPI_COMM_WORLD)");

  for (const auto& [ref, rank] : rank_of)
    archive.check(OTF2_Reader_SelectLocation(archive.reader_, ref), "selecting a location");
  const bool local_defs = OTF2_Reader_OpenDefFiles(archive.reader_) == OTF2_SUCCESS;
  archive.check(OTF2_Reader_OpenEvtFiles(archive.reader_), "opening the event files");
  // Local definitions hold the mapping tables a measurement system may write: read them first.
  for (const auto& [ref, rank] : rank_of) {
    if (local_defs) {
      OTF2_DefReader* d = OTF2_Reader_GetDefReader(archive.reader_, ref);
      if (d) {
        std::uint64_t read = 0;
        archive.check(OTF2_Reader_ReadAllLocalDefinitions(archive.reader_, d, &read),
                      fmt::format("reading location {}'s definitions", ref));
        archive.check(OTF2_Reader_CloseDefReader(archive.reader_, d), "closing a definition reader");
      }
    }
    OTF2_Reader_GetEvtReader(archive.reader_, ref);
  }
  if (local_defs) archive.check(OTF2_Reader_CloseDefFiles(archive.reader_), "closing the definition files");

  result.ranks = static_cast<int>(ranks->members.size());
  events::TraceMetadata metadata;
  metadata.program = anchor.string();
  events::TraceWriter writer(trace_dir, result.ranks, metadata);
  OTF2_EvtReaderCallbacks* callbacks = event_callbacks();
  struct DeleteCallbacks {
    OTF2_EvtReaderCallbacks* c;
    ~DeleteCallbacks() { OTF2_EvtReaderCallbacks_Delete(c); }
  } delete_callbacks{callbacks};
  for (int r = 0; r < result.ranks; ++r) {
    const OTF2_LocationRef ref = ranks->members[static_cast<std::size_t>(r)];
    LocationReader location(defs, ref, r, writer.rank(r), result);
    location.predefine(*world, self);
    OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(archive.reader_, ref);
    if (!events) archive.fail(fmt::format("no event reader for location {}", ref));
    archive.check(OTF2_Reader_RegisterEvtCallbacks(archive.reader_, events, callbacks, &location),
                  "registering the event callbacks");
    std::uint64_t read = 0;
    OTF2_ErrorCode code = OTF2_Reader_ReadAllLocalEvents(archive.reader_, events, &read);
    if (!location.error.empty()) archive.refuse(location.error);
    archive.check(code, fmt::format("reading location {}'s events", ref));
    if (read != defs.locations.at(ref).events)
      archive.fail(fmt::format("location {} holds {} events where its definition says {}", ref, read,
                               defs.locations.at(ref).events));
    location.finish();
    if (!location.error.empty()) archive.refuse(location.error);
    archive.check(OTF2_Reader_CloseEvtReader(archive.reader_, events), "closing an event reader");
  }
  archive.check(OTF2_Reader_CloseEvtFiles(archive.reader_), "closing the event files");
  writer.close();
  return result;
}

}  // namespace perfcast::otf2
