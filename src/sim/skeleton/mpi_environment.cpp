// Environment entry points: initialization and finalization, abort, clocks,
// the processor's name, version and error strings, error handlers, and the
// exit() of a rank.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "sim/skeleton/mpi_entry.h"

using perfcast::events::Kind;

namespace perfcast::sim::skeleton {
namespace {

// MPI_Init and MPI_Finalize: each at most once per rank (`state` says whether it
// was), and an event the engine sees.
int enter_state(const char* call, Kind kind, bool Rank::*state, const char* already) {
  PERFCAST_ENTER(call);
  if (rk->*state) rk->fail(call_name, already);
  rk->*state = true;
  rk->begin(kind);
  rk->emit();
  return MPI_SUCCESS;
}

int reached_state(bool Rank::*state, int* flag) {
  Rank* rk = current_rank();
  *flag = rk && rk->*state;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace perfcast::sim::skeleton

using namespace perfcast::sim::skeleton;  // the entry points below use this file's helpers

extern "C" {

int MPI_Init(int*, char***) {
  return enter_state("MPI_Init", Kind::Init, &Rank::initialized_, "MPI is already initialized");
}

int MPI_Init_thread(int* argc, char*** argv, int, int* provided) {
  if (provided) *provided = MPI_THREAD_SINGLE;  // ranks are fibers of one thread
  return MPI_Init(argc, argv);
}

int MPI_Query_thread(int* provided) {
  *provided = MPI_THREAD_SINGLE;
  return MPI_SUCCESS;
}

int MPI_Initialized(int* flag) { return reached_state(&Rank::initialized_, flag); }

int MPI_Finalize(void) {
  return enter_state("MPI_Finalize", Kind::Finalize, &Rank::finalized_, "MPI is already finalized");
}

int MPI_Finalized(int* flag) { return reached_state(&Rank::finalized_, flag); }

int MPI_Pcontrol(const int level, ...) {
  Rank* rk = current_rank();
  if (!rk) return MPI_ERR_OTHER;
  rk->begin(Kind::Pcontrol).tag = level;
  rk->emit();
  return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm, int errorcode) {
  PERFCAST_ENTER("MPI_Abort");
  rk->flush_compute();
  rk->fail(call_name, fmt::format("the skeleton aborted with error code {}", errorcode));
}

double MPI_Wtime(void) {
  Rank* rk = current_rank();
  if (!rk) return 0;
  // Pending compute first, so the clock the engine hands back includes it.
  rk->flush_compute();
  return rk->now_s();
}

double MPI_Wtick(void) { return 1e-9; }

int MPI_Get_processor_name(char* name, int* resultlen) {
  Rank* rk = current_rank();
  std::string s = fmt::format("perfcast-rank-{}", rk ? rk->world_rank() : -1);
  std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", s.c_str());
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}

int MPI_Get_version(int* version, int* subversion) {
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  std::snprintf(string, MPI_MAX_ERROR_STRING, "MPI error %d", errorcode);
  *resultlen = static_cast<int>(std::strlen(string));
  return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm, MPI_Errhandler) { return MPI_SUCCESS; }

// `perfcast cc` links skeletons with --wrap=exit: exit() inside a rank ends that
// rank (as returning from main would), not the simulator.
void __wrap_exit(int code) {
  if (Rank* rk = current_rank()) rk->finish(code);
  std::exit(code);
}

}  // extern "C"
