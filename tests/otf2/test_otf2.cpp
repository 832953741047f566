// OTF2 export and import (src/otf2): streams written as an archive with MPI's
// records and read back; a real 4-rank run traced, exported, imported and
// replayed; an archive written by another writer (the OTF2 Python bindings,
// as Score-P would write it) imported; archives that cannot be read or mapped
// refused by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/mpirun_command.h"
#include "events/convert.h"
#include "events/memory_source.h"
#include "events/text.h"
#include "otf2/otf2_export.h"
#include "otf2/otf2_import.h"
#include "otf2/otf2_mpi.h"
#include "perfcast_cli.h"
#include "scratch.h"
#include "support/error.h"
#include "support/process.h"

namespace perfcast::otf2 {
namespace {

namespace fs = std::filesystem;
using events::Event;
using events::Kind;
using testing::perfcast_run;
using testing::scratch;

std::vector<std::vector<Event>> read_job(const fs::path& path) {
  auto job = events::open_events(path);
  std::vector<std::vector<Event>> out(static_cast<std::size_t>(job->size()));
  for (int r = 0; r < job->size(); ++r) {
    auto source = job->open_rank(r);
    for (Event e; source->next(e, 0);) out[static_cast<std::size_t>(r)].push_back(e);
  }
  return out;
}

// Two streams hold the same calls when every field a replay reads is equal,
// apart from a split's color and key: OTF2 records the communicator a split
// made, by its members, and the import gives colors and keys that make it.
// An OTF2 archive of perfcast's counts whole nanoseconds: a compute gap (a
// difference of two clock readings in seconds) reads back within half a
// nanosecond; a call's duration (whole nanoseconds in a real trace) exactly,
// and a text stream's decimal one within a rounding.
constexpr double kHalfTick = 0.5e-9 + 1e-15;
void expect_same_streams(const std::vector<std::vector<Event>>& original,
                         const std::vector<std::vector<Event>>& imported, double duration_tolerance) {
  ASSERT_EQ(original.size(), imported.size());
  for (std::size_t r = 0; r < original.size(); ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    ASSERT_EQ(original[r].size(), imported[r].size());
    for (std::size_t i = 0; i < original[r].size(); ++i) {
      Event a = original[r][i], b = imported[r][i];
      SCOPED_TRACE("event " + std::to_string(i) + ": " + events::format_event(a) + " / " + events::format_event(b));
      if (a.kind == Kind::CommSplit) a.color = b.color = a.key = b.key = 0;
      a.site = b.site = 0;  // a call site has no OTF2 record
      EXPECT_NEAR(a.seconds, b.seconds, kHalfTick);
      if (duration_tolerance == 0)
        EXPECT_EQ(a.duration_s, b.duration_s);
      else
        EXPECT_NEAR(a.duration_s, b.duration_s, duration_tolerance);
      a.seconds = b.seconds;
      a.duration_s = b.duration_s;
      EXPECT_EQ(a, b);
    }
  }
}

// --- without MPI: hand-written streams --------------------------------------------------------

TEST(Otf2RoundTrip, EveryMappedKindReadsBackAsWritten) {
  const std::string text =
      "rank 0\ninit dur=1e-6\ncompute 0.002\nisend peer=1 tag=3 bytes=100 req=1 dur=2e-6\n"
      "irecv peer=1 tag=4 bytes=50 req=2 dur=1e-6\nwaitall req=1,2 dur=3e-6\n"
      "sendrecv peer=1 tag=5 bytes=8 source=1 tag2=6 bytes2=16 dur=4e-6\nallreduce bytes=8 bytes2=8 dur=5e-6\n"
      "comm_split color=0 key=1 new=2 dur=6e-6\nbcast bytes=64 bytes2=64 root=1 comm=2 dur=7e-6\n"
      "send peer=null dur=1e-9\nssend peer=1 tag=8 bytes=12 dur=1e-6\npcontrol tag=1 dur=0\n"
      "marker tag=7\ncompute 0.001\nreduce bytes=8 bytes2=8 root=0 dur=1e-6\ncomm_free comm=2 dur=1e-6\n"
      "finalize dur=1e-5\n"
      "rank 1\ninit dur=2e-6\nirecv peer=0 tag=3 bytes=100 req=1 dur=1e-6\nisend peer=0 tag=4 bytes=50 req=2 dur=1e-6\n"
      "wait req=1 dur=1e-6\ntest req=2 dur=1e-6\nsendrecv peer=0 tag=6 bytes=16 source=0 tag2=5 bytes2=8 dur=1e-6\n"
      "allreduce bytes=8 bytes2=8 dur=1e-6\ncomm_split color=0 key=0 new=2 dur=1e-6\n"
      "bcast bytes=64 bytes2=64 root=1 comm=2 dur=1e-6\nrecv peer=0 tag=8 bytes=12 dur=1e-6\n"
      "pcontrol tag=1 dur=0\nreduce bytes=8 bytes2=8 root=0 dur=1e-6\ncomm_free comm=2 dur=1e-6\nfinalize dur=1e-6\n";
  auto job = events::parse_text_job(text);
  const fs::path archive = scratch() / "kinds.otf2dir";
  fs::remove_all(archive);
  Otf2Export written = export_otf2(*job, archive, "every kind");
  EXPECT_EQ(written.ranks, 2);
  EXPECT_EQ(written.messages, 5u);  // isend, sendrecv, ssend on rank 0; isend, sendrecv on rank 1; none to null
  EXPECT_EQ(written.communicators, 3);
  const fs::path trace = scratch() / "kinds-imported";
  fs::remove_all(trace);
  Otf2Import read = import_otf2(written.anchor, trace);
  EXPECT_EQ(read.ranks, 2);
  EXPECT_EQ(read.ticks_per_second, 1000000000u);
  auto original_job = events::parse_text_job(text);
  std::vector<std::vector<Event>> original(2);
  for (int r = 0; r < 2; ++r) {
    auto source = original_job->open_rank(r);
    for (Event e; source->next(e, 0);) original[static_cast<std::size_t>(r)].push_back(e);
  }
  expect_same_streams(original, read_job(trace), 1e-15);
}

TEST(Otf2Sizes, CollectiveSizesAreScorePsTotalsAndReadBackAsBuffers) {
  // Score-P's convention: a 400-byte broadcast on 4 ranks sends 1600 bytes from
  // the root (a block to each member, itself too) and receives 400 everywhere.
  EXPECT_EQ(scorep_sizes(Kind::Bcast, 400, 400, 4, 0, 0).sent, 1600u);
  EXPECT_EQ(scorep_sizes(Kind::Bcast, 400, 400, 4, 2, 0).sent, 0u);
  EXPECT_EQ(scorep_sizes(Kind::Bcast, 400, 400, 4, 2, 0).received, 400u);
  EXPECT_EQ(scorep_sizes(Kind::Gather, 8, 8, 4, 1, 1).received, 32u);
  EXPECT_EQ(scorep_sizes(Kind::Allreduce, 8, 8, 4, 3, 0).sent, 32u);
  EXPECT_EQ(scorep_sizes(Kind::Scan, 8, 8, 4, 1, 0).sent, 24u);
  EXPECT_EQ(scorep_sizes(Kind::Scan, 8, 8, 4, 1, 0).received, 16u);
  for (Kind kind : {Kind::Bcast, Kind::Reduce, Kind::Allreduce, Kind::Allgather, Kind::Alltoall, Kind::Scan,
                    Kind::Exscan, Kind::Barrier})
    for (std::uint64_t me = 0; me < 4; ++me) {
      SCOPED_TRACE(std::string(events::kind_name(kind)) + " rank " + std::to_string(me));
      const std::uint64_t block = kind == Kind::Barrier ? 0 : 24;
      const CollectiveSizes scorep = scorep_sizes(kind, block, block, 4, me, 2);
      const CollectiveSizes back = perfcast_sizes(kind, scorep.sent, scorep.received, 4, me, 2);
      EXPECT_EQ(back.sent, block);
      EXPECT_EQ(back.received, block);
    }
  EXPECT_THROW(perfcast_sizes(Kind::Allreduce, 10, 10, 4, 0, 0), UserError);
}

TEST(Otf2RoundTrip, ANonblockingCallToProcNullReadsBackAsItsBlockingForm) {
  // OTF2 has no record of a nonblocking call to MPI_PROC_NULL, nor of its
  // completion (Score-P writes none): it comes back as the blocking call,
  // which completes at once, and the completion no longer lists its request.
  auto job = events::parse_text_job(
      "rank 0\nisend peer=null tag=1 bytes=8 req=1 dur=1e-6\nirecv peer=null tag=1 bytes=8 req=2 dur=1e-6\n"
      "isend peer=1 tag=2 bytes=8 req=3 dur=1e-6\nwaitall req=1,2,3 dur=1e-6\n"
      "rank 1\nrecv peer=0 tag=2 bytes=8 dur=1e-6\n");
  const fs::path archive = scratch() / "proc-null.otf2dir", trace = scratch() / "proc-null-imported";
  fs::remove_all(archive);
  fs::remove_all(trace);
  import_otf2(export_otf2(*job, archive, "proc null").anchor, trace);
  const auto streams = read_job(trace);
  ASSERT_EQ(streams[0].size(), 4u);
  EXPECT_EQ(streams[0][0].kind, Kind::Send);
  EXPECT_EQ(streams[0][0].peer, events::kProcNull);
  EXPECT_EQ(streams[0][1].kind, Kind::Recv);
  EXPECT_EQ(streams[0][1].peer, events::kProcNull);
  EXPECT_EQ(streams[0][2].kind, Kind::Isend);
  EXPECT_EQ(streams[0][3].kind, Kind::Waitall);
  EXPECT_EQ(streams[0][3].requests, (std::vector<std::uint64_t>{streams[0][2].request}));
  auto sim = perfcast_run({"simulate", trace.string(), "--machine", "generic-cluster", "--json"});
  ASSERT_EQ(sim.exit_code, 0) << sim.stderr_text;
  EXPECT_EQ(nlohmann::json::parse(sim.stdout_text)["warnings"]["incomplete_requests"], 0) << sim.stdout_text;
}

void expect_export_refused(const std::string& text, const std::string& says) {
  auto job = events::parse_text_job(text);
  const fs::path archive = scratch() / "refused.otf2dir";
  fs::remove_all(archive);
  try {
    export_otf2(*job, archive, "refused");
    ADD_FAILURE() << "exported: " << text;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(archive)) << "a refused export leaves no archive";
}

TEST(Otf2Export, RefusesWhatOtf2CannotHoldNamingRankAndEvent) {
  expect_export_refused("rank 0\ninit dur=0\nprobe peer=1 tag=2 dur=0\nrank 1\n",
                        "rank 0, event 1 (probe): cannot be written as OTF2: OTF2 has no record of a probe");
  expect_export_refused("rank 0\ncompute flops=1e9\nrank 1\n",
                        "rank 0, event 0 (compute): cannot be written as "
                        "OTF2: a burst without measured seconds");
  expect_export_refused("rank 0\nbarrier\nrank 1\nbarrier\n", "a call without a recorded duration");
  expect_export_refused("rank 0\nrecv peer=any bytes=4 dur=0\nrank 1\nsend peer=0 bytes=4 dur=0\n",
                        "rank 0, event 0 (recv): cannot be written as OTF2: its source is MPI_ANY_SOURCE");
  expect_export_refused(
      "rank 0\nalltoallv counts=1,2 counts2=1,2 dur=0\nrank 1\nalltoallv counts=1,2 "
      "counts2=1,2 dur=0\n",
      "per-peer counts alltoallv has");
  expect_export_refused("rank 0\nwait req=4 dur=0\nrank 1\n", "request 4, which no earlier call made");
}

// --- a real run: trace, export, import, replay ------------------------------------------------

constexpr int kRanks = 4;
constexpr int kSteps = 20;

int count_lines_starting(const std::string& text, const std::string& head) {
  std::istringstream lines(text);
  int n = 0;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(head, 0) == 0) ++n;
  return n;
}

nlohmann::json perfcast_json(const std::vector<std::string>& args) {
  auto run = perfcast_run(args, std::chrono::seconds(120));
  EXPECT_EQ(run.exit_code, 0) << run.stdout_text << run.stderr_text;
  return run.exit_code == 0 ? nlohmann::json::parse(run.stdout_text) : nlohmann::json{};
}

TEST(Otf2RealRun, AHaloRunExportedAndImportedReplaysAsTheOriginal) {
  const fs::path dir = scratch() / "halo";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path original = dir / "trace", archive = dir / "otf2", imported = dir / "imported";
  std::vector<std::string> args = {"trace", "-o", original.string(), "--"};
  for (const auto& a : testing::mpirun_command(
           kRanks, {(fs::path(OTF2_PROGRAMS) / "otf2_halo_subcomm").string(), std::to_string(kSteps), "2048", "0.002"}))
    args.push_back(a);
  auto traced = perfcast_run(args, std::chrono::seconds(180));
  ASSERT_EQ(traced.exit_code, 0) << traced.stdout_text << traced.stderr_text;

  auto exported = perfcast_run({"trace", "export", original.string(), "--otf2", archive.string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.stdout_text << exported.stderr_text;
  const fs::path anchor = archive / "traces.otf2";
  ASSERT_TRUE(fs::exists(anchor));

  // otf2-print (Debian's otf2-tools) reads the messages back: per step every rank
  // posts two MpiIsend and completes two MpiIrecv; every rank makes 20 allreduces,
  // 20 broadcasts, a split and a free; rank 0 sends one message to rank 3.
  if (fs::exists("/usr/bin/otf2-print")) {
    auto printed = measure::run_process({"/usr/bin/otf2-print", anchor.string()}, std::chrono::seconds(120));
    ASSERT_EQ(printed.exit_code, 0) << printed.stderr_text;
    EXPECT_EQ(printed.stderr_text.find("warning"), std::string::npos) << printed.stderr_text;
    EXPECT_EQ(count_lines_starting(printed.stdout_text, "MPI_ISEND "), kRanks * kSteps * 2);
    EXPECT_EQ(count_lines_starting(printed.stdout_text, "MPI_ISEND_COMPLETE "), kRanks * kSteps * 2);
    EXPECT_EQ(count_lines_starting(printed.stdout_text, "MPI_IRECV_REQUEST "), kRanks * kSteps * 2);
    EXPECT_EQ(count_lines_starting(printed.stdout_text, "MPI_IRECV "), kRanks * kSteps * 2);
    EXPECT_EQ(count_lines_starting(printed.stdout_text, "MPI_SEND "), 1);
    EXPECT_EQ(count_lines_starting(printed.stdout_text, "MPI_RECV "), 1);
    EXPECT_EQ(count_lines_starting(printed.stdout_text, "MPI_COLLECTIVE_END "), kRanks * (2 * kSteps + 2));
    EXPECT_EQ(count_lines_starting(printed.stdout_text, "COMM_CREATE "), kRanks);
    EXPECT_NE(printed.stdout_text.find("Region: \"MPI_Isend\""), std::string::npos);
  }

  auto read_back = perfcast_run({"trace", "import", anchor.string(), "-o", imported.string()});
  ASSERT_EQ(read_back.exit_code, 0) << read_back.stdout_text << read_back.stderr_text;
  const auto original_streams = read_job(original);
  expect_same_streams(original_streams, read_job(imported), 0);
  std::size_t most_events = 0;
  for (const auto& stream : original_streams) most_events = std::max(most_events, stream.size());

  // The replays agree: the same calls and durations, every burst within half a
  // nanosecond, so a rank's end within half a nanosecond per event.
  const double tolerance = kHalfTick * static_cast<double>(most_events);
  for (const std::string machine : {"generic-cluster", "polus"}) {
    SCOPED_TRACE(machine);
    auto a = perfcast_json({"simulate", original.string(), "--machine", machine, "--json"});
    auto b = perfcast_json({"simulate", imported.string(), "--machine", machine, "--json"});
    ASSERT_FALSE(a.is_null());
    ASSERT_FALSE(b.is_null());
    const double ta = a["predicted_time_s"].get<double>(), tb = b["predicted_time_s"].get<double>();
    EXPECT_GT(ta, kSteps * 0.002);
    EXPECT_NEAR(tb, ta, tolerance);
    ASSERT_EQ(a["ranks"].size(), b["ranks"].size());
    for (std::size_t r = 0; r < a["ranks"].size(); ++r)
      EXPECT_NEAR(b["ranks"][r]["end_s"].get<double>(), a["ranks"][r]["end_s"].get<double>(), tolerance);
  }
  auto show_a = perfcast_json({"trace", "show", original.string(), "--json"});
  auto show_b = perfcast_json({"trace", "show", imported.string(), "--json"});
  ASSERT_EQ(show_a["ranks"].size(), static_cast<std::size_t>(kRanks));
  ASSERT_EQ(show_b["ranks"].size(), static_cast<std::size_t>(kRanks));
  for (int r = 0; r < kRanks; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const auto &ra = show_a["ranks"][static_cast<std::size_t>(r)], &rb = show_b["ranks"][static_cast<std::size_t>(r)];
    EXPECT_EQ(ra["calls"], rb["calls"]);
    EXPECT_EQ(ra["bytes"], rb["bytes"]);
    EXPECT_NEAR(rb["compute_s"].get<double>(), ra["compute_s"].get<double>(), tolerance);
    // init, split, per step 4 + waitall + allreduce + bcast, free, finalize; ranks 0 and 3 one more.
    EXPECT_EQ(rb["calls"].get<int>(), 4 + 7 * kSteps + (r == 0 || r == kRanks - 1 ? 1 : 0));
  }
}

// --- an archive written by another writer -----------------------------------------------------

// Writes the archive of write_mpi_archive.py's VARIANT; empty when the OTF2
// Python bindings are not installed.
fs::path python_archive(const std::string& variant) {
  const fs::path dir = scratch() / ("python-" + variant);
  fs::remove_all(dir);
  auto run =
      measure::run_process({(fs::path(OTF2_TEST_SOURCE_DIR) / "write_mpi_archive.py").string(), dir.string(), variant},
                           std::chrono::seconds(60));
  if (run.exit_code != 0 && run.stderr_text.find("No module named 'otf2'") != std::string::npos) return {};
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  return dir / "traces.otf2";
}

TEST(Otf2Import, AnArchiveOfAnotherWriterGivesItsCallsBytesAndComputeGaps) {
  const fs::path anchor = python_archive("plain");
  if (anchor.empty()) GTEST_SKIP() << "python3-otf2 is not installed";
  const fs::path trace = scratch() / "python-plain-trace";
  fs::remove_all(trace);
  auto run = perfcast_run({"trace", "import", anchor.string(), "-o", trace.string()});
  ASSERT_EQ(run.exit_code, 0) << run.stdout_text << run.stderr_text;
  EXPECT_NE(run.stdout_text.find("read as compute: MPI_Comm_rank (1 call)"), std::string::npos) << run.stdout_text;
  EXPECT_NE(run.stdout_text.find("read as compute: kernel (1 call)"), std::string::npos) << run.stdout_text;
  // The archive's clock counts microseconds; the gaps are the ticks between one
  // MPI region's Leave and the next one's Enter (user regions and MPI_Comm_rank inside them).
  const std::string expected =
      "rank 0\ninit dur=1e-4\ncompute 9e-4\nsend peer=1 tag=5 bytes=1024 dur=2e-4\ncompute 1.8e-3\n"
      "allreduce bytes=8 bytes2=8 dur=5e-4\ncompute 5e-4\nfinalize dur=1e-4\n"
      "rank 1\ninit dur=1.5e-4\ncompute 3.5e-4\nrecv peer=0 tag=5 bytes=1024 dur=8e-4\ncompute 1.8e-3\n"
      "allreduce bytes=8 bytes2=8 dur=4e-4\ncompute 5e-4\nfinalize dur=5e-5\n";
  auto want_job = events::parse_text_job(expected);
  const auto got = read_job(trace);
  ASSERT_EQ(got.size(), 2u);
  for (int r = 0; r < 2; ++r) {
    auto source = want_job->open_rank(r);
    std::size_t i = 0;
    for (Event want; source->next(want, 0); ++i) {
      SCOPED_TRACE("rank " + std::to_string(r) + " event " + std::to_string(i));
      ASSERT_LT(i, got[static_cast<std::size_t>(r)].size());
      const Event& e = got[static_cast<std::size_t>(r)][i];
      EXPECT_EQ(e.kind, want.kind) << events::format_event(e);
      EXPECT_EQ(e.peer, want.peer);
      EXPECT_EQ(e.tag, want.tag);
      EXPECT_EQ(e.bytes, want.bytes);
      EXPECT_EQ(e.bytes2, want.bytes2);
      EXPECT_NEAR(e.seconds, want.seconds, 1e-12);
      EXPECT_NEAR(e.duration_s, want.duration_s, 1e-12);
    }
    EXPECT_EQ(i, got[static_cast<std::size_t>(r)].size());
  }
  auto show = perfcast_json({"trace", "show", trace.string(), "--json"});
  EXPECT_EQ(show["ranks"][0]["calls"], 4);
  EXPECT_EQ(show["ranks"][0]["bytes"], 1024 + 8);
  EXPECT_EQ(show["ranks"][1]["bytes"], 8);
  auto sim = perfcast_json({"simulate", trace.string(), "--machine", "generic-cluster", "--json"});
  EXPECT_GT(sim.value("predicted_time_s", 0.0), 0.0009 + 0.0018 + 0.0005);
}

void expect_import_refused(const fs::path& anchor, const std::vector<std::string>& says) {
  const fs::path trace = scratch() / "refused-trace";
  fs::remove_all(trace);
  auto run = perfcast_run({"trace", "import", anchor.string(), "-o", trace.string()});
  EXPECT_NE(run.exit_code, 0) << run.stdout_text;
  for (const auto& s : says) EXPECT_NE(run.stderr_text.find(s), std::string::npos) << run.stderr_text;
  EXPECT_FALSE(fs::exists(trace)) << "a refused import leaves no trace";
}

TEST(Otf2Import, RefusesThreadsOpenMpAndRmaByNameWithTheLocation) {
  const fs::path openmp = python_archive("openmp");
  if (openmp.empty()) GTEST_SKIP() << "python3-otf2 is not installed";
  expect_import_refused(openmp, {openmp.string(), "location 0", "region !$omp parallel is of paradigm OpenMP"});
  const fs::path rma = python_archive("rma");
  expect_import_refused(rma,
                        {rma.string(), "location 1", "a RmaPut record: one-sided MPI (RMA) has no perfcast event"});
  const fs::path thread = python_archive("thread");
  expect_import_refused(thread, {thread.string(), "location 2 (worker thread) has 2 events but is no MPI rank's"});
}

TEST(Otf2Import, ATruncatedOrMissingArchiveIsAClearErrorNamingTheFile) {
  const fs::path anchor = python_archive("plain");
  if (anchor.empty()) GTEST_SKIP() << "python3-otf2 is not installed";
  const fs::path events = anchor.parent_path() / "traces" / "1.evt";
  ASSERT_TRUE(fs::exists(events));
  fs::resize_file(events, fs::file_size(events) / 2);
  expect_import_refused(anchor, {"cannot read the OTF2 archive " + anchor.string()});
  const fs::path definitions = anchor.parent_path() / "traces.def";
  fs::resize_file(definitions, fs::file_size(definitions) / 3);
  expect_import_refused(anchor, {"cannot read the OTF2 archive " + anchor.string()});
  expect_import_refused(scratch() / "no-such-archive" / "traces.otf2",
                        {(scratch() / "no-such-archive" / "traces.otf2").string(), "is not an OTF2 archive's anchor"});
}

}  // namespace
}  // namespace perfcast::otf2
