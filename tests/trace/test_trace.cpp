// The PMPI tracer on real MPI runs. The test programs (calls.c, calls.f90)
// write, after each MPI call, the event that call should record; the trace is
// compared with that event for event, then replayed on the simulator.
#include <gtest/gtest.h>
#include <signal.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/mpirun_command.h"
#include "events/event.h"
#include "events/text.h"
#include "events/trace.h"
#include "perfcast_cli.h"
#include "scratch.h"
#include "support/mpi_op.h"
#include "trace/collect.h"

namespace perfcast::trace {
namespace {

namespace fs = std::filesystem;
using events::Event;
using events::Kind;
using testing::perfcast_run;
using testing::scratch;

constexpr int kRanks = 4;

std::vector<std::string> mpirun(int ranks, const std::vector<std::string>& program) {
  return testing::mpirun_command(ranks, program);
}

// `perfcast trace -o DIR -- mpirun ... program args`
measure::ProcessResult trace(const fs::path& dir, const std::vector<std::string>& command) {
  std::vector<std::string> args = {"trace", "-o", dir.string(), "--"};
  args.insert(args.end(), command.begin(), command.end());
  return perfcast_run(args, std::chrono::seconds(120));
}

std::vector<Event> read_stream(const fs::path& dir, int rank) {
  events::TraceJobSource job(dir);
  auto source = job.open_rank(rank);
  std::vector<Event> out;
  Event e;
  while (source->next(e, 0)) out.push_back(e);
  return out;
}

std::vector<Event> expected_events(const fs::path& dir, int rank) {
  std::ifstream in(dir / ("expected-rank-" + std::to_string(rank) + ".txt"));
  std::vector<Event> out;
  for (std::string line; std::getline(in, line);) out.push_back(events::parse_event(line));
  return out;
}

std::vector<Event> mpi_calls(const std::vector<Event>& stream) {
  std::vector<Event> out;
  for (const auto& e : stream)
    if (e.kind != Kind::Compute) out.push_back(e);
  return out;
}

// Traces `program` on kRanks ranks into a fresh directory; the program's own
// account of its calls goes to <dir>-expected.
struct TracedRun {
  fs::path trace, expected;
  measure::ProcessResult result;
};

TracedRun traced_run(const std::string& name, const fs::path& program) {
  TracedRun run{scratch() / (name + "-trace"), scratch() / (name + "-expected"), {}};
  fs::create_directories(run.expected);
  run.result = trace(run.trace, mpirun(kRanks, {program.string(), run.expected.string()}));
  return run;
}

void expect_same_calls(const TracedRun& run) {
  ASSERT_EQ(run.result.exit_code, 0) << run.result.stdout_text << run.result.stderr_text;
  events::TraceManifest manifest = events::read_manifest(run.trace);
  ASSERT_EQ(manifest.ranks, kRanks);
  for (int r = 0; r < kRanks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    std::vector<Event> expected = expected_events(run.expected, r);
    std::vector<Event> traced = mpi_calls(read_stream(run.trace, r));
    ASSERT_GT(expected.size(), 10u);
    ASSERT_EQ(traced.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      // Every call is timed; the program cannot know how long, so the rest is compared.
      EXPECT_GE(traced[i].duration_s, 0) << "call " << i;
      traced[i].duration_s = -1;
      EXPECT_EQ(events::format_event(traced[i]), events::format_event(expected[i])) << "call " << i;
    }
  }
}

// ReduceScatter -> reduce_scatter: an operation's Id as the vocabulary names it.
std::string snake_case(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (std::isupper(static_cast<unsigned char>(c)) && !out.empty()) out += '_';
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// The kind each wrapped call records is the vocabulary's (mpi_ops.def: the
// operation its C binding makes), or the operation mpi_calls.def names for a
// function the vocabulary does not bind; every MPI kind has a wrapper.
TEST(TraceDescription, WrapsACallForEveryMpiKind) {
  std::ifstream def(fs::path(PERFCAST_SOURCE_DIR) / "src" / "trace" / "mpi_calls.def");
  ASSERT_TRUE(def);
  std::set<std::string> described;
  for (std::string line; std::getline(def, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream head(line.substr(0, line.find('|')));
    std::string function, as, id;
    head >> function >> as >> id;
    std::optional<perfcast::mpi::Op> op = perfcast::mpi::op_of_function(function);
    if (as == "(as") {
      EXPECT_FALSE(op) << function << " is bound in mpi_ops.def and named again in mpi_calls.def";
      op = perfcast::mpi::parse_op(snake_case(id.substr(0, id.find(')'))));
    }
    ASSERT_TRUE(op) << function << ": neither bound in mpi_ops.def nor recorded as one of its operations";
    described.insert(std::string(events::kind_name(events::kind_of(*op))));
  }
  for (int k = 0; k < events::kKindCount; ++k) {
    auto kind = static_cast<Kind>(k);
    if (kind == Kind::Compute || kind == Kind::Marker) continue;  // not MPI calls
    EXPECT_TRUE(described.count(std::string(events::kind_name(kind)))) << events::kind_name(kind);
  }
}

TEST(TraceC, EveryCallRecordedAsTheProgramMadeIt) {
  TracedRun run = traced_run("c", fs::path(TRACE_PROGRAMS) / "trace_calls");
  expect_same_calls(run);
  EXPECT_NE(run.result.stdout_text.find("traced 4 ranks"), std::string::npos) << run.result.stdout_text;
}

TEST(TraceC, ComputeBetweenCallsIsTimed) {
  TracedRun run = traced_run("compute", fs::path(TRACE_PROGRAMS) / "trace_calls");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.stderr_text;
  for (int r = 0; r < kRanks; ++r) {
    std::vector<Event> stream = read_stream(run.trace, r);
    // calls.c spins 20 ms before its first barrier; clock_gettime in that loop
    // and scheduling make it longer, never shorter.
    auto barrier = std::find_if(stream.begin(), stream.end(), [](const Event& e) { return e.kind == Kind::Barrier; });
    ASSERT_NE(barrier, stream.end());
    ASSERT_NE(barrier, stream.begin());
    const Event& before = *(barrier - 1);
    EXPECT_EQ(before.kind, Kind::Compute);
    EXPECT_GE(before.seconds, 0.02);
    EXPECT_LT(before.seconds, 5.0);
    for (const auto& e : stream) {
      if (e.kind == Kind::Compute) {
        EXPECT_GT(e.seconds, 0);
      }
    }
  }
  TraceHeader header = read_trace_header(run.trace);
  ASSERT_EQ(header.ranks.size(), static_cast<std::size_t>(kRanks));
  EXPECT_FALSE(header.hosts.empty());
  EXPECT_GT(header.clock_resolution_s, 0);
  for (const auto& info : header.ranks) {
    EXPECT_GE(info.compute_s, 0.02);
    // Wall time is compute, MPI and the tracer's own work, up to rounding.
    EXPECT_NEAR(info.wall_s, info.compute_s + info.mpi_s + info.tracer_s, 1e-6);
  }
}

TEST(TraceC, ShowReportsCallsAndTimes) {
  TracedRun run = traced_run("show", fs::path(TRACE_PROGRAMS) / "trace_calls");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.stderr_text;
  auto shown = perfcast_run({"trace", "show", run.trace.string(), "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.stderr_text;
  auto figures = nlohmann::json::parse(shown.stdout_text);
  ASSERT_EQ(figures["ranks"].size(), static_cast<std::size_t>(kRanks));
  for (int r = 0; r < kRanks; ++r) {
    const auto& rank = figures["ranks"][static_cast<std::size_t>(r)];
    EXPECT_EQ(rank["calls"].get<std::size_t>(), expected_events(run.expected, r).size());
    EXPECT_GE(rank["compute_s"].get<double>(), 0.02);
    EXPECT_GT(rank["mpi_s"].get<double>(), 0);
    EXPECT_GT(rank["finalize_s"].get<double>(), 0);
    EXPECT_LT(rank["finalize_s"].get<double>(), rank["mpi_s"].get<double>());
    EXPECT_GT(rank["bytes"].get<double>(), 0);
    EXPECT_FALSE(rank["top_calls"].empty());
  }
  auto table = perfcast_run({"trace", "show", run.trace.string()});
  ASSERT_EQ(table.exit_code, 0) << table.stderr_text;
  EXPECT_NE(table.stdout_text.find("in compute"), std::string::npos);
}

TEST(TraceC, ReplaysOnTheSimulator) {
  TracedRun run = traced_run("replay", fs::path(TRACE_PROGRAMS) / "trace_calls");
  ASSERT_EQ(run.result.exit_code, 0) << run.result.stderr_text;
  auto sim = perfcast_run({"simulate", run.trace.string(), "--machine", "generic-cluster", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.stdout_text << sim.stderr_text;
  auto report = nlohmann::json::parse(sim.stdout_text);
  double simulated = report["predicted_time_s"].get<double>();
  double longest_wall = 0;
  for (const auto& info : read_trace_header(run.trace).ranks) longest_wall = std::max(longest_wall, info.wall_s);
  // Every rank computes 20 ms before its barrier; the rest is small messages
  // that the machine prices at microseconds, where this oversubscribed run
  // waited on the scheduler: the replay is at least the compute, at most the run.
  EXPECT_GE(simulated, 0.02);
  EXPECT_LE(simulated, longest_wall * 1.5);
}

// durations.c: three calls that wait ~50 ms for the other rank's sleep.
struct TimedCall {
  const Event* call = nullptr;
  double gap_before_s = 0;  // the compute burst right before it (0 if none)
};

std::vector<TimedCall> timed_calls(const std::vector<Event>& stream, Kind kind) {
  std::vector<TimedCall> out;
  for (std::size_t i = 0; i < stream.size(); ++i)
    if (stream[i].kind == kind)
      out.push_back({&stream[i], i > 0 && stream[i - 1].kind == Kind::Compute ? stream[i - 1].seconds : 0});
  return out;
}

TEST(TraceDurations, ACallThatWaitsForAnotherRankIsTimedAsLongAsItWaited) {
  fs::path dir = scratch() / "durations-trace";
  auto result = trace(dir, mpirun(2, {(fs::path(TRACE_PROGRAMS) / "trace_durations").string()}));
  ASSERT_EQ(result.exit_code, 0) << result.stdout_text << result.stderr_text;
  std::vector<Event> rank0 = read_stream(dir, 0), rank1 = read_stream(dir, 1);
  // The sleeps are 50 ms; the waits end after them, give or take the moment
  // each rank left the first barrier.
  constexpr double kWaited = 0.04, kShortGap = 0.04;
  auto recv = timed_calls(rank1, Kind::Recv);
  ASSERT_EQ(recv.size(), 2u);
  EXPECT_GE(recv[0].call->duration_s, kWaited);  // 1. waits for rank 0's sleep
  EXPECT_LT(recv[0].gap_before_s, kShortGap);    // ... which is not rank 1's compute
  auto send0 = timed_calls(rank0, Kind::Send);
  ASSERT_EQ(send0.size(), 1u);
  EXPECT_GE(send0[0].gap_before_s, 0.045);  // rank 0's sleep is its compute
  auto wait = timed_calls(rank0, Kind::Wait);
  ASSERT_EQ(wait.size(), 1u);
  EXPECT_GE(wait[0].call->duration_s, kWaited);  // 2.
  EXPECT_LT(wait[0].gap_before_s, kShortGap);
  auto ssend = timed_calls(rank0, Kind::Ssend);
  ASSERT_EQ(ssend.size(), 1u);
  EXPECT_GE(ssend[0].call->duration_s, kWaited);  // 3.
  EXPECT_LT(ssend[0].gap_before_s, kShortGap);

  // Every call has a duration >= 0; MPI_Init's is before the wall clock
  // starts, and the rest with the compute gaps and the tracer's own work make
  // up each rank's wall time (MPI_Init's return to MPI_Finalize's).
  TraceHeader header = read_trace_header(dir);
  ASSERT_EQ(header.ranks.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    double compute = 0, calls = 0, finalize = -1;
    for (const Event& e : r == 0 ? rank0 : rank1) {
      if (e.kind == Kind::Compute) {
        EXPECT_EQ(e.duration_s, -1);
        compute += e.seconds;
        continue;
      }
      EXPECT_GE(e.duration_s, 0) << events::format_event(e);
      if (e.kind == Kind::Finalize) finalize = e.duration_s;
      if (e.kind != Kind::Init) calls += e.duration_s;
    }
    const RankInfo& info = header.ranks[static_cast<std::size_t>(r)];
    EXPECT_NEAR(calls, info.mpi_s, 1e-6);
    EXPECT_NEAR(finalize, info.finalize_s, 1e-6);
    EXPECT_NEAR(compute + calls + info.tracer_s, info.wall_s, 1e-6);
    EXPECT_GT(info.wall_s, 0.1);  // two sleeps at least
  }

  // trace show: time per call kind (MPI_Init apart), by rank and over all.
  auto shown = perfcast_run({"trace", "show", dir.string(), "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.stderr_text;
  auto figures = nlohmann::json::parse(shown.stdout_text);
  EXPECT_EQ(figures["calls_timed"], true);
  std::map<std::string, double> by_kind;
  double kinds_total = 0;
  for (const auto& k : figures["call_kinds"]) {
    by_kind[k["kind"].get<std::string>()] = k["seconds"].get<double>();
    kinds_total += k["seconds"].get<double>();
    EXPECT_NE(k["kind"], "init");
  }
  EXPECT_GE(by_kind["recv"], kWaited);
  EXPECT_GE(by_kind["wait"], kWaited);
  EXPECT_GE(by_kind["ssend"], kWaited);
  double ranks_total = 0;
  for (const auto& rank : figures["ranks"]) {
    EXPECT_GT(rank["init_s"].get<double>(), 0);
    EXPECT_NEAR(rank["calls_s"].get<double>(), rank["mpi_s"].get<double>(), 1e-6);
    ranks_total += rank["calls_s"].get<double>();
    ASSERT_FALSE(rank["top_calls_by_time"].empty());
    for (std::size_t i = 1; i < rank["top_calls_by_time"].size(); ++i)
      EXPECT_GE(rank["top_calls_by_time"][i - 1]["seconds"].get<double>(),
                rank["top_calls_by_time"][i]["seconds"].get<double>());
  }
  EXPECT_NEAR(kinds_total, ranks_total, 1e-6);
  bool recv_among_top = false;
  for (const auto& c : figures["ranks"][1]["top_calls_by_time"]) recv_among_top |= c["kind"] == "recv";
  EXPECT_TRUE(recv_among_top) << figures["ranks"][1].dump();
  auto table = perfcast_run({"trace", "show", dir.string()});
  ASSERT_EQ(table.exit_code, 0) << table.stderr_text;
  EXPECT_NE(table.stdout_text.find("calls by time, all ranks"), std::string::npos) << table.stdout_text;
  EXPECT_NE(table.stdout_text.find("MPI_Init"), std::string::npos) << table.stdout_text;
}

// A trace of format 1 (no durations) is still shown, and says what it lacks.
TEST(TraceDurations, ShowOnAnOldTraceSaysItHasNoDurations) {
  fs::path old = fs::path(PERFCAST_SOURCE_DIR) / "tests" / "events" / "fixtures" / "trace-v1-wave3d";
  auto shown = perfcast_run({"trace", "show", old.string(), "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.stderr_text;
  auto figures = nlohmann::json::parse(shown.stdout_text);
  EXPECT_EQ(figures["calls_timed"], false);
  ASSERT_EQ(figures["ranks"].size(), 2u);
  EXPECT_TRUE(figures["ranks"][0]["init_s"].is_null());
  EXPECT_TRUE(figures["ranks"][0]["top_calls_by_time"].empty());
  EXPECT_EQ(figures["ranks"][0]["calls"], 51);
  EXPECT_TRUE(figures["call_kinds"][0]["seconds"].is_null());
  auto table = perfcast_run({"trace", "show", old.string()});
  ASSERT_EQ(table.exit_code, 0) << table.stderr_text;
  EXPECT_NE(table.stdout_text.find("records no call durations"), std::string::npos) << table.stdout_text;
}

#ifdef TRACE_FORTRAN
TEST(TraceFortran, EveryCallRecordedAsTheProgramMadeIt) {
  expect_same_calls(traced_run("fortran", fs::path(TRACE_PROGRAMS) / "trace_calls_fortran"));
}
#endif

TEST(TraceErrors, ARunWithoutMpiLeavesNoTrace) {
  fs::path dir = scratch() / "no-mpi-trace";
  auto result = trace(dir, {"true"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.stderr_text.find("no rank of the run left a trace"), std::string::npos) << result.stderr_text;
  EXPECT_FALSE(fs::exists(dir / events::kManifestName));
}

TEST(TraceErrors, RanksThatDieBeforeFinalizeAreNamed) {
  // calls.c needs 4 ranks and aborts on 2, before MPI_Finalize.
  fs::path expected = scratch() / "abort-expected";
  fs::create_directories(expected);
  auto result = trace(scratch() / "abort-trace", mpirun(2, {fs::path(TRACE_PROGRAMS) / "trace_calls", expected}));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.stderr_text.find("exited with status"), std::string::npos) << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("rank 0 was cut short"), std::string::npos) << result.stdout_text;
}

// A rank killed by SIGKILL mid-run (no destructor, no MPI_Finalize) leaves
// its stream's whole blocks: perfcast keeps them, says the rank was cut
// short, and every event it reads back is one the program made.
TEST(TraceKilled, ARankKilledMidRunLeavesItsWholeBlocks) {
  fs::path dir = scratch() / "killed-trace";
  measure::ProcessResult result;
  // Steps without end: only the kill ends this run.
  std::thread run([&] {
    result = trace(dir, mpirun(2, {fs::path(TRACE_PROGRAMS) / "trace_phase_steps", "100000000", "0", "1000"}));
  });
  fs::path info = dir / "rank-000001.info.json", partial = dir / "rank-000001.pcev.partial";
  std::int64_t pid = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    // A block is written at least every kFlushIntervalS: wait for a few.
    if (fs::exists(info, ec) && fs::file_size(partial, ec) > 2000 && !ec) {
      RankInfo parsed;
      std::ifstream in(info);
      std::stringstream text;
      text << in.rdbuf();
      if (parse_rank_info(text.str(), parsed) && parsed.pid > 0) {
        pid = parsed.pid;
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(pid, 0) << "rank 1 never started writing";
  ASSERT_EQ(kill(static_cast<pid_t>(pid), SIGKILL), 0);
  run.join();

  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.stderr_text.find("exited with status"), std::string::npos) << result.stderr_text;
  EXPECT_NE(result.stdout_text.find("rank 1 was cut short (it never reached MPI_Finalize)"), std::string::npos)
      << result.stdout_text;
  TraceHeader header = read_trace_header(dir);
  ASSERT_FALSE(header.cut_short.empty());
  const CutShort* cut = nullptr;
  for (const auto& c : header.cut_short)
    if (c.rank == 1) cut = &c;
  ASSERT_NE(cut, nullptr);
  EXPECT_GT(cut->events, 100u);
  EXPECT_LE(cut->whole_bytes, cut->file_bytes);

  std::vector<Event> stream = read_stream(dir, 1);
  ASSERT_EQ(stream.size(), cut->events);
  EXPECT_EQ(stream.front().kind, Kind::Init);
  for (std::size_t i = 1; i < stream.size(); ++i)
    EXPECT_TRUE(stream[i].kind == Kind::Compute || stream[i].kind == Kind::Sendrecv ||
                stream[i].kind == Kind::Allreduce)
        << "event " << i << " is " << events::kind_name(stream[i].kind);

  auto shown = perfcast_run({"trace", "show", dir.string()});
  EXPECT_EQ(shown.exit_code, 0) << shown.stderr_text;
  EXPECT_NE(shown.stdout_text.find("rank 1 was cut short"), std::string::npos) << shown.stdout_text;
}

// A block torn by the kill (its header written, its payload not) and bytes
// of nothing after it are left out; the blocks before it are kept whole.
TEST(TraceKilled, ATornBlockIsLeftOut) {
  fs::path stream = scratch() / "torn.pcev", partial = scratch() / "torn.pcev.partial";
  std::uint64_t whole = 0;
  {
    auto writer = std::make_unique<events::RankWriter>(stream, 0);
    for (int i = 0; i < 300; ++i) {
      Event e;
      e.kind = Kind::Barrier;
      writer->append(e);
      if (i == 99 || i == 199) writer->flush();
    }
    writer->flush();
    whole = writer->file_bytes();
    // The kill: no close, and the writer's temporary file is left as it is.
    fs::copy_file(partial, scratch() / "torn.keep");
  }
  fs::rename(scratch() / "torn.keep", partial);
  std::string bytes;
  {
    std::ifstream in(partial, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    bytes = text.str();
  }
  ASSERT_EQ(bytes.size(), whole);
  // Cut the last block in half.
  fs::resize_file(partial, whole - 10);
  events::SalvagedStream salvaged = events::salvage_stream(partial, stream, 0);
  EXPECT_EQ(salvaged.events, 200u);
  EXPECT_LT(salvaged.whole_bytes, whole - 10);
  EXPECT_NE(salvaged.stopped.find("truncated"), std::string::npos) << salvaged.stopped;
  events::TraceRankSource source(stream, 0, 200);
  Event e;
  std::uint64_t n = 0;
  while (source.next(e)) ++n;
  EXPECT_EQ(n, 200u);
}

TEST(TraceErrors, AnErrorInsideTheProgramStopsRecordingNotTheRun) {
  fs::path dir = scratch() / "untraced-comm-trace";
  auto result = trace(dir, mpirun(2, {fs::path(TRACE_PROGRAMS) / "trace_untraced_comm"}));
  // The program's own check passed (it exits 1 otherwise, and perfcast would
  // say so); perfcast reports that the tracer stopped, and why.
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.stderr_text.find("exited with status"), std::string::npos) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("the tracer stopped on ranks 0, 1"), std::string::npos) << result.stderr_text;
  EXPECT_NE(result.stderr_text.find("MPI_Allreduce: a communicator the tracer did not see created"), std::string::npos)
      << result.stderr_text;
  // Each rank also said so itself, once, at MPI_Finalize.
  EXPECT_NE(result.stderr_text.find("perfcast trace: rank 1: MPI_Allreduce"), std::string::npos) << result.stderr_text;
  EXPECT_FALSE(fs::exists(dir / events::kManifestName));
}

TEST(TraceErrors, RefusesADirectoryThatIsNotATrace) {
  fs::path dir = scratch() / "not-a-trace";
  fs::create_directories(dir);
  std::ofstream(dir / "notes.txt") << "mine\n";
  auto result = trace(dir, {"true"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.stderr_text.find("notes.txt"), std::string::npos) << result.stderr_text;
  EXPECT_TRUE(fs::exists(dir / "notes.txt"));
}

TEST(TraceInert, APreloadWithoutTraceDirectoryChangesNothing) {
  // The library preloaded by hand, without PERFCAST_TRACE_DIR: the run works and writes nothing.
  fs::path expected = scratch() / "inert-expected";
  fs::create_directories(expected);
  std::vector<std::string> command = {"env",
                                      std::string("LD_PRELOAD=") + PERFCAST_BINARY_DIR + "/lib/libperfcast_trace.so"};
  for (auto& word : mpirun(kRanks, {fs::path(TRACE_PROGRAMS) / "trace_calls", expected})) command.push_back(word);
  auto result = measure::run_process(command, std::chrono::seconds(120));
  EXPECT_EQ(result.exit_code, 0) << result.stderr_text;
  EXPECT_EQ(expected_events(expected, 0).back().kind, Kind::Finalize);
}

TEST(TraceApp, Wave3dReplaysNearItsOwnTime) {
  fs::path app = fs::path(PERFCAST_BINARY_DIR) / "apps" / "wave3d";
  if (!fs::exists(app)) GTEST_SKIP() << "apps are not built";
  fs::path dir = scratch() / "wave3d-trace";
  auto result = trace(dir, mpirun(2, {app.string(), "--n", "48", "--steps", "20"}));
  ASSERT_EQ(result.exit_code, 0) << result.stdout_text << result.stderr_text;
  auto sim = perfcast_run({"simulate", dir.string(), "--machine", "generic-cluster", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.stderr_text;
  double simulated = nlohmann::json::parse(sim.stdout_text)["predicted_time_s"].get<double>();
  double longest_wall = 0, most_compute = 0;
  for (const auto& info : read_trace_header(dir).ranks) {
    longest_wall = std::max(longest_wall, info.wall_s);
    most_compute = std::max(most_compute, info.compute_s);
  }
  // The replay runs the traced compute as it was and prices the halo
  // exchanges on the machine: at least the compute, and of the run's order.
  EXPECT_GE(simulated, most_compute * 0.99);
  EXPECT_LE(simulated, longest_wall * 2);
}

}  // namespace
}  // namespace perfcast::trace
