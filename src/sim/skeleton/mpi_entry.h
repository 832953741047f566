// What the skeleton-facing entry points share: MPI_* (perfcast/mpi.h), LMPI_*
// and BSIM_* (bsim.h), one file per MPI chapter (mpi_point_to_point.cpp,
// mpi_collectives.cpp, mpi_communicators.cpp, mpi_datatypes.cpp,
// mpi_environment.cpp) and bsim_api.cpp.
//
// Every entry point runs inside a rank's fiber. It validates its arguments (an
// invalid call ends the simulation with "rank R: MPI_Xxx: what was wrong", as
// MPI_ERRORS_ARE_FATAL would), turns the call into the rank's next event, hands
// it to the engine and returns once the engine asks for the following event,
// i.e. once a blocking call has completed in simulated time. Nothing here throws:
// these are C functions called from user code.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "bsim.h"
#include "perfcast/mpi.h"
#include "sim/skeleton/runtime.h"

namespace perfcast::sim::skeleton {

// The entry point a skeleton called: MPI_<name> moves data (live), LMPI_<name>
// moves none. Its name is what errors report.
struct EntryPoint {
  bool live;
  const char* name;
};

// One behaviour, two C entry points: defines MPI_<name> and LMPI_<name> with the
// parameter list `params`, each returning the expression that follows, in which
// `call` is the EntryPoint of the entry point running.
#define PERFCAST_TWIN(name, params, ...)                                        \
  extern "C" int MPI_##name params {                                            \
    constexpr ::perfcast::sim::skeleton::EntryPoint call{true, "MPI_" #name};   \
    return __VA_ARGS__;                                                         \
  }                                                                             \
  extern "C" int LMPI_##name params {                                           \
    constexpr ::perfcast::sim::skeleton::EntryPoint call{false, "LMPI_" #name}; \
    return __VA_ARGS__;                                                         \
  }

// Declares `rk`, the calling rank, and `call_name`; an entry point called outside
// a rank's fiber returns MPI_ERR_OTHER.
#define PERFCAST_ENTER(name)                                                       \
  ::perfcast::sim::skeleton::Rank* rk = ::perfcast::sim::skeleton::current_rank(); \
  if (!rk) return MPI_ERR_OTHER;                                                   \
  const char* const call_name = (name)

inline void check_count(Rank* rk, const char* call, int count, const char* what = "count") {
  if (count < 0) rk->fail(call, fmt::format("negative {} {}", what, count));
}

inline void check_type(Rank* rk, const char* call, MPI_Datatype t) {
  if (!type_valid(t)) rk->fail(call, fmt::format("{} is not a datatype", t));
}

inline void check_buffer(Rank* rk, const char* call, bool live, const void* buf, int count) {
  if (live && !buf && count > 0) {
    rk->fail(call, fmt::format("NULL buffer with count {} (LMPI_* calls accept NULL buffers; MPI_* move data)", count));
  }
}

inline void check_peer(Rank* rk, const char* call, const CommRef& c, int peer, bool any_allowed, const char* what) {
  if (peer == MPI_PROC_NULL || (any_allowed && peer == MPI_ANY_SOURCE)) return;
  if (peer < 0 || peer >= c.size) {
    rk->fail(call, fmt::format("{} {} is not a rank of a communicator of {} ranks", what, peer, c.size));
  }
}

inline void check_tag(Rank* rk, const char* call, int tag, bool any_allowed) {
  if (any_allowed && tag == MPI_ANY_TAG) return;
  if (tag < 0 || tag > MPI_TAG_UB) rk->fail(call, fmt::format("tag {} is out of range 0..{}", tag, MPI_TAG_UB));
}

inline std::size_t packed(int count, MPI_Datatype t) { return static_cast<std::size_t>(count) * type_size(t); }

// What an event says the call moves: LMPI_* sizes are scaled (BSIM_Set_size_scale).
inline std::uint64_t event_bytes(Rank* rk, bool live, std::size_t bytes) {
  if (live || rk->size_scale_ == 1) return bytes;
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(bytes) * rk->size_scale_));
}

// The input of a data-moving call, packed now: the caller may reuse its buffer
// as soon as the call returns.
inline void set_input(LiveOp* op, const void* buf, int count, MPI_Datatype t) {
  op->has_input = true;
  op->d().in.resize(packed(count, t));
  pack(buf, static_cast<std::size_t>(count), t, op->d().in.data());
}

// Where a data-moving call's output goes when the engine delivers it.
inline void set_output(LiveOp* op, void* buf, int count, MPI_Datatype t) {
  op->d().out = buf;
  op->d().out_type = t;
  op->d().out_capacity = packed(count, t);
}

}  // namespace perfcast::sim::skeleton
