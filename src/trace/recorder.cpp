#include "trace/recorder.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "events/phase_patterns.h"
#include "events/trace.h"
#include "trace/phase_matcher.h"
#include "trace/rank_info.h"

namespace perfcast::trace {

namespace fs = std::filesystem;
using events::Event;
using events::Kind;

namespace {

// Events held back for a receive's completion beyond this are written as they
// are (a wildcard source stays a wildcard): memory stays bounded even when a
// program never completes a request.
constexpr std::size_t kMaxHeldEvents = 1u << 20;

// One reading of the clock, in seconds (gaps between calls) and whole
// nanoseconds (a call's duration: a difference of two readings, exact).
struct Instant {
  double s;
  std::uint64_t ns;
};

Instant now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return {static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec),
          static_cast<std::uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<std::uint64_t>(t.tv_nsec)};
}
double now_s() { return now().s; }

// Everything a rank records. One per process; guarded by `mutex` (a program
// may call MPI from several threads under MPI_THREAD_MULTIPLE: its stream is
// then the calls in the order they completed).
struct State {
  std::mutex mutex;
  bool started = false;   // MPI_Init returned and the stream is open
  bool finished = false;  // MPI_Finalize returned
  fs::path dir;
  RankInfo info;
  std::unique_ptr<events::RankWriter> writer;

  // Events not yet handed to the writer: the first is a receive whose real
  // source, tag or size its completion has still to give.
  struct Held {
    Event event;
    bool waiting = false;
    int comm_rank = 0;  // this rank's rank in the event's communicator (point to point)
    double end_s = 0;   // when its call returned
  };
  std::deque<Held> held;
  std::uint64_t held_base = 0;  // sequence number of held.front()

  std::unordered_map<MPI_Comm, std::int32_t> comms;
  std::int32_t next_comm = events::kCommSelf + 1;
  std::unordered_map<MPI_Request, std::uint64_t> requests;
  std::uint64_t next_request = 1;
  std::unordered_map<std::uint64_t, std::uint64_t> receives;  // request id -> sequence number of its event

  double init_end_s = 0;
  double last_end_s = 0;  // when the previous traced call returned
  double last_flush_s = 0;  // when the writer last wrote a block (kFlushIntervalS)

  // Signature mode (kSignaturePhasesVariable): the matcher takes the events
  // instead of a writer; `call_comm_rank` and `call_end_s` describe the call
  // being recorded.
  std::unique_ptr<PhaseMatcher> matcher;
  int call_comm_rank = 0;
  double call_end_s = 0;
  double finalize_start_s = 0;
};

State& state() {
  static State* instance = new State;  // never destroyed: atexit order must not matter
  return *instance;
}

std::atomic<bool> active{false};

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

void write_measurement(State& s, bool finalized);

void stop_with(State& s, const char* call, const std::string& what) {
  active = false;
  if (s.info.error.empty()) s.info.error = std::string(call) + ": " + what;
  if (s.matcher) write_measurement(s, false);  // the command waits for every rank's file
}

std::int32_t comm_handle(State& s, MPI_Comm comm) {
  auto it = s.comms.find(comm);
  if (it == s.comms.end())
    fail(
        "a communicator the tracer did not see created (it follows MPI_Comm_split, MPI_Comm_split_type, "
        "MPI_Comm_create, MPI_Comm_dup, MPI_Cart_create and MPI_Cart_sub only)");
  return it->second;
}

std::int32_t register_comm(State& s, MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return -1;
  std::int32_t handle = s.next_comm++;
  s.comms[comm] = handle;
  return handle;
}

std::uint64_t type_bytes(MPI_Datatype type) {
  int size = 0;
  if (PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0) fail("MPI_Type_size failed on the call's datatype");
  return static_cast<std::uint64_t>(size);
}

std::uint64_t bytes_of(int count, MPI_Datatype type) {
  if (count <= 0) return 0;
  return static_cast<std::uint64_t>(count) * type_bytes(type);
}

std::vector<std::uint64_t> byte_counts(const int* counts, int n, MPI_Datatype type) {
  if (!counts) fail("NULL counts");
  std::uint64_t size = type_bytes(type);
  std::vector<std::uint64_t> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = counts[i] > 0 ? counts[i] * size : 0;
  return out;
}

std::uint64_t sum(const std::vector<std::uint64_t>& values) {
  std::uint64_t total = 0;
  for (auto v : values) total += v;
  return total;
}

std::int32_t peer_of(int peer) {
  if (peer == MPI_ANY_SOURCE) return events::kAnySource;
  if (peer == MPI_PROC_NULL) return events::kProcNull;
  return peer;
}
std::int32_t tag_of(int tag) { return tag == MPI_ANY_TAG ? events::kAnyTag : tag; }

// The bytes a receive got, from its status; `buffer_bytes` when MPI cannot say.
std::uint64_t received_bytes(const MPI_Status& status, std::uint64_t buffer_bytes) {
  int count = 0;
  if (PMPI_Get_count(&status, MPI_BYTE, &count) != MPI_SUCCESS || count == MPI_UNDEFINED || count < 0)
    return buffer_bytes;
  return static_cast<std::uint64_t>(count);
}

// Hands one event, in stream order, to the writer or (signature mode) the matcher.
void emit(State& s, const Event& event, int comm_rank, double end_s) {
  if (!s.matcher) {
    s.writer->append(event);
    return;
  }
  if (s.matcher->feed(event, comm_rank, end_s)) write_measurement(s, false);
}

void flush_ready(State& s) {
  while (!s.held.empty() && (!s.held.front().waiting || s.held.size() > kMaxHeldEvents)) {
    if (s.held.front().waiting) ++s.info.unresolved_receives;
    emit(s, s.held.front().event, s.held.front().comm_rank, s.held.front().end_s);
    s.held.pop_front();
    ++s.held_base;
  }
}

// Appends; returns the event's sequence number.
std::uint64_t append(State& s, Event&& event, bool waiting = false) {
  std::uint64_t sequence = s.held_base + s.held.size();
  if (s.held.empty() && !waiting) {  // the common case: nothing to wait for
    emit(s, event, s.call_comm_rank, s.call_end_s);
    ++s.held_base;
    return sequence;
  }
  s.held.push_back({std::move(event), waiting, s.call_comm_rank, s.call_end_s});
  flush_ready(s);
  return sequence;
}

// A request a completion call finished: its id joins the event, and a receive
// it completes learns its real source, tag and size.
void complete(State& s, MPI_Request request, const MPI_Status* status, Event& event) {
  auto it = s.requests.find(request);
  if (it == s.requests.end()) return;  // MPI_REQUEST_NULL, or made by a call the tracer does not follow
  std::uint64_t id = it->second;
  s.requests.erase(it);
  event.requests.push_back(id);
  auto receive = s.receives.find(id);
  if (receive == s.receives.end()) return;
  std::uint64_t sequence = receive->second;
  s.receives.erase(receive);
  if (sequence < s.held_base || !status) return;  // already written as it was
  auto& held = s.held[static_cast<std::size_t>(sequence - s.held_base)];
  if (held.event.peer == events::kAnySource) held.event.peer = status->MPI_SOURCE;
  if (held.event.tag == events::kAnyTag) held.event.tag = status->MPI_TAG;
  held.event.bytes = received_bytes(*status, held.event.bytes);
  held.waiting = false;
}

const MPI_Status* status_at(const Call& call, std::size_t i) {
  return i < call.statuses.size() ? &call.statuses[i] : nullptr;
}

void write_info(State& s) {
  fs::path file = s.dir / rank_info_file_name(s.info.rank);
  fs::path partial = file;
  partial += ".partial";
  {
    std::ofstream out(partial);
    out << rank_info_json(s.info);
    if (!out) fail("cannot write " + partial.string());
  }
  fs::rename(partial, file);
}

// Writes this rank's phase measurements (signature mode) under a temporary
// name and renames it into place, so the command never reads half a file.
// Never throws: a failure becomes the rank's error, reported on stderr.
void write_measurement(State& s, bool finalized) {
  events::RankMeasurement m;
  if (s.matcher) m = s.matcher->measurement();
  m.rank = s.info.rank;
  m.ranks = s.info.ranks;
  m.finalized = finalized;
  m.pid = getpid();
  if (finalized) m.region_s = std::max(0.0, s.finalize_start_s - s.init_end_s);
  m.error = s.info.error;
  try {
    fs::path file = s.dir / events::phase_measurement_file_name(s.info.rank);
    fs::path partial = file;
    partial += ".partial";
    {
      std::ofstream out(partial);
      out << events::measurement_json(m);
      if (!out) fail("cannot write " + partial.string());
    }
    fs::rename(partial, file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "perfcast signature run: rank %d: %s\n", s.info.rank, e.what());
  }
}

void start(State& s, const Call& call, double duration_s) {
  const char* dir = std::getenv(kTraceDirVariable);
  if (!dir || !*dir || s.started) return;
  s.started = true;
  s.dir = dir;
  PMPI_Comm_rank(MPI_COMM_WORLD, &s.info.rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &s.info.ranks);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  s.info.host = host;
  s.info.pid = getpid();
  std::error_code ignored;
  s.info.program = fs::read_symlink("/proc/self/exe", ignored).string();
  timespec resolution{};
  clock_getres(CLOCK_MONOTONIC, &resolution);
  s.info.clock_resolution_s = static_cast<double>(resolution.tv_sec) + 1e-9 * static_cast<double>(resolution.tv_nsec);
  s.comms[MPI_COMM_WORLD] = events::kCommWorld;
  s.comms[MPI_COMM_SELF] = events::kCommSelf;
  const char* phases = std::getenv(kSignaturePhasesVariable);
  try {
    fs::create_directories(s.dir);
    if (phases && *phases) {
      std::ifstream in(phases);
      std::stringstream text;
      text << in.rdbuf();
      if (!in) fail(std::string("cannot read the phase patterns ") + phases);
      events::PhasePatterns patterns = events::parse_patterns(text.str(), phases);
      if (patterns.ranks != s.info.ranks)
        fail("the signature was built from a run of " + std::to_string(patterns.ranks) + " ranks; this one has " +
             std::to_string(s.info.ranks));
      s.init_end_s = now_s();
      s.matcher = std::make_unique<PhaseMatcher>(std::move(patterns), s.info.rank, s.init_end_s);
      if (s.matcher->complete()) write_measurement(s, false);  // this rank takes part in no phase
    } else {
      events::WriterOptions options;
      const char* fold = std::getenv(kTraceFoldVariable);
      options.fold_loops = fold && std::string(fold) == "1";
      s.writer =
          std::make_unique<events::RankWriter>(s.dir / events::rank_file_name(s.info.rank), s.info.rank, options);
      Event init;
      init.kind = Kind::Init;
      init.duration_s = duration_s;
      append(s, std::move(init));
      write_info(s);  // a rank that never reaches MPI_Finalize is still known (collect.h)
    }
    active = true;
  } catch (const std::exception& e) {
    stop_with(s, call.name, e.what());
    if (phases && *phases) write_measurement(s, false);  // the command waits for every rank's file
  }
  s.init_end_s = s.last_end_s = s.last_flush_s = now_s();
  if (s.matcher) s.matcher->set_init_end(s.init_end_s);
}

// Writes what is left, closes the stream and the info file; reports an error
// on one stderr line. Runs once, after PMPI_Finalize returned and its event was
// recorded, at `finalize_end_s`.
void finish(State& s, double finalize_end_s) {
  if (!s.started || s.finished) return;
  s.finished = true;
  s.info.wall_s = finalize_end_s - s.init_end_s;
  if (s.matcher || std::getenv(kSignaturePhasesVariable)) {
    // Held receives are matched in order; their completion never came.
    for (auto& held : s.held)
      if (s.matcher && s.info.error.empty()) s.matcher->feed(held.event, held.comm_rank, held.end_s);
    s.held.clear();
    write_measurement(s, true);
    return;
  }
  try {
    if (s.info.error.empty()) {
      for (auto& held : s.held) {
        if (held.waiting) ++s.info.unresolved_receives;
        s.writer->append(held.event);
      }
      s.held.clear();
      s.writer->close();
      s.info.events = s.writer->events();
    }
  } catch (const std::exception& e) {
    stop_with(s, "MPI_Finalize", e.what());
  }
  s.info.finished = true;
  try {
    write_info(s);
  } catch (const std::exception& e) {
    if (s.info.error.empty()) s.info.error = std::string("MPI_Finalize: ") + e.what();
  }
  if (!s.info.error.empty())
    std::fprintf(stderr, "perfcast trace: rank %d: %s; this rank's stream was not written (the run went on)\n",
                 s.info.rank, s.info.error.c_str());
}

// The MPI_Comm_split that makes the same groups as a call that made `made` out
// of `parent`: color = the parent rank of the new communicator's rank 0 (the
// same on every member, different between groups), key = the rank in it.
void split_of(MPI_Comm parent, MPI_Comm made, Event& e) {
  if (made == MPI_COMM_NULL) {
    e.color = events::kUndefinedColor;
    return;
  }
  MPI_Group parent_group, made_group;
  int first = 0, first_in_parent = MPI_UNDEFINED, rank = 0;
  bool have_parent = PMPI_Comm_group(parent, &parent_group) == MPI_SUCCESS;
  bool have_made = PMPI_Comm_group(made, &made_group) == MPI_SUCCESS;
  bool ok = have_parent && have_made && PMPI_Comm_rank(made, &rank) == MPI_SUCCESS &&
            PMPI_Group_translate_ranks(made_group, 1, &first, parent_group, &first_in_parent) == MPI_SUCCESS;
  if (have_made) PMPI_Group_free(&made_group);
  if (have_parent) PMPI_Group_free(&parent_group);
  if (!ok || first_in_parent == MPI_UNDEFINED) fail("cannot tell which ranks the new communicator holds");
  e.key = rank;
  e.color = first_in_parent;
}

// The event a completed call records, with the call's duration.
void record(State& s, const Call& call, double duration_s) {
  Event e;
  e.kind = call.kind;
  e.duration_s = duration_s;
  switch (call.kind) {
    case Kind::Send:
    case Kind::Ssend:
    case Kind::Isend:
    case Kind::Issend:
      e.comm = comm_handle(s, call.comm);
      e.peer = peer_of(call.peer);
      e.tag = call.tag;
      e.bytes = bytes_of(call.count, call.type);
      if (call.kind == Kind::Isend || call.kind == Kind::Issend) {
        e.request = s.next_request++;
        s.requests[call.new_request] = e.request;
      }
      append(s, std::move(e));
      return;
    case Kind::Recv:
    case Kind::Probe: {
      e.comm = comm_handle(s, call.comm);
      e.peer = peer_of(call.peer);
      e.tag = tag_of(call.tag);
      e.bytes = bytes_of(call.count, call.type);
      if (const MPI_Status* status = status_at(call, 0); status && call.peer != MPI_PROC_NULL) {
        if (e.peer == events::kAnySource) e.peer = status->MPI_SOURCE;
        if (e.tag == events::kAnyTag) e.tag = status->MPI_TAG;
        e.bytes = received_bytes(*status, e.bytes);
      }
      append(s, std::move(e));
      return;
    }
    case Kind::Irecv: {
      e.comm = comm_handle(s, call.comm);
      e.peer = peer_of(call.peer);
      e.tag = tag_of(call.tag);
      e.bytes = bytes_of(call.count, call.type);
      e.request = s.next_request++;
      s.requests[call.new_request] = e.request;
      std::uint64_t id = e.request;
      bool waiting = call.peer != MPI_PROC_NULL;  // its completion gives the real source and size
      std::uint64_t sequence = append(s, std::move(e), waiting);
      if (waiting) s.receives[id] = sequence;
      return;
    }
    case Kind::Sendrecv: {
      e.comm = comm_handle(s, call.comm);
      e.peer = peer_of(call.peer);
      e.root = peer_of(call.source);
      e.tag = call.tag;
      e.tag2 = tag_of(call.recv_tag);
      e.bytes = bytes_of(call.send_count, call.send_type);
      e.bytes2 = bytes_of(call.recv_count, call.recv_type);
      if (const MPI_Status* status = status_at(call, 0); status && call.source != MPI_PROC_NULL) {
        if (e.root == events::kAnySource) e.root = status->MPI_SOURCE;
        if (e.tag2 == events::kAnyTag) e.tag2 = status->MPI_TAG;
        e.bytes2 = received_bytes(*status, e.bytes2);
      }
      append(s, std::move(e));
      return;
    }
    // Completions list the requests that completed (a test that found none lists
    // none), so a replay completes what the real run completed.
    case Kind::Wait:
    case Kind::Waitall:
      for (std::size_t i = 0; i < call.requests.size(); ++i) complete(s, call.requests[i], status_at(call, i), e);
      append(s, std::move(e));
      return;
    case Kind::Test:
    case Kind::Testall:
      if (call.flag)
        for (std::size_t i = 0; i < call.requests.size(); ++i) complete(s, call.requests[i], status_at(call, i), e);
      append(s, std::move(e));
      return;
    case Kind::Waitany:
      if (call.index >= 0 && static_cast<std::size_t>(call.index) < call.requests.size())
        complete(s, call.requests[static_cast<std::size_t>(call.index)], status_at(call, 0), e);
      append(s, std::move(e));
      return;
    case Kind::Waitsome:
      for (std::size_t i = 0; i < call.indices.size(); ++i) {
        int index = call.indices[i];
        if (index >= 0 && static_cast<std::size_t>(index) < call.requests.size())
          complete(s, call.requests[static_cast<std::size_t>(index)], status_at(call, i), e);
      }
      append(s, std::move(e));
      return;
    case Kind::Pcontrol:  // its level: 1 starts the timed region, 0 ends it
      e.tag = call.tag;
      append(s, std::move(e));
      return;
    default:
      break;
  }

  // Collectives: the byte counts follow the skeleton runtime's (bytes = this
  // rank's send buffer, bytes2 = its receive buffer; v-variants per rank).
  e.comm = comm_handle(s, call.comm);
  switch (call.kind) {
    case Kind::CommSplit:
      if (call.split_from_result) {
        split_of(call.comm, call.new_comm, e);
      } else {
        e.color = call.color == MPI_UNDEFINED ? events::kUndefinedColor : call.color;
        e.key = call.key;
      }
      e.new_comm = register_comm(s, call.new_comm);
      append(s, std::move(e));
      return;
    case Kind::CommDup:
    case Kind::CartCreate:
      e.new_comm = register_comm(s, call.new_comm);
      append(s, std::move(e));
      return;
    case Kind::CommFree:  // the communicator is gone: only its handle is left
      s.comms.erase(call.comm);
      append(s, std::move(e));
      return;
    default:
      break;
  }
  int size = 0, rank = 0;
  if (PMPI_Comm_size(call.comm, &size) != MPI_SUCCESS || PMPI_Comm_rank(call.comm, &rank) != MPI_SUCCESS)
    fail("cannot read the communicator's size and rank");
  bool is_root = rank == call.root;
  switch (call.kind) {
    case Kind::Barrier:
      break;
    case Kind::Bcast:
      e.root = call.root;
      e.bytes = e.bytes2 = bytes_of(call.count, call.type);
      break;
    case Kind::Reduce:
    case Kind::Allreduce:
    case Kind::Scan:
    case Kind::Exscan:
      e.root = call.kind == Kind::Reduce ? call.root : 0;
      e.bytes = bytes_of(call.count, call.type);
      e.bytes2 = call.kind != Kind::Reduce || is_root ? e.bytes : 0;
      break;
    case Kind::ReduceScatter:
      if (call.recv_counts) {
        e.counts = byte_counts(call.recv_counts, size, call.type);
      } else {
        e.counts.assign(static_cast<std::size_t>(size), bytes_of(call.recv_count, call.type));
      }
      e.bytes = sum(e.counts);
      e.bytes2 = e.counts[static_cast<std::size_t>(rank)];
      break;
    case Kind::Gather:
    case Kind::Gatherv: {
      e.root = call.root;
      bool in_place = is_root && call.send_in_place;
      if (in_place)
        e.bytes = call.kind == Kind::Gather ? bytes_of(call.recv_count, call.recv_type)
                                            : byte_counts(call.recv_counts, size, call.recv_type)[call.root];
      else
        e.bytes = bytes_of(call.send_count, call.send_type);
      if (is_root) {
        if (call.kind == Kind::Gatherv) {
          e.counts2 = byte_counts(call.recv_counts, size, call.recv_type);
          e.bytes2 = sum(e.counts2);
        } else {
          e.bytes2 = bytes_of(call.recv_count, call.recv_type) * static_cast<std::uint64_t>(size);
        }
      }
      break;
    }
    case Kind::Scatter:
    case Kind::Scatterv: {
      e.root = call.root;
      bool in_place = is_root && call.recv_in_place;
      if (is_root) {
        if (call.kind == Kind::Scatterv) {
          e.counts = byte_counts(call.send_counts, size, call.send_type);
          e.bytes = sum(e.counts);
        } else {
          e.bytes = bytes_of(call.send_count, call.send_type) * static_cast<std::uint64_t>(size);
        }
      }
      e.bytes2 = in_place ? 0 : bytes_of(call.recv_count, call.recv_type);
      break;
    }
    case Kind::Allgather:
    case Kind::Allgatherv: {
      int mine = call.recv_counts ? call.recv_counts[rank] : call.recv_count;
      e.bytes = call.send_in_place ? bytes_of(mine, call.recv_type) : bytes_of(call.send_count, call.send_type);
      if (call.kind == Kind::Allgatherv) {
        e.counts2 = byte_counts(call.recv_counts, size, call.recv_type);
        e.bytes2 = sum(e.counts2);
      } else {
        e.bytes2 = bytes_of(call.recv_count, call.recv_type) * static_cast<std::uint64_t>(size);
      }
      break;
    }
    case Kind::Alltoall:
    case Kind::Alltoallv:
      if (call.kind == Kind::Alltoallv) {
        e.counts = call.send_in_place ? byte_counts(call.recv_counts, size, call.recv_type)
                                      : byte_counts(call.send_counts, size, call.send_type);
        e.counts2 = byte_counts(call.recv_counts, size, call.recv_type);
        e.bytes = sum(e.counts);
        e.bytes2 = sum(e.counts2);
      } else {
        e.bytes = (call.send_in_place ? bytes_of(call.recv_count, call.recv_type)
                                      : bytes_of(call.send_count, call.send_type)) *
                  static_cast<std::uint64_t>(size);
        e.bytes2 = bytes_of(call.recv_count, call.recv_type) * static_cast<std::uint64_t>(size);
      }
      break;
    default:
      fail("no event for this call");
  }
  append(s, std::move(e));
}

}  // namespace

bool recorder_active() { return active.load(std::memory_order_relaxed); }

void Call::begin() {
  Instant start = now();
  start_s = start.s;
  start_ns = start.ns;
  if (!recorder_active()) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!recorder_active()) return;
  try {
    double gap = start_s - s.last_end_s;
    if (gap > 0 && !s.matcher) {  // phases are timed from call returns: no bursts needed
      s.info.compute_s += gap;
      Event compute;
      compute.seconds = gap;
      append(s, std::move(compute));
    }
  } catch (const std::exception& e) {
    stop_with(s, name, e.what());
  } catch (...) {
    stop_with(s, name, "unknown error");
  }
}

void Call::end(int result) {
  Instant end = now();
  double end_s = end.s;
  // Entry to return, waits included; the tracer's own work before and after
  // is in neither this nor the compute gaps (RankInfo::tracer_s).
  double duration_s = events::seconds_of_ns(end.ns >= start_ns ? end.ns - start_ns : 0);
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (kind == Kind::Init) {
    if (result == MPI_SUCCESS) start(s, *this, duration_s);
    return;
  }
  double done_s = end_s;
  if (recorder_active()) {
    s.info.mpi_s += end_s - start_s;
    if (kind == Kind::Finalize) s.info.finalize_s = end_s - start_s;
    try {
      if (kind == Kind::Finalize) {
        Event finalize;
        finalize.kind = Kind::Finalize;
        finalize.duration_s = duration_s;
        append(s, std::move(finalize));
      } else if (result == MPI_SUCCESS) {
        s.call_end_s = end_s;
        s.call_comm_rank = 0;
        if (s.matcher && events::is_point_to_point(kind) && comm != MPI_COMM_NULL)
          PMPI_Comm_rank(comm, &s.call_comm_rank);
        record(s, *this, duration_s);
      }
    } catch (const std::exception& e) {
      stop_with(s, name, e.what());
    } catch (...) {
      stop_with(s, name, "unknown error");
    }
    if (s.writer && end_s - s.last_flush_s >= kFlushIntervalS && recorder_active()) {
      try {
        s.writer->flush();
      } catch (const std::exception& e) {
        stop_with(s, name, e.what());
      }
      s.last_flush_s = end_s;
    }
    double recorded_s = now_s();
    s.info.tracer_s += recorded_s - end_s;
    s.last_end_s = done_s = recorded_s;
  }
  if (kind == Kind::Finalize) {
    active = false;
    s.finalize_start_s = start_s;
    finish(s, done_s);
  }
}

}  // namespace perfcast::trace
