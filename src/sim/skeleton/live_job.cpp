#include <dlfcn.h>
#include <fmt/format.h>
#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>

#include "sim/skeleton/runtime.h"
#include "support/error.h"

namespace perfcast::sim::skeleton {

using events::Event;
using events::Kind;

namespace {
thread_local Rank* tl_current = nullptr;

// Below this many free bytes at a switch an unguarded stack is declared exhausted:
// the next call could already write into the neighbouring rank's stack.
constexpr std::size_t kStackMarginBytes = 1024;
}  // namespace

Rank* current_rank() { return tl_current; }

struct Job {
  SkeletonMain main = nullptr;
  std::vector<std::string> args;
  int np = 0;
  LiveOptions options;
  std::unique_ptr<StackRegion> stacks;
  void* dl_handle = nullptr;
  std::vector<std::string> warnings;
  std::vector<int> exit_codes;
  std::vector<Rank*> ranks;  // by world rank; null once the engine drops one
  // Ops live in chunks the job owns, recycled through a free list: freeing one
  // touches nothing but itself (a list of live ops linked each to its
  // neighbours, other ranks' cold ops, cost two cache misses per op), and the
  // chunks go with the job, whatever ops are still live then.
  // Program models the ranks' BSIM_Add_model_work calls read, and the
  // engine's pricer of the bursts they make.
  modelsim::ModelWork model_work;
  std::vector<std::unique_ptr<LiveOp[]>> op_chunks;
  std::vector<LiveOp*> free_ops;
  static constexpr std::size_t kOpsPerChunk = 256;

  ~Job() {
    op_chunks.clear();  // before the skeleton's code goes
    if (dl_handle) dlclose(dl_handle);
  }
  LiveOp* allocate() {
    if (free_ops.empty()) {
      op_chunks.push_back(std::make_unique<LiveOp[]>(kOpsPerChunk));
      LiveOp* chunk = op_chunks.back().get();
      for (std::size_t i = kOpsPerChunk; i-- > 0;) free_ops.push_back(&chunk[i]);  // handed out in address order
    }
    LiveOp* op = free_ops.back();
    free_ops.pop_back();
    return op;
  }
  void destroy(LiveOp* op) {
    *op = LiveOp{};
    free_ops.push_back(op);
  }
  // An op is freed once the rank has gone past it and the engine will not pass it back.
  void maybe_free(LiveOp* op) {
    if (op->rank_done && op->engine_refs <= 0) destroy(op);
  }
};

int Comm::rank_of_world(int w) const {
  if (!world_ranks) return w < size ? w : -1;
  auto end = world_ranks->begin() + size;
  auto it = std::find(world_ranks->begin(), end, w);
  return it == end ? -1 : static_cast<int>(it - world_ranks->begin());
}

// ---------------------------------------------------------------- fibers

namespace {
void fiber_entry(ctx::transfer_t t) {
  auto* rank = static_cast<Rank*>(t.data);
  rank->engine_ctx_ = t.fctx;
  rank->run();
}

// A skeleton that faults or aborts takes the whole simulator with it (its ranks
// are fibers of this process): say which rank, which signal and where, instead
// of the shell's bare "Segmentation fault", then exit 1. A guard page hit means
// the rank overflowed its stack. The handlers run on an alternate signal stack
// (the rank's may be full) and write with write(2) only, but for dladdr, which
// names the function (the process is ending anyway).
const StackRegion* g_guarded_region = nullptr;
std::size_t g_stack_kib = 0;
const LiveJobSource* g_handling_job = nullptr;
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
struct sigaction g_previous[std::size(kFatalSignals)];

void write_number(char*& p, std::size_t n) {
  char digits[24];
  int k = 0;
  do digits[k++] = static_cast<char>('0' + n % 10), n /= 10;
  while (n);
  while (k) *p++ = digits[--k];
}

void write_hex(char*& p, std::uintptr_t n) {
  char digits[2 * sizeof n];
  int k = 0;
  do digits[k++] = "0123456789abcdef"[n % 16], n /= 16;
  while (n);
  while (k) *p++ = digits[--k];
}

const char* signal_text(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic error, e.g. an integer division by zero)";
    case SIGILL: return "SIGILL (illegal instruction)";
    case SIGABRT: return "SIGABRT (abort() or a failed assert)";
    default: return "a fatal signal";
  }
}

void put(char*& p, const char* end, const char* s) {
  while (*s && p < end) *p++ = *s++;
}

void on_fatal_signal(int sig, siginfo_t* info, void* uctx) {
  char msg[768];
  char* p = msg;
  const char* end = msg + sizeof msg - 2;
  std::size_t index = 0;
  if (sig == SIGSEGV && g_guarded_region && g_guarded_region->in_guard(info->si_addr, &index)) {
    put(p, end, "perfcast: error: rank ");
    write_number(p, index);
    put(p, end, " overflowed its ");
    write_number(p, g_stack_kib);
    put(p, end, " KiB stack (large local arrays or deep recursion in the skeleton)\nperfcast: hint: rerun with a "
                "larger --stack-size\n");
  } else if (Rank* rank = current_rank()) {
    put(p, end, "perfcast: error: rank ");
    write_number(p, static_cast<std::size_t>(rank->world_rank()));
    put(p, end, " of the skeleton was stopped by ");
    put(p, end, signal_text(sig));
#if defined(__x86_64__)
    auto* context = static_cast<ucontext_t*>(uctx);
    void* pc = reinterpret_cast<void*>(context->uc_mcontext.gregs[REG_RIP]);
    Dl_info where{};
    if (dladdr(pc, &where) && where.dli_sname) {
      put(p, end, " in ");
      put(p, end, where.dli_sname);
      if (where.dli_fname) {
        put(p, end, " (");
        put(p, end, where.dli_fname);
        put(p, end, ")");
      }
    } else if (where.dli_fname && where.dli_fbase) {
      // No dynamic symbol there: a static function, or a copy the compiler
      // made (clang 19 specialises a call with a constant argument into a
      // local "f.specialized.1"). The object and offset are what
      // `addr2line -f -e OBJECT OFFSET` names.
      put(p, end, " at ");
      put(p, end, where.dli_fname);
      put(p, end, "+0x");
      if (end - p > static_cast<std::ptrdiff_t>(2 * sizeof(std::uintptr_t)))
        write_hex(p, reinterpret_cast<std::uintptr_t>(pc) - reinterpret_cast<std::uintptr_t>(where.dli_fbase));
    }
#else
    (void)uctx;
#endif
    put(p, end, "\nperfcast: hint: the fault is in the skeleton's own code; run it under a debugger with --np 1 "
                "to see where\n");
  } else {
    // Not inside a rank: the simulator's own fault. Leave it to the previous disposition.
    for (std::size_t k = 0; k < std::size(kFatalSignals); ++k)
      if (kFatalSignals[k] == sig) sigaction(sig, &g_previous[k], nullptr);
    return;  // the faulting instruction runs again (or abort re-raises) under the old handler
  }
  if (write(2, msg, static_cast<std::size_t>(p - msg)) < 0) {
  }
  _exit(1);
}

void install_fatal_handlers(const LiveJobSource* job, const StackRegion* region, std::size_t stack_bytes) {
  if (g_handling_job) return;  // one job at a time owns the handlers
  stack_t current{};
  if (sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
    static thread_local std::vector<char> alt(64 * 1024);
    stack_t ss{};
    ss.ss_sp = alt.data();
    ss.ss_size = alt.size();
    sigaltstack(&ss, nullptr);
  }
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (std::size_t k = 0; k < std::size(kFatalSignals); ++k) sigaction(kFatalSignals[k], &sa, &g_previous[k]);
  g_handling_job = job;
  g_guarded_region = region->guarded() ? region : nullptr;
  g_stack_kib = stack_bytes / 1024;
}

void remove_fatal_handlers(const LiveJobSource* job) {
  if (g_handling_job != job) return;
  for (std::size_t k = 0; k < std::size(kFatalSignals); ++k) sigaction(kFatalSignals[k], &g_previous[k], nullptr);
  g_handling_job = nullptr;
  g_guarded_region = nullptr;
}
}  // namespace

Rank::~Rank() {
  // The engine dropped this rank: its unfinished ops outlive it until the engine
  // is done with them. (Finished ops never look at their rank again.)
  if (inflight_ && std::find(requests_.begin(), requests_.end(), inflight_) == requests_.end()) {
    requests_.push_back(inflight_);
  }
  for (LiveOp* op : requests_) {
    op->rank = nullptr;
    op->rank_done = true;
    job_->maybe_free(op);
  }
  job_->ranks[static_cast<std::size_t>(world_rank_)] = nullptr;
}

int Rank::world_size() const { return job_->np; }

bool Rank::next(Event& out, double now_s) {
  if (state_ == State::Done) return false;
  if (state_ == State::Failed) throw UserError(error_);
  if (!error_.empty()) {
    state_ = State::Failed;
    throw UserError(error_);
  }
  auto index = static_cast<std::size_t>(world_rank_);
  if (state_ == State::NotStarted) {
    job_->stacks->commit(index);
    ctx_ = ctx::make_fcontext(job_->stacks->top(index), job_->stacks->usable_bytes(), &fiber_entry);
  }
  out_ = &out;
  now_s_ = now_s;
  Rank* saved = tl_current;
  tl_current = this;
  ctx::transfer_t t = ctx::jump_fcontext(ctx_, this);
  tl_current = saved;
  ctx_ = t.fctx;
  if (state_ == State::HasEvent) {
    auto free_bytes = static_cast<std::size_t>(static_cast<char*>(ctx_) - job_->stacks->usable_low(index));
    if (free_bytes < kStackMarginBytes) {
      state_ = State::Failed;
      error_ = fmt::format("rank {}: {}: the rank's {} KiB stack is exhausted ({} bytes left)", world_rank_, last_call_,
                           job_->stacks->usable_bytes() / 1024, free_bytes);
      throw UserError(error_, {}, "rerun with a larger --stack-size");
    }
    return true;
  }
  // A finished rank keeps its few touched stack pages: giving them back one rank
  // at a time (madvise) costs a TLB shootdown each, and the region goes at once.
  if (state_ == State::Done) {
    job_->exit_codes[index] = exit_code_;
    return false;
  }
  throw UserError(error_);
}

// The fiber's saved context and the frames it returns through (a few hundred
// bytes above it) are cold: at 32 768 ranks, one page and several cache misses
// per switch that this overlaps with the engine's work on the rank before.
void Rank::prefetch() const {
  auto* sp = static_cast<const char*>(ctx_);
  if (!sp) return;
  for (int line = 0; line < 8; ++line) __builtin_prefetch(sp + 64 * line);
}

void Rank::yield_to_engine(State s) {
  state_ = s;
  ctx::transfer_t t = ctx::jump_fcontext(engine_ctx_, nullptr);
  engine_ctx_ = t.fctx;
}

void Rank::run() {
  // argv lives on this rank's stack: main may modify it, and ranks must not see each other's.
  const auto& args = job_->args;
  std::size_t chars = 0;
  for (const auto& a : args) chars += a.size() + 1;
  auto** argv = static_cast<char**>(alloca((args.size() + 1) * sizeof(char*)));
  auto* text = static_cast<char*>(alloca(chars + 1));
  for (std::size_t i = 0; i < args.size(); ++i) {
    argv[i] = text;
    std::memcpy(text, args[i].c_str(), args[i].size() + 1);
    text += args[i].size() + 1;
  }
  argv[args.size()] = nullptr;

  int code = 0;
  std::string escaped;
  try {
    code = job_->main(static_cast<int>(args.size()), argv);
  } catch (const std::exception& e) {
    escaped = e.what();
  } catch (...) {
    escaped = "(not a std::exception)";
  }
  // Leave the handler before switching away: a fiber never suspends inside a catch.
  if (!escaped.empty()) fail("main", "an exception escaped main: " + escaped);
  finish(code);
}

void Rank::finish(int exit_code) {
  flush_compute();
  exit_code_ = exit_code;
  yield_to_engine(State::Done);
  std::abort();  // a finished rank is never resumed
}

void Rank::fail(const char* call, const std::string& message) {
  error_ = fmt::format("rank {}: {}: {}", world_rank_, call, message);
  yield_to_engine(State::Failed);
  std::abort();  // a failed rank is never resumed
}

void Rank::set_pending_error(const std::string& call, const std::string& message) {
  if (error_.empty()) error_ = fmt::format("rank {}: {}: {}", world_rank_, call, message);
}

// ---------------------------------------------------------------- events

events::Event& Rank::begin(Kind kind) {
  flush_compute();
  Event& e = *out_;
  // Reset field by field: the engine's vectors keep their capacity.
  e.kind = kind;
  e.seconds = -1;
  e.flops = 0;
  e.bytes_moved = 0;
  e.comm = events::kCommWorld;
  e.peer = events::kProcNull;
  e.root = 0;
  e.tag = 0;
  e.tag2 = 0;
  e.bytes = 0;
  e.bytes2 = 0;
  e.request = 0;
  e.requests.clear();
  e.counts.clear();
  e.counts2.clear();
  e.color = 0;
  e.key = 0;
  e.new_comm = -1;
  e.site = 0;
  e.live = nullptr;
  return e;
}

void Rank::emit() { yield_to_engine(State::HasEvent); }

void Rank::flush_compute() {
  if (has_time_ && pending_s_ > 0) {
    double s = pending_s_;
    pending_s_ = 0;
    has_time_ = false;
    Event& e = begin(Kind::Compute);
    e.seconds = s;
    emit();
  }
  has_time_ = false;
  if (pending_flops_ > 0 || pending_bytes_ > 0) {
    double f = pending_flops_, b = pending_bytes_;
    pending_flops_ = pending_bytes_ = 0;
    Event& e = begin(Kind::Compute);
    e.flops = f;
    e.bytes_moved = b;
    emit();
  }
  if (!pending_work_.empty()) {
    // The engine prices the work when the burst starts (sim::WorkPricer).
    const void* burst = job_->model_work.burst(pending_work_);
    pending_work_.clear();
    Event& e = begin(Kind::Compute);
    e.live = const_cast<void*>(burst);
    emit();
  }
}

void Rank::add_model_work(int work) {
  if (time_scale_ == 0) return;
  for (auto& [id, multiplier] : pending_work_)
    if (id == work) {
      multiplier += time_scale_;
      return;
    }
  pending_work_.emplace_back(work, time_scale_);
}

modelsim::ModelWork& model_work_of(Rank& rank) { return rank.job_->model_work; }

CommRef Rank::comm(int handle, const char* call) {
  last_call_ = call;
  if (handle == events::kCommWorld) return {nullptr, world_rank_, job_->np, false};
  if (handle == events::kCommSelf) return {nullptr, 0, 1, true};
  auto i = static_cast<std::size_t>(handle - 2);
  if (handle < 2 || i >= comms_.size() || !comms_[i].comm) {
    fail(call, handle == -1 ? "MPI_COMM_NULL is not a communicator"
                            : fmt::format("communicator {} is not one of this rank's", handle));
  }
  return {comms_[i].comm.get(), comms_[i].rank, comms_[i].comm->size, false};
}

int Rank::add_comm(std::shared_ptr<const Comm> c, int my_rank) {
  comms_.push_back({std::move(c), my_rank});
  return 1 + static_cast<int>(comms_.size());
}

void Rank::free_comm(int handle, const char* call) {
  comm(handle, call);
  if (handle < 2) fail(call, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
  comms_[static_cast<std::size_t>(handle - 2)].comm.reset();
}

LiveOp* Rank::new_op(const char* call, Kind kind, int comm) {
  LiveOp* op = job_->allocate();
  op->rank = this;
  op->call = call;
  op->kind = kind;
  op->comm = comm;
  inflight_ = op;
  return op;
}

void Rank::done_with(LiveOp* op) {
  if (op == inflight_) inflight_ = nullptr;
  op->rank_done = true;
  job_->maybe_free(op);
}

std::uint64_t Rank::add_request(LiveOp* op) {
  op->request = next_request_++;
  requests_.push_back(op);
  return op->request;
}

LiveOp* Rank::find_request(std::uint64_t id, const char* call) {
  for (LiveOp* op : requests_) {
    if (op->request == id) return op;
  }
  fail(call, fmt::format("request {} is not an active request of this rank", id));
}

void Rank::complete_request(LiveOp* op) {
  auto it = std::find(requests_.begin(), requests_.end(), op);
  if (it != requests_.end()) {
    *it = requests_.back();
    requests_.pop_back();
  }
  done_with(op);
}

// ---------------------------------------------------------------- the job

LiveJobSource::LiveJobSource(SkeletonMain main, std::vector<std::string> args, int np, LiveOptions options)
    : job_(std::make_unique<Job>()) {
  if (np < 1) throw UserError(fmt::format("cannot run a skeleton on {} ranks", np), {}, "give --np 1 or more");
  if (args.empty()) args.push_back("skeleton");
  job_->main = main;
  job_->args = std::move(args);
  job_->np = np;
  job_->options = options;
  job_->stacks = std::make_unique<StackRegion>(static_cast<std::size_t>(np), options.stack_bytes, options.guard);
  job_->exit_codes.assign(static_cast<std::size_t>(np), -1);
  job_->ranks.assign(static_cast<std::size_t>(np), nullptr);
  install_fatal_handlers(this, job_->stacks.get(), job_->stacks->usable_bytes());
}

LiveJobSource::LiveJobSource(const std::string& path, std::vector<std::string> args, int np, LiveOptions options)
    : job_(std::make_unique<Job>()) {
  if (np < 1) throw UserError(fmt::format("cannot run a skeleton on {} ranks", np), {}, "give --np 1 or more");
  if (access(path.c_str(), R_OK) != 0) {
    throw UserError(fmt::format("cannot read skeleton '{}': {}", path, std::strerror(errno)));
  }
  // A path without a slash would be searched in the library path, not the current directory.
  std::string load_path = path.find('/') == std::string::npos ? "./" + path : path;
  dlerror();
  job_->dl_handle = dlopen(load_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!job_->dl_handle) {
    std::string why = dlerror();
    std::string hint = "build it with `perfcast cc skel.c -o skel` (docs/skeletons.md)";
    if (why.find("position-independent executable") != std::string::npos) {
      why = "it is an executable, not a skeleton shared object";
    } else if (why.find("ompi_") != std::string::npos || why.find("MPIR_") != std::string::npos ||
               why.find("PMPI_") != std::string::npos) {
      hint = "it was compiled against a system MPI's mpi.h; " + hint;
    }
    throw UserError(fmt::format("cannot load skeleton '{}': {}", path, why), {}, hint);
  }
  job_->warnings = shared_writable_globals(path);
  job_->main = reinterpret_cast<SkeletonMain>(dlsym(job_->dl_handle, "main"));
  if (!job_->main) {
    throw UserError(fmt::format("skeleton '{}' exports no main", path), {},
                    "build it with `perfcast cc`, and do not give main hidden visibility");
  }
  if (args.empty()) args.push_back(path);
  job_->args = std::move(args);
  job_->np = np;
  job_->options = options;
  job_->stacks = std::make_unique<StackRegion>(static_cast<std::size_t>(np), options.stack_bytes, options.guard);
  job_->exit_codes.assign(static_cast<std::size_t>(np), -1);
  job_->ranks.assign(static_cast<std::size_t>(np), nullptr);
  install_fatal_handlers(this, job_->stacks.get(), job_->stacks->usable_bytes());
}

LiveJobSource::~LiveJobSource() { remove_fatal_handlers(this); }

int LiveJobSource::size() const { return job_->np; }
const std::vector<std::string>& LiveJobSource::warnings() const { return job_->warnings; }
const sim::WorkPricer* LiveJobSource::work_pricer() const { return &job_->model_work; }
const StackRegion& LiveJobSource::stacks() const { return *job_->stacks; }
int LiveJobSource::exit_code(int rank) const { return job_->exit_codes.at(static_cast<std::size_t>(rank)); }

std::unique_ptr<events::RankSource> LiveJobSource::open_rank(int rank) {
  if (rank < 0 || rank >= job_->np) throw UserError(fmt::format("no rank {} in a job of {}", rank, job_->np));
  auto source = std::make_unique<Rank>(job_.get(), rank);
  job_->ranks[static_cast<std::size_t>(rank)] = source.get();
  return source;
}

std::unique_ptr<LiveJobSource> open_live_skeleton(const std::string& path, const std::vector<std::string>& args, int np,
                                                  const LiveOptions& options) {
  std::vector<std::string> argv{path};
  argv.insert(argv.end(), args.begin(), args.end());
  return std::make_unique<LiveJobSource>(path, std::move(argv), np, options);
}

// ---------------------------------------------------------------- data movement

namespace {
void report(LiveOp* op, const std::string& message) {
  if (op && op->rank && !op->rank_done) op->rank->set_pending_error(op->call, message);
}

// Writes packed bytes into op's buffer, into the piece for `slot` when it has pieces.
void put(LiveOp* op, std::size_t slot, const std::byte* data, std::size_t bytes) {
  if (!op || !op->out()) return;
  const LiveData& d = *op->data;
  std::ptrdiff_t displ = 0;
  std::size_t capacity = d.out_capacity;
  if (!d.out_displs.empty()) {
    displ = d.out_displs[slot];
    capacity = d.out_caps[slot];
  }
  if (bytes > capacity) {
    report(op, fmt::format("message truncated: {} bytes arrived for a buffer of {} bytes", bytes, capacity));
    bytes = capacity;
  }
  unpack(data, bytes, static_cast<std::byte*>(d.out) + displ, d.out_type);
}

// Piece i of the input of op, which has one (has_input).
std::pair<const std::byte*, std::size_t> piece(const LiveOp* op, std::size_t i) {
  const LiveData& d = *op->data;
  if (d.in_offsets.empty()) return {d.in.data(), d.in.size()};
  return {d.in.data() + d.in_offsets[i], d.in_offsets[i + 1] - d.in_offsets[i]};
}

const std::vector<std::byte>& input(const LiveOp* op) { return op->data->in; }

// The input is delivered: its memory goes now, not when the op is recycled.
void drop_input(LiveOp* op) {
  if (op->data) std::vector<std::byte>().swap(op->data->in);
}
}  // namespace

void LiveJobSource::deliver(const Event& send, int send_world_rank, Event& received, int) {
  auto* s = static_cast<LiveOp*>(send.live);
  auto* r = static_cast<LiveOp*>(received.live);
  std::size_t bytes = s && s->has_input ? input(s).size() : send.bytes;
  if (r) {
    // The engine writes the matched source and tag into `received` (peer, tag),
    // whatever the kind, Sendrecv included.
    int source = received.peer;
    if (source < 0 && r->rank) {
      // The engine left the wildcard: find the sender's rank in the receive's communicator.
      if (r->comm == events::kCommWorld) {
        source = send_world_rank;
      } else if (r->comm == events::kCommSelf) {
        source = 0;
      } else {
        auto i = static_cast<std::size_t>(r->comm - 2);
        if (i < r->rank->comms_.size() && r->rank->comms_[i].comm) {
          source = r->rank->comms_[i].comm->rank_of_world(send_world_rank);
        }
      }
    }
    r->source = source;
    r->tag = received.tag >= 0 ? received.tag : send.tag;
    r->received_bytes = bytes;
    if (received.kind == Kind::Probe) {
      r->recv_matched = true;
      return;  // a probe matches without consuming the message
    }
    if (s && s->has_input) put(r, 0, input(s).data(), input(s).size());
    r->recv_matched = true;
  }
  if (s) {
    // A receive completes only after its match, so only the send side holds a reference.
    s->send_matched = true;
    drop_input(s);
    --s->engine_refs;
    job_->maybe_free(s);
  }
}

void LiveJobSource::collective(const std::vector<Event*>& members, const std::vector<int>& world_ranks) {
  if (members.empty()) return;
  const std::size_t n = members.size();
  // members[i] is the event member i entered the collective with (the engine
  // keeps it until this call), so its op is the one attached to it; LMPI_* and
  // barrier-like calls attach none and move nothing.
  std::vector<LiveOp*> ops(n, nullptr);
  const Kind kind = members[0]->kind;
  for (std::size_t i = 0; i < n; ++i) {
    auto* op = static_cast<LiveOp*>(members[i]->live);
    if (op && op->kind == kind) ops[i] = op;
  }
  auto all_inputs = [&] { return std::all_of(ops.begin(), ops.end(), [](LiveOp* op) { return op && op->has_input; }); };

  switch (kind) {
    case Kind::Bcast: {
      auto root = static_cast<std::size_t>(members[0]->root);
      if (root < n && ops[root] && ops[root]->has_input) {
        for (std::size_t i = 0; i < n; ++i) {
          if (i != root) put(ops[i], 0, input(ops[root]).data(), input(ops[root]).size());
        }
      }
      break;
    }
    case Kind::Reduce:
    case Kind::Allreduce:
    case Kind::Scan:
    case Kind::Exscan:
    case Kind::ReduceScatter: {
      if (!all_inputs()) break;
      // Prefix results in rank order: acc_i = acc_{i-1} op x_i (MPI's order for every op).
      const LiveOp* first = ops[0];
      std::vector<std::byte> acc = input(first), prev;
      bool ok = true;
      auto deliver_prefix = [&](std::size_t i) {
        if (kind == Kind::Scan) put(ops[i], 0, acc.data(), acc.size());
        if (kind == Kind::Exscan && i > 0) put(ops[i], 0, prev.data(), prev.size());
      };
      deliver_prefix(0);
      for (std::size_t i = 1; i < n && ok; ++i) {
        if (input(ops[i]).size() != acc.size()) {
          for (LiveOp* op : ops) report(op, "ranks passed different counts to the same reduction");
          ok = false;
          break;
        }
        std::vector<std::byte> x = input(ops[i]);
        ok = reduce(first->data->op, first->data->reduce_type, acc.data(), x.data(), x.size());  // x = acc op x_i
        prev.swap(acc);
        acc.swap(x);
        deliver_prefix(i);
      }
      if (!ok) {
        for (LiveOp* op : ops) {
          report(op,
                 fmt::format("reduction operation {} does not apply to {}", first->data->op,
                             type_name(first->data->reduce_type)));
        }
        break;
      }
      if (kind == Kind::Reduce) put(ops[static_cast<std::size_t>(members[0]->root)], 0, acc.data(), acc.size());
      if (kind == Kind::Allreduce) {
        for (LiveOp* op : ops) put(op, 0, acc.data(), acc.size());
      }
      if (kind == Kind::ReduceScatter) {
        const auto& offsets = first->data->in_offsets;
        for (std::size_t i = 0; i < n && i + 1 < offsets.size(); ++i) {
          put(ops[i], 0, acc.data() + offsets[i], offsets[i + 1] - offsets[i]);
        }
      }
      break;
    }
    case Kind::Gather:
    case Kind::Gatherv: {
      LiveOp* root = ops[static_cast<std::size_t>(members[0]->root)];
      for (std::size_t i = 0; i < n; ++i) {
        if (ops[i] && ops[i]->has_input && !ops[i]->data->in_place) put(root, i, input(ops[i]).data(), input(ops[i]).size());
      }
      break;
    }
    case Kind::Scatter:
    case Kind::Scatterv: {
      LiveOp* root = ops[static_cast<std::size_t>(members[0]->root)];
      if (!root || !root->has_input) break;
      for (std::size_t i = 0; i < n; ++i) {
        auto [data, bytes] = piece(root, i);
        put(ops[i], 0, data, bytes);
      }
      break;
    }
    case Kind::Allgather:
    case Kind::Allgatherv: {
      for (std::size_t i = 0; i < n; ++i) {
        if (!ops[i] || !ops[i]->has_input) continue;
        for (std::size_t j = 0; j < n; ++j) put(ops[j], i, input(ops[i]).data(), input(ops[i]).size());
      }
      break;
    }
    case Kind::Alltoall:
    case Kind::Alltoallv: {
      for (std::size_t i = 0; i < n; ++i) {
        if (!ops[i] || !ops[i]->has_input) continue;
        for (std::size_t j = 0; j < n; ++j) {
          auto [data, bytes] = piece(ops[i], j);
          put(ops[j], i, data, bytes);
        }
      }
      break;
    }
    case Kind::CommSplit: {
      // One communicator per color, shared by its members; order by (key, old rank).
      std::map<int, std::vector<std::pair<int, std::size_t>>> colors;
      for (std::size_t i = 0; i < n; ++i) {
        const LiveData* d = ops[i] ? ops[i]->data.get() : nullptr;
        if (d && d->color != events::kUndefinedColor) colors[d->color].push_back({d->key, i});
      }
      for (auto& [color, group] : colors) {
        std::stable_sort(group.begin(), group.end());
        auto ranks = std::make_shared<std::vector<int>>();
        for (auto& [key, i] : group) ranks->push_back(world_ranks[i]);
        auto comm = std::make_shared<Comm>();
        comm->size = static_cast<int>(ranks->size());
        comm->world_ranks = std::move(ranks);
        for (std::size_t pos = 0; pos < group.size(); ++pos) {
          LiveOp* op = ops[group[pos].second];
          op->d().new_comm = comm;
          op->d().new_rank = static_cast<int>(pos);
        }
      }
      break;
    }
    default:
      break;  // barrier, dup, cart_create, free: nothing moves
  }
  for (LiveOp* op : ops) {
    if (!op) continue;
    op->recv_matched = op->send_matched = true;
    drop_input(op);
    --op->engine_refs;
    job_->maybe_free(op);
  }
}

}  // namespace perfcast::sim::skeleton
