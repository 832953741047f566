// The recorder inside a traced MPI process: turns the calls the generated
// wrappers (mpi_calls.def) see into one event stream per rank, each call with
// its duration (entry to return) and the compute gap before it.
//
// Lives in someone else's program, so nothing here throws out or aborts: a
// failure puts the recorder into an error state (it stops recording, MPI goes
// on), and MPI_Finalize reports it on one stderr line and in the rank's info
// file. Inert until MPI_Init has returned and after MPI_Finalize, and
// entirely when PERFCAST_TRACE_DIR is not set (LD_PRELOAD also enters mpirun,
// the daemons and every shell the job starts).
#pragma once

#include <mpi.h>

// MPI's predefined handles are addresses of objects in libmpi. The tracer is
// also preloaded into processes without libmpi (mpirun, its daemons, shells),
// where a strong reference to them would stop the process from loading.
#pragma weak ompi_mpi_comm_world
#pragma weak ompi_mpi_comm_self
#pragma weak ompi_mpi_comm_null
#pragma weak ompi_mpi_datatype_null
#pragma weak ompi_mpi_byte
#pragma weak ompi_request_null
#pragma weak ompi_mpi_op_null

#include <cstdint>
#include <vector>

#include "events/event.h"
#include "trace/recorder_environment.h"

#define PERFCAST_TRACE_EXPORT __attribute__((visibility("default")))

namespace perfcast::trace {

// True between a traced MPI_Init and MPI_Finalize, unless an error stopped it.
bool recorder_active();

// One MPI call as a wrapper sees it. The wrapper fills the fields its
// arguments' roles name (mpi_calls.def), calls begin() just before the PMPI
// call and end() just after it with the call's result; end() builds the event
// of `kind` from the fields. Unset fields keep these defaults.
struct Call {
  Call(events::Kind kind, const char* name) : kind(kind), name(name) {}

  void begin();
  void end(int result);

  events::Kind kind;
  const char* name;
  bool send_in_place = false, recv_in_place = false;
  int count = 0, send_count = 0, recv_count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL, send_type = MPI_DATATYPE_NULL, recv_type = MPI_DATATYPE_NULL;
  const int* send_counts = nullptr;
  const int* recv_counts = nullptr;
  int peer = MPI_PROC_NULL, tag = 0, source = MPI_PROC_NULL, recv_tag = 0, root = 0, color = 0, key = 0;
  MPI_Comm comm = MPI_COMM_NULL, new_comm = MPI_COMM_NULL;
  // A call that partitions comm without a color (MPI_Comm_split_type,
  // MPI_Comm_create): color and key are read from the communicator it made.
  bool split_from_result = false;
  MPI_Request new_request = MPI_REQUEST_NULL;
  int request_count = 0;
  std::vector<MPI_Request> requests;  // as passed in, before the call completed them
  int index = MPI_UNDEFINED, outcount = 0;
  std::vector<int> indices;
  bool flag = false;
  std::vector<MPI_Status> statuses;  // one for a single completion or receive

  // Set by begin(): the clock in seconds (for compute gaps) and in whole
  // nanoseconds (for the call's duration, stored exactly; events::seconds_of_ns).
  double start_s = 0;
  std::uint64_t start_ns = 0;
};

}  // namespace perfcast::trace
