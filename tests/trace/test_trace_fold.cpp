// The tracer's loop folding (perfcast trace --fold-loops) on real MPI runs of
// fold_loop.c: the MPI event sequence is the one an exact trace records, a run
// ten times longer leaves a trace under 10 % larger, a replay keeps the run's
// time, and a rank killed mid-loop leaves what it had flushed.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/mpirun_command.h"
#include "events/trace.h"
#include "perfcast_cli.h"
#include "scratch.h"
#include "trace/collect.h"
#include "trace/rank_info.h"

namespace perfcast::trace {
namespace {

namespace fs = std::filesystem;
using events::Event;
using events::Kind;
using testing::perfcast_run;
using testing::scratch;

constexpr int kRanks = 3;
const fs::path kProgram = fs::path(TRACE_PROGRAMS) / "trace_fold_loop";

// `perfcast trace [--fold-loops] -o DIR -- mpirun ... fold_loop N MODE`; the trace directory.
fs::path traced(const std::string& name, int iterations, const std::string& mode, bool fold) {
  fs::path dir = scratch() / name;
  std::vector<std::string> args = {"trace", "-o", dir.string()};
  if (fold) args.push_back("--fold-loops");
  args.push_back("--");
  for (const auto& word : testing::mpirun_command(kRanks, {kProgram.string(), std::to_string(iterations), mode}))
    args.push_back(word);
  auto result = perfcast_run(args, std::chrono::seconds(180));
  EXPECT_EQ(result.exit_code, 0) << result.stdout_text << result.stderr_text;
  return dir;
}

std::vector<Event> mpi_events(const fs::path& dir, int rank) {
  events::TraceJobSource job(dir);
  auto source = job.open_rank(rank);
  std::vector<Event> out;
  Event e;
  while (source->next(e, 0))
    if (e.kind != Kind::Compute) {
      e.duration_s = -1;  // a folded trace has each position's mean
      out.push_back(e);
    }
  return out;
}

std::uint64_t stream_bytes(const fs::path& dir) {
  std::uint64_t total = 0;
  for (int r = 0; r < kRanks; ++r) total += fs::file_size(dir / events::rank_file_name(r));
  return total;
}

// The same calls, field for field (kinds, peers, tags, bytes, requests,
// communicators, sites), on every rank.
void expect_same_calls(const fs::path& exact, const fs::path& folded) {
  for (int r = 0; r < kRanks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    std::vector<Event> a = mpi_events(exact, r), b = mpi_events(folded, r);
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(a[i] == b[i]) << "call " << i;
  }
}

// The same run's trace with its loops folded afterwards: what the tracer
// would have written, with no run-to-run noise between the two.
fs::path folded_copy(const fs::path& exact, const std::string& name) {
  events::TraceJobSource job(exact);
  events::WriterOptions options;
  options.fold_loops = true;
  fs::path dir = scratch() / name;
  events::write_trace(job, dir, job.manifest().metadata, options);
  return dir;
}

nlohmann::json simulated(const fs::path& dir) {
  auto sim = perfcast_run({"simulate", dir.string(), "--machine", "generic-cluster", "--json"});
  EXPECT_EQ(sim.exit_code, 0) << sim.stdout_text << sim.stderr_text;
  return nlohmann::json::parse(sim.stdout_text);
}

TEST(TraceFold, TenTimesLongerRunLeavesATraceUnderTenPercentLarger) {
  fs::path short_run = traced("fold-short", 200, "same", true);
  fs::path long_run = traced("fold-long", 2000, "same", true);
  fs::path exact_short = traced("fold-exact-short", 200, "same", false);
  fs::path exact_long = traced("fold-exact-long", 2000, "same", false);
  std::uint64_t folded_short = stream_bytes(short_run), folded_long = stream_bytes(long_run);
  std::uint64_t exact_long_bytes = stream_bytes(exact_long);
  EXPECT_LT(static_cast<double>(folded_long), 1.1 * static_cast<double>(folded_short))
      << folded_short << " bytes -> " << folded_long;
  EXPECT_LT(folded_long * 10, exact_long_bytes) << "exact: " << exact_long_bytes;
  expect_same_calls(exact_short, short_run);
  expect_same_calls(exact_long, long_run);
  // trace show says which times are means.
  auto shown = perfcast_run({"trace", "show", long_run.string(), "--json"});
  ASSERT_EQ(shown.exit_code, 0) << shown.stderr_text;
  auto figures = nlohmann::json::parse(shown.stdout_text);
  EXPECT_GT(figures["folded_events"].get<std::uint64_t>(), 2000u * kRanks * 4);
  shown = perfcast_run({"trace", "show", exact_long.string(), "--json"});
  EXPECT_EQ(nlohmann::json::parse(shown.stdout_text)["folded_events"], 0);
}

TEST(TraceFold, NestedLoopsAndALoopThatChangesKeepTheirCalls) {
  expect_same_calls(traced("fold-nested-exact", 150, "nested", false), traced("fold-nested", 150, "nested", true));
  fs::path exact = traced("fold-change-exact", 300, "change", false);
  fs::path folded = traced("fold-change", 300, "change", true);
  expect_same_calls(exact, folded);
  std::vector<Event> calls = mpi_events(folded, 0);
  std::uint64_t small = 0, large = 0;
  for (const Event& e : calls)
    if (e.kind == Kind::Isend) (e.bytes == 64 ? small : large) += 1;
  EXPECT_EQ(small, 150u);
  EXPECT_EQ(large, 150u);
}

// The replay of a folded trace against the exact trace of the same run. Each
// compute burst is its position's mean, so every rank's compute total is
// kept to rounding. What goes is each iteration's own imbalance: a rank late
// in one iteration and another in the next make the exact replay wait twice,
// the folded one not at all, so the folded replay is at most the exact one
// and, on this loaded host, within 20 % below it (2 to 7 % in the runs here).
TEST(TraceFold, ReplayKeepsTheRunsTime) {
  fs::path exact = traced("fold-replay-exact", 500, "same", false);
  fs::path folded = folded_copy(exact, "fold-replay-folded");
  EXPECT_LT(stream_bytes(folded) * 10, stream_bytes(exact));
  nlohmann::json a = simulated(exact), b = simulated(folded);
  ASSERT_EQ(a["ranks"].size(), b["ranks"].size());
  for (std::size_t r = 0; r < a["ranks"].size(); ++r) {
    double calc = a["ranks"][r]["calc_s"].get<double>();
    EXPECT_GT(calc, 500 * 1e-4);
    EXPECT_NEAR(b["ranks"][r]["calc_s"].get<double>(), calc, 1e-9 * calc) << "rank " << r;
  }
  double exact_s = a["predicted_time_s"].get<double>(), folded_s = b["predicted_time_s"].get<double>();
  EXPECT_LE(folded_s, exact_s * 1.01);
  EXPECT_GE(folded_s, exact_s * 0.8);
  expect_same_calls(exact, folded);
}

// A signature built from the folded trace finds the same phases, with the
// same weights and blocks, as one built from the exact trace.
TEST(TraceFold, SignatureFindsTheSamePhases) {
  fs::path exact = traced("fold-signature-exact", 300, "nested", false);
  fs::path folded = folded_copy(exact, "fold-signature-folded");
  auto phases = [&](const fs::path& trace) {
    fs::path out = trace.string() + ".sig";
    auto built = perfcast_run({"signature", "build", trace.string(), "-o", out.string(), "--json"});
    EXPECT_EQ(built.exit_code, 0) << built.stdout_text << built.stderr_text;
    nlohmann::json signature = nlohmann::json::parse(std::ifstream(out));
    nlohmann::json kept = nlohmann::json::array();
    // Listed by time: phases of about equal time may swap when times are means.
    std::vector<std::string> sorted;
    for (const auto& phase : signature["phases"])
      sorted.push_back(
          nlohmann::json{{"weight", phase["weight"]}, {"blocks", phase["blocks"]}, {"ticks", phase["ticks"]}}.dump());
    std::sort(sorted.begin(), sorted.end());
    for (const auto& phase : sorted) kept.push_back(nlohmann::json::parse(phase));
    return kept;
  };
  nlohmann::json a = phases(exact), b = phases(folded);
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a, b);
}

// A rank killed mid-loop (SIGKILL) leaves its whole blocks and the tail its
// last flush wrote: perfcast keeps them and says the rank was cut short.
TEST(TraceFold, ARankKilledMidLoopLeavesWhatItFlushed) {
  fs::path dir = scratch() / "fold-killed";
  measure::ProcessResult result;
  std::thread run([&] {
    std::vector<std::string> args = {"trace", "-o", dir.string(), "--fold-loops", "--"};
    for (const auto& word : testing::mpirun_command(2, {kProgram.string(), "100000000", "same"})) args.push_back(word);
    result = perfcast_run(args, std::chrono::seconds(120));
  });
  fs::path info = dir / "rank-000001.info.json", tail = dir / "rank-000001.pcev.partial.tail";
  std::int64_t pid = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  auto started = std::chrono::steady_clock::time_point{};
  while (std::chrono::steady_clock::now() < deadline) {
    std::error_code ec;
    if (pid == 0 && fs::exists(info, ec) && fs::exists(tail, ec)) {
      RankInfo parsed;
      std::ifstream in(info);
      std::stringstream text;
      text << in.rdbuf();
      if (parse_rank_info(text.str(), parsed) && parsed.pid > 0) {
        pid = parsed.pid;
        started = std::chrono::steady_clock::now();
      }
    }
    // A few flushes after the first tail: the loop is folded by then.
    if (pid > 0 && std::chrono::steady_clock::now() - started > std::chrono::seconds(1)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GT(pid, 0) << "rank 1 never wrote a tail";
  ASSERT_EQ(kill(static_cast<pid_t>(pid), SIGKILL), 0);
  run.join();

  EXPECT_NE(result.stdout_text.find("rank 1 was cut short"), std::string::npos) << result.stdout_text;
  TraceHeader header = read_trace_header(dir);
  const CutShort* cut = nullptr;
  for (const auto& c : header.cut_short)
    if (c.rank == 1) cut = &c;
  ASSERT_NE(cut, nullptr);
  EXPECT_GT(cut->events, 100u);
  EXPECT_NE(cut->stopped.find("tail file were kept"), std::string::npos) << cut->stopped;
  EXPECT_FALSE(fs::exists(tail));

  events::TraceJobSource job(dir);
  auto source = job.open_rank(1);
  Event e;
  std::uint64_t n = 0;
  while (source->next(e, 0)) {
    if (n > 0) {
      EXPECT_TRUE(e.kind == Kind::Compute || e.kind == Kind::Barrier || e.kind == Kind::Irecv ||
                  e.kind == Kind::Isend || e.kind == Kind::Waitall || e.kind == Kind::Allreduce)
          << events::kind_name(e.kind);
    }
    ++n;
  }
  EXPECT_EQ(n, cut->events);
  // Folded: a second of iterations in a few hundred bytes.
  EXPECT_LT(fs::file_size(dir / events::rank_file_name(1)), 4096u);
}

}  // namespace
}  // namespace perfcast::trace
