// Live skeletons: a skeleton's ranks run as fibers in this process, and each
// rank's MPI calls become its event stream (events/source.h).
//
// A skeleton is a shared object built by `perfcast cc` (glibc will not dlopen a
// position-independent executable) whose `main` runs once per rank. The engine
// drives the fibers: RankSource::next(event, now_s) resumes the rank until it
// makes its next call, and as a DataMover the job copies and reduces the data of
// MPI_* calls when the engine matches them (LMPI_* calls move none).
//
// What the engine must do for data to move: call deliver() for every send it
// matches with a receive (and for a probe it matches, with the probe as
// `received`: only the status is filled), and collective() for every collective
// and communicator call once all members have arrived (MPI_Comm_split cannot
// return before it). Events whose `live` is set must not be used after that
// callback, except to pass them back.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "events/source.h"
#include "sim/costs.h"
#include "sim/skeleton/stack_region.h"

namespace perfcast::sim::skeleton {

struct LiveOptions {
  std::size_t stack_bytes = 64 * 1024;  // per rank; `perfcast simulate --stack-size`
  GuardMode guard = GuardMode::Auto;    // guard page under each stack (see stack_region.h)
};

using SkeletonMain = int (*)(int, char**);

struct Job;

class LiveJobSource final : public events::JobSource, public events::DataMover {
 public:
  // Loads the skeleton at `path` (dlopen) and prepares np ranks that each run
  // main(args): args[0] is the program name. Throws UserError when the file is no
  // loadable skeleton (an executable, a build against another mpi.h, no main).
  LiveJobSource(const std::string& path, std::vector<std::string> args, int np, LiveOptions options = {});
  // Runs `main` of this process instead (skeletons linked into a test or a tool).
  LiveJobSource(SkeletonMain main, std::vector<std::string> args, int np, LiveOptions options = {});
  ~LiveJobSource() override;

  int size() const override;
  std::unique_ptr<events::RankSource> open_rank(int rank) override;
  void deliver(const events::Event& send, int send_world_rank, events::Event& received, int recv_world_rank) override;
  void collective(const std::vector<events::Event*>& members, const std::vector<int>& world_ranks) override;

  // Prices the compute bursts of the ranks' BSIM_Add_model_work calls: give it
  // to the engine (sim::SimOptions::work_pricer).
  const sim::WorkPricer* work_pricer() const;

  // One line per writable global of the skeleton that all ranks would share.
  const std::vector<std::string>& warnings() const;
  const StackRegion& stacks() const;
  // main's return value (or exit's argument) for a rank that has finished, else -1.
  int exit_code(int rank) const;

 private:
  std::unique_ptr<Job> job_;
};

// The factory `perfcast simulate` calls for `-- ./skel args` (args exclude the path).
std::unique_ptr<LiveJobSource> open_live_skeleton(const std::string& path, const std::vector<std::string>& args, int np,
                                                  const LiveOptions& options);

// Writable data symbols (.data, .bss, thread-locals) defined by the shared object
// at `path`, as "name (section, N bytes)", demangled. Throws UserError on a file
// that is no ELF shared object.
std::vector<std::string> shared_writable_globals(const std::string& path);

}  // namespace perfcast::sim::skeleton
