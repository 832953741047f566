// The live skeleton runtime: skeletons built with `perfcast cc` (tests/skeleton/
// skeletons/*.c) run as fibers under a small test driver (driver.h) standing in
// for the engine; the checks are on the events they produce, the data MPI_*
// calls move, the simulated clock, and the memory 32 768 ranks take.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "sim/skeleton/live_job.h"
#include "sim/skeleton/stack_region.h"
#include "skeleton/driver.h"
#include "support/error.h"
#include "support/toolchain.h"

namespace {

using perfcast::UserError;
using perfcast::events::Event;
using perfcast::events::Kind;
using perfcast::sim::skeleton::LiveJobSource;
using perfcast::sim::skeleton::LiveOptions;
using perfcast::sim::skeleton::open_live_skeleton;
using perfcast::sim::skeleton::process_memory;
using perfcast::test::TestDriver;

std::string skeleton(const char* name) { return std::string(SKELETON_DIR) + "/" + name; }

std::vector<Event> without_compute_and_markers(const std::vector<Event>& in) {
  std::vector<Event> out;
  for (const auto& e : in) {
    if (e.kind != Kind::Compute && e.kind != Kind::Marker) out.push_back(e);
  }
  return out;
}

TEST(Skeleton, BasicEventsMatchTheCode) {
  auto job = open_live_skeleton(skeleton("basic"), {}, 4, {});
  TestDriver driver(*job);
  driver.run();
  for (int r = 0; r < 4; ++r) EXPECT_EQ(job->exit_code(r), 0) << "rank " << r;

  // Rank 1: left 0, right 2.
  const auto& ev = driver.events(1);
  std::vector<Kind> kinds;
  for (const auto& e : ev) kinds.push_back(e.kind);
  std::vector<Kind> expected = {Kind::Init,    Kind::Compute, Kind::Sendrecv, Kind::Irecv,   Kind::Isend,
                                Kind::Waitall, Kind::Irecv,   Kind::Isend,    Kind::Waitall, Kind::Allreduce,
                                Kind::Compute, Kind::Marker,  Kind::Compute,  Kind::Marker,  Kind::Bcast,
                                Kind::Compute, Kind::Finalize};
  ASSERT_EQ(kinds, expected);
  EXPECT_DOUBLE_EQ(ev[1].seconds, 0.25);
  // LMPI_Sendrecv: peers, tags, 1000 doubles each way, no data attached.
  EXPECT_EQ(ev[2].peer, 2);
  EXPECT_EQ(ev[2].root, 0);
  EXPECT_EQ(ev[2].tag, 7);
  EXPECT_EQ(ev[2].tag2, 7);
  EXPECT_EQ(ev[2].bytes, 8000u);
  EXPECT_EQ(ev[2].bytes2, 8000u);
  EXPECT_EQ(ev[2].live, nullptr);
  // MPI_Irecv/Isend of one int; the waitall lists both requests in order.
  EXPECT_EQ(ev[3].peer, 0);
  EXPECT_EQ(ev[3].bytes, 4u);
  EXPECT_EQ(ev[4].peer, 2);
  EXPECT_EQ(ev[4].tag, 3);
  EXPECT_EQ(ev[5].requests, (std::vector<std::uint64_t>{ev[3].request, ev[4].request}));
  EXPECT_NE(ev[3].request, ev[4].request);
  // Requests are never reused.
  EXPECT_NE(ev[6].request, ev[3].request);
  EXPECT_EQ(ev[9].bytes, 8u);
  // The allreduce's sum (1+2+3+4) steered a 1 s burst, and was put in a marker.
  EXPECT_DOUBLE_EQ(ev[10].seconds, 1.0);
  EXPECT_EQ(ev[11].tag, 10);
  // MPI_Wtime: 0.25 + 1.0 + 0.5 s of compute on every rank, in ms.
  EXPECT_DOUBLE_EQ(ev[12].seconds, 0.5);
  EXPECT_EQ(ev[13].tag, 1750);
  // Size scale 8 on LMPI_Bcast of 10 doubles; time scale 3 on counts.
  EXPECT_EQ(ev[14].bytes, 640u);
  EXPECT_LT(ev[15].seconds, 0);
  EXPECT_DOUBLE_EQ(ev[15].flops, 3e6);
  EXPECT_DOUBLE_EQ(ev[15].bytes_moved, 6e6);
}

TEST(Skeleton, LmpiCarriesNoDataMpiDoes) {
  auto job = open_live_skeleton(skeleton("basic"), {}, 3, {});
  TestDriver driver(*job);
  driver.run();
  for (int r = 0; r < 3; ++r) {
    const auto& ev = driver.events(r);
    // Blocking LMPI_* calls attach nothing; MPI_* calls attach their data.
    EXPECT_EQ(ev[2].live, nullptr);
    EXPECT_NE(ev[3].live, nullptr);
    EXPECT_NE(ev[9].live, nullptr);
    EXPECT_EQ(ev[14].live, nullptr);
    EXPECT_EQ(job->exit_code(r), 0) << "rank " << r << " (12: LMPI_Irecv wrote into its buffer)";
  }
}

TEST(Skeleton, CollectivesMoveTheRightData) {
  for (int n : {1, 2, 3, 8, 13}) {
    auto job = open_live_skeleton(skeleton("collectives"), {}, n, {});
    TestDriver driver(*job);
    driver.run();
    for (int r = 0; r < n; ++r) {
      // Exit codes name the failed check in collectives.c; the last rank calls exit(3).
      EXPECT_EQ(job->exit_code(r), r == n - 1 ? 3 : 0) << n << " ranks, rank " << r;
    }
  }
}

TEST(Skeleton, CommunicatorEventsCarryHandles) {
  auto job = open_live_skeleton(skeleton("collectives"), {}, 4, {});
  TestDriver driver(*job);
  driver.run();
  auto ev = without_compute_and_markers(driver.events(2));
  const Event* split = nullptr;
  const Event* cart = nullptr;
  const Event* freed = nullptr;
  for (const auto& e : ev) {
    if (e.kind == Kind::CommSplit) split = &e;
    if (e.kind == Kind::CartCreate) cart = &e;
    if (e.kind == Kind::CommFree) freed = &e;
  }
  ASSERT_TRUE(split && cart && freed);
  EXPECT_EQ(split->color, 0);
  EXPECT_EQ(split->key, -2);
  EXPECT_EQ(split->new_comm, 2);
  EXPECT_EQ(freed->comm, 2);
  EXPECT_EQ(cart->new_comm, 3);  // handles are never reused
}

TEST(Skeleton, ErrorsNameRankAndCall) {
  auto job = open_live_skeleton(skeleton("errors"), {}, 3, {});
  TestDriver driver(*job);
  try {
    driver.run();
    FAIL() << "no error";
  } catch (const UserError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("rank 1: LMPI_Send: destination 99"), std::string::npos) << what;
  }
}

TEST(Skeleton, ErrorsNameTheMpiCallMadeNotItsTwin) {
  auto job = open_live_skeleton(skeleton("errors"), {"mpi"}, 3, {});
  TestDriver driver(*job);
  try {
    driver.run();
    FAIL() << "no error";
  } catch (const UserError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("rank 1: MPI_Send: destination 99"), std::string::npos) << what;
  }
}

TEST(Skeleton, NullRequestsAndCountsAreRefusedWithErrorCodes) {
  // refusals.c exits with the number of the first check that failed; the
  // refused calls reach the engine as no event.
  auto job = open_live_skeleton(skeleton("refusals"), {}, 2, {});
  TestDriver driver(*job);
  driver.run();
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(job->exit_code(r), 0) << "rank " << r;
    std::vector<Kind> kinds;
    for (const auto& e : driver.events(r)) kinds.push_back(e.kind);
    EXPECT_EQ(kinds, (std::vector<Kind>{Kind::Init, Kind::Finalize})) << "rank " << r;
  }
}

TEST(Skeleton, WarnsAboutSharedWritableGlobals) {
  auto job = open_live_skeleton(skeleton("globals"), {}, 2, {});
  std::string all;
  for (const auto& w : job->warnings()) all += w + "\n";
  EXPECT_NE(all.find("iteration_count (.data, 4 bytes)"), std::string::npos) << all;
  EXPECT_NE(all.find("halo_buffer (.bss, 1024 bytes)"), std::string::npos) << all;
  EXPECT_NE(all.find("calls_so_far"), std::string::npos) << all;
  EXPECT_EQ(all.find("pi ("), std::string::npos) << all;
  EXPECT_EQ(all.find("completed"), std::string::npos) << all;
  EXPECT_EQ(job->warnings().size(), 3u) << all;
  TestDriver driver(*job);
  driver.run();
  EXPECT_EQ(job->exit_code(0), 0);
  EXPECT_TRUE(open_live_skeleton(skeleton("basic"), {}, 2, {})->warnings().empty());
}

TEST(Skeleton, RefusesExecutablesWithAHint) {
  try {
    open_live_skeleton("/usr/bin/true", {}, 2, {});
    FAIL() << "loaded an executable";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("executable"), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("perfcast cc"), std::string::npos);
  }
}

TEST(Skeleton, LiveRankCostStaysUnderEightKilobytes) {
  // All ranks suspended inside their first MPI call at once: the steady state
  // of a large run. Counts what the runtime adds per rank (stack pages touched
  // + rank state + live ops), measured from VmRSS. Runs before the scale test so
  // that no freed heap hides the cost.
  constexpr int kRanks = 32768;
  auto job = open_live_skeleton(skeleton("stencil"), {"3"}, kRanks, {});
  std::vector<std::unique_ptr<perfcast::events::RankSource>> ranks;
  ranks.reserve(kRanks);
  std::vector<Event> current(1);
  auto before = process_memory();
  for (int r = 0; r < kRanks; ++r) ranks.push_back(job->open_rank(r));
  for (int r = 0; r < kRanks; ++r) ASSERT_TRUE(ranks[r]->next(current[0], 0));  // MPI_Init
  for (int r = 0; r < kRanks; ++r) ASSERT_TRUE(ranks[r]->next(current[0], 0));  // compute
  for (int r = 0; r < kRanks; ++r) ASSERT_TRUE(ranks[r]->next(current[0], 0));  // LMPI_Irecv
  auto after = process_memory();
  double per_rank = static_cast<double>(after.rss_bytes - before.rss_bytes) / kRanks;
  std::printf(
      "[ memory   ] %d live ranks: %.0f bytes resident per rank (stack pages, rank state, requests); %zu mappings\n",
      kRanks, per_rank, after.mappings);
  EXPECT_LT(per_rank, 8192);
  EXPECT_LT(after.mappings, before.mappings + 64);
}

TEST(Skeleton, ThirtyTwoThousandRanksInOneProcess) {
  constexpr int kRanks = 32768;
  auto before = process_memory();
  auto start = std::chrono::steady_clock::now();
  auto job = open_live_skeleton(skeleton("stencil"), {"3"}, kRanks, {});
  TestDriver driver(*job, /*record=*/false);
  // Start every fiber before measuring: all ranks live at once, as in a real run.
  driver.run();
  double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto after = process_memory();
  for (int r = 0; r < kRanks; r += 4097) EXPECT_EQ(job->exit_code(r), 0);
  double per_rank = static_cast<double>(after.peak_rss_bytes - before.rss_bytes) / kRanks;
  std::printf(
      "[ scale    ] %d ranks, %zu events in %.2f s (%.0f events/s, %.0f fibers/s); peak RSS growth %.0f bytes/rank "
      "(VmHWM %.1f MiB); mappings %zu -> %zu; guard pages: %s\n",
      kRanks, driver.event_count(), wall_s, driver.event_count() / wall_s, kRanks / wall_s, per_rank,
      after.peak_rss_bytes / 1048576.0, before.mappings, after.mappings, job->stacks().guard_kind());
  // The driver's own per-rank state (maps, an Event, queues) is counted too.
  EXPECT_LT(after.mappings, before.mappings + 64);
}

std::string run(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string out;
  char buf[512];
  while (pipe && fgets(buf, sizeof buf, pipe.get())) out += buf;
  return out;
}

TEST(PerfcastCc, ShowsTheCompilerCommand) {
  std::string perfcast = std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast";
  std::string c = run(perfcast + " cc --show skel.c -o skel -O2");
  EXPECT_EQ(c.rfind(std::string(perfcast::toolchain::kClang) + " ", 0), 0u) << c;
  EXPECT_NE(c.find("-I" PERFCAST_SOURCE_DIR "/include/perfcast "), std::string::npos) << c;
  EXPECT_NE(c.find(" -shared "), std::string::npos) << c;
  EXPECT_NE(c.find(" -fPIC "), std::string::npos) << c;
  EXPECT_NE(c.find("-Wl,--wrap=exit"), std::string::npos) << c;
  EXPECT_NE(c.find("skel.c -o skel -O2"), std::string::npos) << c;
  std::string cxx = run(perfcast + " cc --show -c skel.cpp");
  EXPECT_EQ(cxx.rfind(std::string(perfcast::toolchain::kClangxx) + " ", 0), 0u) << cxx;
  EXPECT_EQ(cxx.find("-shared"), std::string::npos) << "compile only: " << cxx;
  std::string cflags = run(perfcast + " cc --cflags");
  EXPECT_NE(cflags.find("-fPIC"), std::string::npos);
  EXPECT_EQ(cflags.find("-shared"), std::string::npos);
  EXPECT_NE(run(perfcast + " cc --ldflags").find("-shared"), std::string::npos);
}

}  // namespace
