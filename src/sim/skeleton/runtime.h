// Internals of the live skeleton runtime shared by live_job.cpp (fibers, data
// movement) and the MPI_*/LMPI_*/BSIM_* entry points (mpi_entry.h).
#pragma once

#include <boost/context/detail/fcontext.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "events/event.h"
#include "events/source.h"
#include "modelsim/model_work.h"
#include "sim/skeleton/datatypes.h"
#include "sim/skeleton/live_job.h"
#include "sim/skeleton/stack_region.h"

namespace perfcast::sim::skeleton {

namespace ctx = boost::context::detail;

// A communicator created by some rank, shared by all the ranks that created it
// together when they can (split builds one per color); world and self are implicit.
struct Comm {
  int size = 0;
  std::shared_ptr<const std::vector<int>> world_ranks;  // null: ranks 0..size-1 of world
  std::vector<int> dims, periods;                       // Cartesian communicators
  int world_rank_of(int r) const { return world_ranks ? (*world_ranks)[static_cast<std::size_t>(r)] : r; }
  int rank_of_world(int w) const;
};

class Rank;

// What only data-moving (MPI_*) operations need: buffers, datatypes, roots,
// split results. LMPI_* calls, a dozen per stencil rank in flight, skip it.
struct LiveData {
  std::vector<std::byte> in;            // packed input
  std::vector<std::size_t> in_offsets;  // size P+1 when piece i of `in` goes to rank i
  bool in_place = false;                // a gather root's own piece is already in place

  void* out = nullptr;  // user buffer receiving data (MPI_* only)
  Datatype out_type = 0;
  std::size_t out_capacity = 0;            // packed bytes the buffer takes (single piece)
  std::vector<std::ptrdiff_t> out_displs;  // per source rank, bytes into `out` (gather-like)
  std::vector<std::size_t> out_caps;       // per source rank, packed bytes

  Datatype reduce_type = 0;
  Op op = 0;
  int root = 0;
  int color = 0, key = 0;                // comm split
  std::shared_ptr<const Comm> new_comm;  // comm split result
  int new_rank = -1;
};

// The live data of one MPI_* operation (Event::live), or the completion record of
// a nonblocking LMPI_* one. Inputs are packed when the call is made; outputs are
// written when the engine calls deliver/collective. Small (72 bytes):
// the data of MPI_* calls is in `data`, allocated by d() on first use.
struct LiveOp {
  Rank* rank = nullptr;
  const char* call = "";
  std::uint64_t request = 0;
  std::unique_ptr<LiveData> data;  // null for LMPI_* calls
  int comm = 0;
  int comm_size = 0;  // collectives: members of the communicator
  events::Kind kind = events::Kind::Compute;
  bool has_input = false;  // false for LMPI_* and for receivers; data is set when true

  // Status of a receive or probe; set to the request's own values first.
  int source = -1, tag = -1;
  std::size_t received_bytes = 0;
  bool send_matched = false, recv_matched = false;

  bool rank_done = false;                   // the rank has gone past the call (or its completion)
  int engine_refs = 0;                      // deliver/collective callbacks still expected

  LiveData& d() {
    if (!data) data = std::make_unique<LiveData>();
    return *data;
  }
  void* out() const { return data ? data->out : nullptr; }
};
static_assert(sizeof(LiveOp) <= 72, "a stencil rank has a dozen LiveOps in flight: keep them small");

struct CommRef {
  const Comm* comm = nullptr;  // null for world and self
  int rank = 0, size = 0;
  bool self = false;
};

struct Job;

class Rank final : public events::RankSource {
 public:
  Rank(Job* job, int world_rank) : job_(job), world_rank_(world_rank) {}
  ~Rank() override;
  bool next(events::Event& out, double now_s) override;
  void prefetch() const override;

  // --- used by the MPI entry points, inside the rank's fiber ---
  int world_rank() const { return world_rank_; }
  int world_size() const;
  double now_s() const { return now_s_; }
  void add_time(double s) {
    pending_s_ += s * time_scale_;
    has_time_ = true;
  }
  void add_flops(double f) { pending_flops_ += f * time_scale_; }
  void add_bytes(double b) { pending_bytes_ += b * time_scale_; }
  // Work of a program model (modelsim::ModelWork's id), times the time scale.
  void add_model_work(int work);
  double time_scale_ = 1, size_scale_ = 1;
  bool initialized_ = false, finalized_ = false;

  // Emits pending compute, then starts an event of `kind` in the engine's buffer.
  events::Event& begin(events::Kind kind);
  // Hands the event to the engine; returns when the engine asks for the next one.
  void emit();
  void flush_compute();
  // Ends this rank's simulation with "rank R: call: message"; never returns.
  [[noreturn]] void fail(const char* call, const std::string& message);
  [[noreturn]] void finish(int exit_code);

  // Communicator lookup; fails the rank on a bad handle.
  CommRef comm(int handle, const char* call);
  int add_comm(std::shared_ptr<const Comm> comm, int my_rank);  // returns the new handle
  void free_comm(int handle, const char* call);
  int next_comm_handle() const { return 2 + static_cast<int>(comms_.size()); }

  LiveOp* new_op(const char* call, events::Kind kind, int comm);
  void done_with(LiveOp* op);  // the rank has gone past op
  std::uint64_t add_request(LiveOp* op);
  LiveOp* find_request(std::uint64_t id, const char* call);
  void complete_request(LiveOp* op);

  // Set by the engine-side callbacks (not inside the fiber): reported at the next resume.
  void set_pending_error(const std::string& call, const std::string& message);

  void run();  // fiber body
  ctx::fcontext_t engine_ctx_ = nullptr;

 private:
  enum class State : std::uint8_t { NotStarted, HasEvent, Done, Failed };
  void yield_to_engine(State s);

  Job* job_;
  int world_rank_;
  State state_ = State::NotStarted;
  ctx::fcontext_t ctx_ = nullptr;
  events::Event* out_ = nullptr;
  double now_s_ = 0;
  double pending_s_ = 0, pending_flops_ = 0, pending_bytes_ = 0;
  bool has_time_ = false;
  std::vector<std::pair<int, double>> pending_work_;  // model work and multiplier (ModelWork::Items)
  std::uint64_t next_request_ = 1;
  int exit_code_ = -1;
  std::vector<LiveOp*> requests_;  // active nonblocking requests (few: linear search)
  LiveOp* inflight_ = nullptr;     // the op of the call being made, until the rank is past it
  struct Slot {
    std::shared_ptr<const Comm> comm;
    int rank = 0;
  };
  std::vector<Slot> comms_;  // handles 2, 3, ...; freed slots keep their place
  std::string error_;
  const char* last_call_ = "MPI_Init";

  friend class LiveJobSource;
  friend struct Job;
  friend modelsim::ModelWork& model_work_of(Rank& rank);
};

// The rank whose fiber is running on this thread (null outside fibers).
Rank* current_rank();

// The model work of the job `rank` belongs to (BSIM_Model_load, BSIM_Add_model_work).
modelsim::ModelWork& model_work_of(Rank& rank);

}  // namespace perfcast::sim::skeleton
