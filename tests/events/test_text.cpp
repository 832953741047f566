// The text form of event streams (src/events/text.h) and conversion to and
// from traces (src/events/convert.h), and the figures of `events stats`.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "event_samples.h"
#include "events/convert.h"
#include "events/stats.h"
#include "events/text.h"
#include "events/trace.h"
#include "support/error.h"

namespace {

namespace fs = std::filesystem;
using namespace perfcast::events;
using perfcast::UserError;
using perfcast::events::testing::every_field;
using perfcast::events::testing::RandomEvents;

class TextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fmt::format("perfcast-test-events-text-{}-{}", ::getpid(),
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

std::vector<std::vector<Event>> read_all(JobSource& job) {
  std::vector<std::vector<Event>> out(static_cast<std::size_t>(job.size()));
  for (int r = 0; r < job.size(); ++r) {
    auto source = job.open_rank(r);
    Event e;
    while (source->next(e, 0)) out[static_cast<std::size_t>(r)].push_back(e);
  }
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

std::string text_of(JobSource& job) {
  std::ostringstream out;
  write_text(job, out);
  return out.str();
}

const char* kExample = R"(# perfcast events 1
rank 0
compute 1.5e-3
compute flops=2e6 bytes=1.6e7
isend peer=1 tag=7 bytes=65536 req=1
irecv peer=any tag=any bytes=65536 req=2
waitall req=1,2
allreduce bytes=8 bytes2=8
alltoallv counts=8,16,0 counts2=8,8,8
comm_split color=0 key=3 new=2
rank 1
recv peer=0 tag=7 bytes=65536 comm=2 site=42  # a comment
sendrecv peer=null source=0 tag=1 tag2=any bytes=8 bytes2=16
bcast root=3 bytes=4
comm_split color=undefined key=1
marker tag=5
)";

TEST(Text, ReadsTheDocumentedExample) {
  auto job = parse_text_job(kExample);
  auto events = read_all(*job);
  ASSERT_EQ(events.size(), 2u);
  ASSERT_EQ(events[0].size(), 8u);
  ASSERT_EQ(events[1].size(), 5u);
  EXPECT_EQ(events[0][0].kind, Kind::Compute);
  EXPECT_EQ(events[0][0].seconds, 1.5e-3);
  EXPECT_EQ(events[0][1].seconds, -1);
  EXPECT_EQ(events[0][1].flops, 2e6);
  EXPECT_EQ(events[0][1].bytes_moved, 1.6e7);
  EXPECT_EQ(events[0][1].bytes, 0u);
  EXPECT_EQ(events[0][2].peer, 1);
  EXPECT_EQ(events[0][2].request, 1u);
  EXPECT_EQ(events[0][3].peer, kAnySource);
  EXPECT_EQ(events[0][3].tag, kAnyTag);
  EXPECT_EQ(events[0][4].requests, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(events[0][4].request, 0u);
  EXPECT_EQ(events[0][5].bytes2, 8u);
  EXPECT_EQ(events[0][6].counts, (std::vector<std::uint64_t>{8, 16, 0}));
  EXPECT_EQ(events[0][7].new_comm, 2);
  EXPECT_EQ(events[0][7].key, 3);
  EXPECT_EQ(events[1][0].comm, 2);
  EXPECT_EQ(events[1][0].site, 42u);
  EXPECT_EQ(events[1][1].peer, kProcNull);
  EXPECT_EQ(events[1][1].root, 0);
  EXPECT_EQ(events[1][1].tag2, kAnyTag);
  EXPECT_EQ(events[1][2].root, 3);
  EXPECT_EQ(events[1][3].color, kUndefinedColor);
  EXPECT_EQ(events[1][4].tag, 5);
}

TEST(Text, WritesTheCanonicalForm) {
  auto job = parse_text_job(kExample);
  std::string text = text_of(*job);
  EXPECT_EQ(text, R"(# perfcast events 1
rank 0
compute 0.0015
compute flops=2000000 bytes=16000000
isend peer=1 tag=7 bytes=65536 req=1
irecv peer=any tag=any bytes=65536 req=2
waitall req=1,2
allreduce bytes=8 bytes2=8
alltoallv counts=8,16,0 counts2=8,8,8
comm_split key=3 new=2
rank 1
recv peer=0 tag=7 bytes=65536 comm=2 site=42
sendrecv peer=null tag=1 tag2=any bytes=8 bytes2=16
bcast root=3 bytes=4
comm_split color=undefined key=1
marker tag=5
)");
}

// Every kind with every field set: text -> trace -> text gives the same text
// and the same events.
TEST_F(TextTest, EveryKindWithEveryFieldRoundTrips) {
  std::vector<Event> events;
  for (int k = 0; k < kKindCount; ++k) {
    events.push_back(every_field(static_cast<Kind>(k)));
    Event special = every_field(static_cast<Kind>(k));
    special.peer = kAnySource;
    special.root = kProcNull;
    special.tag = kAnyTag;
    special.tag2 = kAnyTag;
    special.color = kUndefinedColor;
    special.seconds = 0;
    events.push_back(special);
  }
  VectorJobSource job({events, {}, {every_field(Kind::Isend)}});
  std::string text = text_of(job);

  fs::path text_file = root_ / "job.txt";
  std::ofstream(text_file) << text;
  ConversionResult to_trace = convert_events(text_file, root_ / "trace");
  EXPECT_EQ(to_trace.from, EventsFormat::Text);
  EXPECT_EQ(to_trace.ranks, 3);
  EXPECT_EQ(to_trace.events, events.size() + 1);
  ConversionResult to_text = convert_events(root_ / "trace", root_ / "back.txt");
  EXPECT_EQ(to_text.from, EventsFormat::Trace);

  std::ifstream in(root_ / "back.txt");
  std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(back, text);
  auto read_back = read_all(*open_trace(root_ / "trace"));
  ASSERT_EQ(read_back.size(), 3u);
  ASSERT_EQ(read_back[0].size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(read_back[0][i], events[i]) << "event " << i << ": " << format_event(events[i]);
  EXPECT_TRUE(read_back[1].empty());
}

// The text form takes compute quantities in their domain only (finite, >= 0;
// -1 seconds is "not given" and never written): random events brought into it.
Event in_text_domain(Event e) {
  auto fix = [](double& v) {
    if (!std::isfinite(v)) v = 1.0;
    v = std::abs(v);
  };
  if (e.seconds != -1) fix(e.seconds);
  if (e.duration_s != -1) fix(e.duration_s);
  fix(e.flops);
  fix(e.bytes_moved);
  return e;
}

TEST(Text, RandomEventsRoundTrip) {
  RandomEvents random(3);
  for (int i = 0; i < 20000; ++i) {
    Event e = in_text_domain(random.next());
    std::string line = format_event(e);
    Event back = parse_event(line);
    ASSERT_EQ(back, e) << line;
    ASSERT_EQ(format_event(back), line);
  }
}

std::string parse_error(const std::string& text) {
  return error_of([&] { parse_text_job(text, "job.txt"); });
}

TEST(Text, ParseErrorsNameTheLine) {
  EXPECT_EQ(parse_error("# perfcast events 1\nrank 0\nisend peer=1 tag=x\n"),
            "job.txt:3: 'tag': expected a tag or 'any', got 'x'");
  EXPECT_EQ(parse_error("rank 0\n\nisnd peer=1\n").substr(0, 42), "job.txt:3: unknown event kind 'isnd' (expe");
  EXPECT_EQ(parse_error("rank 0\nisend peer=1 colour=3\n").substr(0, 36), "job.txt:2: 'colour': unknown field (");
  EXPECT_EQ(parse_error("rank 0\nisend peer\n"), "job.txt:2: expected key=value, got 'peer'");
  EXPECT_EQ(parse_error("rank 0\nisend bytes=-4\n"), "job.txt:2: 'bytes': expected a whole number of bytes, got '-4'");
  EXPECT_EQ(parse_error("rank 0\nisend tag=1 tag=2\n"), "job.txt:2: 'tag': given twice");
  EXPECT_EQ(parse_error("rank 0\nwaitall req=1,,2\n"),
            "job.txt:2: 'req': expected request ids separated by commas, got ''");
  EXPECT_EQ(parse_error("rank 0\ncompute fast\n"), "job.txt:2: 'seconds': expected a number (like 1.5e-3), got 'fast'");
  EXPECT_EQ(parse_error("isend peer=1\n"), "job.txt:1: expected 'rank N' before the first event, got 'isend'");
  EXPECT_EQ(parse_error("rank 0\nrank x\n"), "job.txt:2: expected 'rank N' with N a rank from 0, got 'rank x'");
  EXPECT_EQ(parse_error("rank 0\nrank 0\n"), "job.txt:2: rank 0 appears twice (first at line 1)");
  EXPECT_EQ(parse_error("rank 0\nrank 2\n"), "job.txt: rank 1 is missing (ranks 0 to 2 must each appear)");
  EXPECT_EQ(parse_error("# perfcast events 2\n"), "job.txt:1: text format version 2; this perfcast reads version 1");
  EXPECT_EQ(parse_error("\n"), "job.txt: no 'rank N' line: not a perfcast event text");
  EXPECT_EQ(parse_error("rank 0\nisend tag=99999999999\n"),
            "job.txt:2: 'tag': expected a tag or 'any', got '99999999999'");
}

// dur= is an MPI call's recorded duration: read, written back the same, never
// on a compute burst and never negative.
TEST(Text, CallDurations) {
  Event e = parse_event("recv peer=1 tag=3 bytes=8 dur=0.0425");
  EXPECT_EQ(e.duration_s, 0.0425);
  EXPECT_EQ(format_event(e), "recv peer=1 tag=3 bytes=8 dur=0.0425");
  EXPECT_EQ(parse_event("recv peer=1 tag=3 bytes=8").duration_s, -1);  // absent: not recorded
  EXPECT_EQ(format_event(parse_event("init dur=0.5")), "init dur=0.5");
  EXPECT_EQ(parse_error("rank 0\ncompute 1e-3 dur=1e-3\n"),
            "job.txt:2: 'dur': a compute burst's time is its seconds; dur= is an MPI call's");
  EXPECT_EQ(parse_error("rank 0\nbarrier dur=-2e-6\n"),
            "job.txt:2: 'dur': '-2e-6' is negative (-2e-06): expected a finite number >= 0");
  EXPECT_EQ(parse_error("rank 0\nbarrier dur=1 dur=2\n"), "job.txt:2: 'dur': given twice");
}

TEST_F(TextTest, ReadTextFileErrorsNameTheFile) {
  std::ofstream(root_ / "bad.txt") << "rank 0\nbarrier comm=world\n";
  EXPECT_EQ(error_of([&] { read_text_job(root_ / "bad.txt"); }),
            (root_ / "bad.txt").string() + ":2: 'comm': expected a communicator handle, got 'world'");
  EXPECT_NE(error_of([&] { read_text_job(root_ / "none.txt"); }).find("cannot read event text"), std::string::npos);
}

TEST_F(TextTest, OpenEventsByWhatThePathIs) {
  std::ofstream(root_ / "job.txt") << kExample;
  convert_events(root_ / "job.txt", root_ / "trace");
  EXPECT_EQ(detect_format(root_ / "trace"), EventsFormat::Trace);
  EXPECT_EQ(detect_format(root_ / "job.txt"), EventsFormat::Text);
  EXPECT_EQ(read_all(*open_events(root_ / "trace")), read_all(*open_events(root_ / "job.txt")));
  EXPECT_NE(error_of([&] {
              detect_format(root_ / "trace" / "rank-000000.pcev");
            }).find("this file is part of a trace; name the trace directory instead"),
            std::string::npos);
}

TEST_F(TextTest, ShowOneRankAndHead) {
  auto job = parse_text_job(kExample);
  std::ostringstream out;
  TextWriteOptions options;
  options.only_rank = 1;
  options.head = 2;
  write_text(*job, out, options);
  EXPECT_EQ(out.str(),
            "# perfcast events 1\nrank 1\nrecv peer=0 tag=7 bytes=65536 comm=2 site=42\n"
            "sendrecv peer=null tag=1 tag2=any bytes=8 bytes2=16\n");
  options.only_rank = 2;
  EXPECT_EQ(error_of([&] { write_text(*job, out, options); }), "there is no rank 2: the job has 2 ranks");
}

TEST_F(TextTest, Stats) {
  std::ofstream(root_ / "job.txt") << kExample;
  convert_events(root_ / "job.txt", root_ / "trace");
  EventStats stats = compute_stats(root_ / "trace");
  ASSERT_EQ(stats.ranks.size(), 2u);
  const RankStats& r0 = stats.ranks[0];
  EXPECT_EQ(r0.events, 8u);
  EXPECT_EQ(r0.by_kind[static_cast<int>(Kind::Compute)], 2u);
  EXPECT_EQ(r0.messages_sent, 1u);
  EXPECT_EQ(r0.bytes_sent, 65536u);
  EXPECT_EQ(r0.collective_bytes, 8u);
  EXPECT_DOUBLE_EQ(r0.compute_seconds, 1.5e-3);
  EXPECT_EQ(r0.unpriced_bursts, 1u);
  EXPECT_EQ(stats.ranks[1].messages_sent, 0u);  // sendrecv to MPI_PROC_NULL moves nothing
  EXPECT_EQ(stats.total.events, 13u);
  ASSERT_TRUE(r0.file_bytes);
  EXPECT_EQ(*r0.file_bytes, fs::file_size(root_ / "trace" / "rank-000000.pcev"));
  auto json = to_json(stats);
  EXPECT_EQ(json["ranks"][0]["by_kind"]["compute"], 2);
  EXPECT_EQ(json["total"]["events"], 13);
  EXPECT_EQ(json["format"], "trace");

  EventStats text_stats = compute_stats(root_ / "job.txt");
  EXPECT_EQ(text_stats.total.events, 13u);
  EXPECT_FALSE(text_stats.total.file_bytes);
}

}  // namespace
