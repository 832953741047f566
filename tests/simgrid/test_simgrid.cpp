// SimGrid's view of perfcast's traces (src/simgrid) and the replays that check
// it. The export is read line by line on hand-written streams; then a real
// 4-rank run of halo_allreduce.c is traced, exported and replayed by SimGrid's
// own replay (smpirun -replay) beside perfcast's replay of the same trace on
// the same machine; and perfcast's replay with MPI as traced gives back the
// traced run's wall time.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/mpirun_command.h"
#include "events/memory_source.h"
#include "events/text.h"
#include "machine/machine_io.h"
#include "perfcast_cli.h"
#include "scratch.h"
#include "simgrid/platform.h"
#include "simgrid/time_independent.h"
#include "support/error.h"
#include "support/process.h"

namespace perfcast::simgrid {
namespace {

namespace fs = std::filesystem;
using events::Kind;
using testing::perfcast_run;
using testing::scratch;

// The machine of the perfcast/SMPI comparison: crossbar, 2 us, 10 GB/s, 64 KiB
// eager threshold, 1 Gflop/s cores, one rank per node.
const fs::path kMachine = fs::path(PERFCAST_SOURCE_DIR) / "bench" / "smpi" / "compare.toml";

std::vector<std::string> read_lines(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TimeIndependentExport export_text(const std::string& text, const fs::path& dir) {
  auto job = events::parse_text_job(text);
  machine::Machine m = machine::load_machine_file(kMachine);
  return export_time_independent(*job, m, dir);
}

TEST(SimgridMapping, EveryKindOfTheVocabularyIsMappedOrRefusedWithAReason) {
  const auto& table = kind_mapping();
  ASSERT_EQ(table.size(), static_cast<std::size_t>(events::kKindCount));
  for (int k = 0; k < events::kKindCount; ++k) {
    SCOPED_TRACE(std::string(events::kind_name(static_cast<Kind>(k))));
    EXPECT_EQ(table[static_cast<std::size_t>(k)].kind, static_cast<Kind>(k));
    EXPECT_FALSE(table[static_cast<std::size_t>(k)].actions.empty());
  }
}

TEST(SimgridExport, WritesTheActionsSimgridReplays) {
  const fs::path dir = scratch() / "export-actions";
  auto result = export_text(
      "rank 0\ninit\ncompute 0.002\nisend peer=1 tag=3 bytes=100 req=1\nirecv peer=1 tag=4 bytes=50 req=2\n"
      "waitall req=1,2\nsendrecv peer=1 tag=5 bytes=8 source=1 tag2=6 bytes2=16\nallreduce bytes=8 bytes2=8\n"
      "cart_create new=2\nsend peer=1 tag=7 bytes=1 comm=2\nsend peer=null bytes=1\nfinalize\n"
      "rank 1\ninit\nirecv peer=0 tag=3 bytes=100 req=1\nisend peer=0 tag=4 bytes=50 req=2\nwait req=1\n"
      "wait req=2\nsendrecv peer=0 tag=6 bytes=16 source=0 tag2=5 bytes2=8\nallreduce bytes=8 bytes2=8\n"
      "cart_create new=2\nrecv peer=0 tag=7 bytes=1 comm=2\nfinalize\n",
      dir);
  EXPECT_EQ(result.ranks, 2);
  EXPECT_EQ(result.allreduce_algorithm, "rdb");
  // 2 ms at the machine's 1 Gflop/s is 2e6 flops: SimGrid's host replays it in 2 ms.
  EXPECT_EQ(read_lines(dir / "rank_0.txt"),
            (std::vector<std::string>{"0 init", "0 compute 2000000", "0 isend 1 3 100", "0 irecv 1 4 50",
                                      "0 wait 0 1 3", "0 wait 1 0 4", "0 isend 1 5 8", "0 recv 1 6 16",
                                      "0 wait 0 1 5", "0 allreduce 8 0", "0 allreduce 8 0", "0 send 1 7 1",
                                      "0 finalize"}));
  EXPECT_EQ(read_lines(dir / "rank_1.txt"),
            (std::vector<std::string>{"1 init", "1 irecv 0 3 100", "1 isend 0 4 50", "1 wait 0 1 3",
                                      "1 wait 1 0 4", "1 isend 0 6 16", "1 recv 0 5 8", "1 wait 1 0 6",
                                      "1 allreduce 8 0", "1 allreduce 8 0", "1 recv 0 7 1", "1 finalize"}));
  EXPECT_EQ(read_lines(dir / "traces.txt"),
            (std::vector<std::string>{(dir / "rank_0.txt").string(), (dir / "rank_1.txt").string()}));
  EXPECT_EQ(result.actions, 25u);
  const auto options = read_lines(dir / "smpi_options.txt");
  EXPECT_NE(std::find(options.begin(), options.end(), "--cfg=smpi/allreduce:rdb"), options.end());
  EXPECT_NE(std::find(options.begin(), options.end(), "--cfg=smpi/async-small-thresh:65537"), options.end());
  const auto platform = read_lines(dir / "platform.xml");
  EXPECT_NE(std::find(platform.begin(), platform.end(), "  <host id=\"h1\" speed=\"1000000000f\"/>"), platform.end());
  EXPECT_NE(std::find(platform.begin(), platform.end(),
                      "  <link id=\"l1\" bandwidth=\"10000000000Bps\" latency=\"9.9999999999999995e-07s\" "
                      "sharing_policy=\"FATPIPE\"/>"),
            platform.end());
}

void expect_refused(const std::string& text, const std::string& says) {
  try {
    export_text(text, scratch() / "export-refused");
    ADD_FAILURE() << "exported: " << text;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(SimgridExport, RefusesWhatSimgridsReplayCannotRunNamingRankAndEvent) {
  expect_refused("rank 0\ninit\nssend peer=1 bytes=4\nrank 1\nrecv peer=0 bytes=4\n",
                 "rank 0, event 1: cannot be written as a SimGrid action: SimGrid's replay has no synchronous send");
  expect_refused("rank 0\nscan bytes=8 bytes2=8\nrank 1\nscan bytes=8 bytes2=8\n", "no scan action");
  expect_refused("rank 0\nsend peer=1 bytes=4\nrank 1\ncompute 0.1\nrecv peer=any bytes=4\n",
                 "rank 1, event 1: cannot be written as a SimGrid action: a receive from MPI_ANY_SOURCE");
  expect_refused("rank 0\ncomm_split color=0 key=0 new=2\nbarrier comm=2\nrank 1\ncomm_split color=0 key=0 new=2\n"
                 "barrier comm=2\n",
                 "rank 0, event 1: cannot be written as a SimGrid action: it runs on communicator 2");
  expect_refused("rank 0\nisend peer=1 tag=1 bytes=4 req=1\nisend peer=1 tag=1 bytes=4 req=2\nwaitall req=1,2\n"
                 "rank 1\nrecv peer=0 tag=1 bytes=4\nrecv peer=0 tag=1 bytes=4\n",
                 "two requests pending at once between ranks 0 and 1 with tag 1");
  expect_refused("rank 0\ncompute flops=1e9\nrank 1\n", "a burst without measured seconds");
}

TEST(SimgridPlatform, RefusesAMachineSmpiWouldPriceOtherwise) {
  machine::Machine m = machine::load_machine_file(kMachine);
  EXPECT_NO_THROW(check_machine_for_smpi(m, 4));
  machine::Machine shared = m;
  shared.groups[0].cores = 2;
  EXPECT_THROW(check_machine_for_smpi(shared, 4), UserError);
  machine::Machine overhead = m;
  overhead.network.overhead_s = 1e-7;
  try {
    check_machine_for_smpi(overhead, 4);
    ADD_FAILURE();
  } catch (const UserError& e) {
    EXPECT_EQ(e.where().field, "network.overhead");
  }
}

// --- real runs -------------------------------------------------------------------------------

constexpr int kRanks = 4;

fs::path trace_halo(const std::string& name, int steps, int bytes, double compute_s) {
  const fs::path dir = scratch() / (name + "-trace");
  std::vector<std::string> args = {"trace", "-o", dir.string(), "--"};
  for (const auto& a : testing::mpirun_command(
           kRanks, {(fs::path(SIMGRID_PROGRAMS) / "simgrid_halo_allreduce").string(), std::to_string(steps),
                    std::to_string(bytes), std::to_string(compute_s)}))
    args.push_back(a);
  auto traced = perfcast_run(args, std::chrono::seconds(180));
  EXPECT_EQ(traced.exit_code, 0) << traced.stdout_text << traced.stderr_text;
  return dir;
}

nlohmann::json perfcast_json(const std::vector<std::string>& args) {
  auto run = perfcast_run(args, std::chrono::seconds(120));
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  return run.exit_code == 0 ? nlohmann::json::parse(run.stdout_text) : nlohmann::json{};
}

bool have_smpirun() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin"})
    if (fs::exists(fs::path(dir) / "smpirun")) return true;
  return false;
}

struct SmpiReplay {
  double simulated_s = -1;
  std::map<int, int> actions_by_rank;  // actions SMPI logged as replayed
  std::string log;
};

// smpirun -replay with SMPI's own replayer (smpireplaymain), every action logged.
SmpiReplay smpi_replay(const fs::path& exported) {
  const auto ranks = read_lines(exported / "traces.txt").size();
  std::vector<std::string> command = {"smpirun", "-np", std::to_string(ranks), "-platform",
                                      (exported / "platform.xml").string(), "-replay",
                                      (exported / "traces.txt").string()};
  for (const auto& option : read_lines(exported / "smpi_options.txt")) command.push_back(option);
  command.push_back("--log=smpi_replay.thres:verbose");  // a line per action replayed
  command.push_back("--cfg=smpi/tmpdir:" + scratch().string());
  auto run = measure::run_process(command, std::chrono::seconds(180));
  SmpiReplay out;
  out.log = run.stdout_text + run.stderr_text;
  EXPECT_EQ(run.exit_code, 0) << out.log.substr(0, 4000);
  static const std::regex action(R"(\[smpi_replay/VERBOSE\] (\d+) )");
  static const std::regex total(R"(Simulation time ([0-9.eE+-]+))");
  std::istringstream lines(out.log);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, action)) ++out.actions_by_rank[std::stoi(m[1])];
    if (std::regex_search(line, m, total)) out.simulated_s = std::stod(m[1]);
  }
  return out;
}

// Both replays run every action of the exported trace and agree within `tolerance`.
void compare_side_by_side(const std::string& name, int steps, int bytes, double compute_s, double tolerance) {
  if (!have_smpirun()) GTEST_SKIP() << "smpirun not found: install Debian's libsimgrid-dev to run SimGrid's replay";
  const fs::path trace = trace_halo(name, steps, bytes, compute_s);
  const fs::path exported = scratch() / (name + "-simgrid");
  auto exp = perfcast_run({"trace", "export", trace.string(), "--simgrid", exported.string(), "--machine",
                           kMachine.string()});
  ASSERT_EQ(exp.exit_code, 0) << exp.stderr_text;

  SmpiReplay smpi = smpi_replay(exported);
  nlohmann::json perfcast = perfcast_json({"simulate", trace.string(), "--machine", kMachine.string(),
                                           "--collectives", "algorithms", "--json"});
  ASSERT_FALSE(perfcast.empty());
  // Every action ran: SMPI logs each it replays but init and finalize.
  for (int r = 0; r < kRanks; ++r) {
    auto lines = read_lines(exported / ("rank_" + std::to_string(r) + ".txt"));
    EXPECT_EQ(smpi.actions_by_rank[r], static_cast<int>(lines.size()) - 2) << "rank " << r;
  }
  EXPECT_EQ(perfcast["warnings"]["ranks_with_warnings"], 0) << perfcast["warnings"].dump();
  const double p = perfcast["predicted_time_s"], s = smpi.simulated_s;
  ASSERT_GT(s, 0) << smpi.log.substr(0, 4000);
  std::cout << name << ": SMPI " << s << " s, perfcast " << p << " s, differ by " << (p - s) / s * 100 << " %\n";
  EXPECT_NEAR(p, s, tolerance * s) << "SMPI " << s << " s, perfcast " << p << " s";
}

// Every kind the export maps, in one consistent 2-rank stream: SMPI's replay
// runs each action it was given (its parser takes every line) and both
// simulators finish the job.
TEST(SimgridSideBySide, EveryMappedKindReplaysInSmpi) {
  if (!have_smpirun()) GTEST_SKIP() << "smpirun not found: install Debian's libsimgrid-dev to run SimGrid's replay";
  const std::string common =
      "barrier\nbcast bytes=1000 bytes2=1000 root=1\nreduce bytes=64 bytes2=64 root=0\nallreduce bytes=8 bytes2=8\n"
      "allgather bytes=16 bytes2=32\nalltoall bytes=32 bytes2=32\nreduce_scatter bytes=30 counts=10,20\n"
      "comm_dup new=2\nbarrier comm=2\ncart_create new=3\ncomm_free comm=2\nfinalize\n";
  const fs::path text = scratch() / "every-kind.txt";
  std::ofstream(text) << "rank 0\ninit\ncompute 0.001\nsend peer=1 tag=1 bytes=100\nrecv peer=1 tag=2 bytes=200000\n"
                        "isend peer=1 tag=3 bytes=8 req=1\ntest req=1\nirecv peer=1 tag=4 bytes=8 req=2\nwaitall req=2\n"
                        "sendrecv peer=1 tag=5 bytes=8 source=1 tag2=6 bytes2=8\n"
                        "gather bytes=10 bytes2=20 root=0\nscatter bytes=20 bytes2=10 root=0\n"
                        "gatherv bytes=10 bytes2=30 counts2=10,20 root=0\nscatterv bytes=30 bytes2=10 counts=10,20 root=0\n"
                        "allgatherv bytes=10 bytes2=30 counts2=10,20\n"
                        "alltoallv bytes=30 counts=10,20 bytes2=15 counts2=10,5\n"
                     << common
                     << "rank 1\ninit\nrecv peer=0 tag=1 bytes=100\nsend peer=0 tag=2 bytes=200000\n"
                        "irecv peer=0 tag=3 bytes=8 req=1\nisend peer=0 tag=4 bytes=8 req=2\nwaitall req=1,2\n"
                        "sendrecv peer=0 tag=6 bytes=8 source=0 tag2=5 bytes2=8\n"
                        "gather bytes=10 root=0\nscatter bytes2=10 root=0\ngatherv bytes=20 root=0\n"
                        "scatterv bytes2=20 root=0\nallgatherv bytes=20 bytes2=30 counts2=10,20\n"
                        "alltoallv bytes=12 counts=5,7 bytes2=27 counts2=20,7\n"
                     << common;
  const fs::path exported = scratch() / "every-kind-simgrid";
  auto exp = perfcast_run({"trace", "export", text.string(), "--simgrid", exported.string(), "--machine",
                           kMachine.string()});
  ASSERT_EQ(exp.exit_code, 0) << exp.stderr_text;
  SmpiReplay smpi = smpi_replay(exported);
  for (int r = 0; r < 2; ++r) {
    auto lines = read_lines(exported / ("rank_" + std::to_string(r) + ".txt"));
    EXPECT_EQ(smpi.actions_by_rank[r], static_cast<int>(lines.size()) - 2) << "rank " << r << "\n" << smpi.log;
  }
  nlohmann::json perfcast = perfcast_json({"simulate", text.string(), "--machine", kMachine.string(), "--json"});
  ASSERT_FALSE(perfcast.empty());
  EXPECT_GT(smpi.simulated_s, 0.001);
  EXPECT_GT(perfcast["predicted_time_s"].get<double>(), 0.001);
}

// Messages and allreduces between short gaps: the network models meet. Halo
// messages of 1 KiB (eager) and 8-byte recursive-doubling allreduces.
TEST(SimgridSideBySide, CommunicationOnlyRunAgrees) {
  compare_side_by_side("comm-only", 200, 1024, 0, 0.01);
}

// 20 ms of compute per step, rendezvous halos of 200 kB: the bursts dominate.
TEST(SimgridSideBySide, ComputeDominatedRunAgrees) {
  compare_side_by_side("compute-dominated", 10, 200000, 0.02, 0.01);
}

// --- perfcast's replay with MPI as traced ----------------------------------------------------

TEST(AsTracedReplay, GivesBackTheTracedWallTime) {
  const fs::path trace = trace_halo("as-traced", 30, 20000, 0.005);
  nlohmann::json shown = perfcast_json({"trace", "show", trace.string(), "--json"});
  nlohmann::json replay =
      perfcast_json({"simulate", trace.string(), "--machine", kMachine.string(), "--mpi", "as-traced", "--json"});
  ASSERT_FALSE(shown.empty());
  ASSERT_FALSE(replay.empty());
  double traced_wall = 0;
  for (const auto& r : shown["ranks"]) traced_wall = std::max(traced_wall, r["wall_s"].get<double>());
  EXPECT_EQ(replay["mpi"], "as-traced");
  const double replayed = replay["predicted_time_s"];
  std::cout << "traced wall " << traced_wall << " s, replayed as traced " << replayed << " s\n";
  // Per rank: compute and MPI as measured, so the rank ends no earlier than its
  // own traced wall time; later only where the replay held a call beyond its
  // duration (a receive traced as ending before its partner's send began in the
  // partner's clock: a loaded host's descheduling does that), and never after
  // the job's end, which the traced wall gives.
  for (const auto& r : replay["ranks"]) {
    const int rank = r["rank"];
    const double wall = shown["ranks"][static_cast<std::size_t>(rank)]["wall_s"];
    EXPECT_GE(r["end_s"].get<double>(), wall * (1 - 0.005)) << "rank " << rank;
    EXPECT_LE(r["end_s"].get<double>(), replayed * (1 + 1e-9)) << "rank " << rank;
    EXPECT_EQ(r["comm_s"].get<double>(), 0.0) << "rank " << rank;
  }
  // The job ends at the traced wall time, later by what the replay held: its
  // ranks start together at MPI_Init's return, which a loaded host spreads over
  // a few milliseconds (0.6 % of this run seen, 2 % allowed).
  EXPECT_GE(replayed, traced_wall * (1 - 0.005));
  EXPECT_LE(replayed, traced_wall * 1.02);
}

TEST(AsTracedReplay, RefusesStreamsWithoutDurations) {
  const fs::path text = scratch() / "no-durations.txt";
  std::ofstream(text) << "rank 0\ninit\ncompute 0.1\nbarrier\nfinalize\n";
  auto run = perfcast_run({"simulate", text.string(), "--machine", kMachine.string(), "--mpi", "as-traced"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.stderr_text.find("rank 0, event 2 (barrier): no traced duration"), std::string::npos)
      << run.stderr_text;
}

}  // namespace
}  // namespace perfcast::simgrid
