// Folded streams (src/events/loop_fold.h): the event sequence round-trips
// exactly, times become each loop position's mean, a longer run of the same
// loop barely grows the file, and a killed folding writer leaves its blocks
// and its tail.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "event_samples.h"
#include "events/loop_fold.h"
#include "events/memory_source.h"
#include "events/trace.h"

namespace {

namespace fs = std::filesystem;
using namespace perfcast::events;
using perfcast::events::testing::HaloExchange;
using perfcast::events::testing::RandomEvents;

class LoopFoldTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fmt::format("perfcast-test-fold-{}-{}", ::getpid(),
                                                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // Writes `events` as rank 0's stream and returns the stream file's size.
  std::uint64_t write(const std::vector<Event>& events, const fs::path& path, WriterOptions options) {
    RankWriter writer(path, 0, options);
    for (const Event& e : events) writer.append(e);
    writer.close();
    return fs::file_size(path);
  }
  std::vector<Event> read(const fs::path& path, std::uint64_t events) {
    TraceRankSource source(path, 0, events);
    std::vector<Event> out;
    Event e;
    while (source.next(e)) out.push_back(e);
    return out;
  }
  fs::path root_;
};

WriterOptions folding() {
  WriterOptions o;
  o.fold_loops = true;
  return o;
}

// The event without its time values (whether it has them is kept).
Event shape(Event e) {
  if (e.seconds != -1) e.seconds = 0;
  if (e.duration_s != -1) e.duration_s = 0;
  return e;
}

void expect_same_sequence(const std::vector<Event>& written, const std::vector<Event>& read) {
  ASSERT_EQ(read.size(), written.size());
  for (std::size_t i = 0; i < written.size(); ++i)
    ASSERT_TRUE(shape(read[i]) == shape(written[i])) << "event " << i << " differs";
}

std::vector<Event> halo(int iterations, std::uint64_t seed = 1) {
  HaloExchange run(300, true, seed, true);
  std::vector<Event> out;
  for (int i = 0; i < iterations; ++i) run.iteration([&](const Event& e) { out.push_back(e); });
  return out;
}

double total(const std::vector<Event>& events, bool compute) {
  double sum = 0;
  for (const Event& e : events) sum += compute ? std::max(e.seconds, 0.0) : std::max(e.duration_s, 0.0);
  return sum;
}

// Kinds, peers, tags, bytes, request ids and sites come back exactly; each
// position's times come back as their mean, so every total is kept.
TEST_F(LoopFoldTest, HaloExchangeExpandsToTheSameSequence) {
  std::vector<Event> written = halo(2000);
  fs::path path = root_ / "halo.pcev";
  write(written, path, folding());
  std::vector<Event> read_back = read(path, written.size());
  expect_same_sequence(written, read_back);
  EXPECT_NEAR(total(read_back, true), total(written, true), 1e-9 * total(written, true));
  EXPECT_NEAR(total(read_back, false), total(written, false), 1e-9 * total(written, false));
  // The jittered compute of the first iteration is now the mean over all.
  EXPECT_NE(read_back[0].seconds, written[0].seconds);
  EXPECT_NEAR(read_back[0].seconds, 2.5e-3, 2.5e-3 * 0.01);
}

// Ten times the iterations: the folded file grows by well under 10 %, the
// exact one by about ten times.
TEST_F(LoopFoldTest, TenTimesLongerIsBarelyLarger) {
  std::uint64_t folded_short = write(halo(1000), root_ / "short.pcev", folding());
  std::uint64_t folded_long = write(halo(10000), root_ / "long.pcev", folding());
  std::uint64_t exact_short = write(halo(1000), root_ / "exact-short.pcev", {});
  std::uint64_t exact_long = write(halo(10000), root_ / "exact-long.pcev", {});
  EXPECT_LT(static_cast<double>(folded_long), 1.1 * static_cast<double>(folded_short))
      << folded_short << " -> " << folded_long;
  EXPECT_GT(static_cast<double>(exact_long), 8.0 * static_cast<double>(exact_short));
  EXPECT_LT(folded_long * 50, exact_long);
}

// Loops inside loops fold into a nest that expands in order.
TEST_F(LoopFoldTest, NestedLoopsExpandInOrder) {
  std::vector<Event> written;
  for (int outer = 0; outer < 50; ++outer) {
    for (int inner = 0; inner < 20; ++inner) {
      Event c;
      c.seconds = 1e-4 * (1 + inner % 3);
      written.push_back(c);
      Event s;
      s.kind = Kind::Send;
      s.peer = 1;
      s.tag = inner % 2;  // a body of two iterations inside the inner loop
      s.bytes = 64;
      written.push_back(s);
    }
    Event a;
    a.kind = Kind::Allreduce;
    a.bytes = a.bytes2 = 8;
    a.duration_s = 1e-6 * (outer + 1);
    written.push_back(a);
  }
  codec::LoopFolder folder;
  for (const Event& e : written) folder.append(e);
  EXPECT_EQ(folder.items(), 1u);  // one outer loop
  EXPECT_LE(folder.positions(), 8u);
  fs::path path = root_ / "nest.pcev";
  write(written, path, folding());
  std::vector<Event> read_back = read(path, written.size());
  expect_same_sequence(written, read_back);
  // The allreduce's position: every occurrence reads as the mean of 1..50 us.
  EXPECT_NEAR(read_back[40].duration_s, 25.5e-6, 1e-12);
}

// A loop whose messages change size half-way is two loops, never one: every
// event keeps its own bytes.
TEST_F(LoopFoldTest, ALoopThatChangesHalfWayIsNotFoldedTogether) {
  std::vector<Event> written;
  for (int i = 0; i < 200; ++i) {
    Event c;
    c.seconds = 1e-3;
    written.push_back(c);
    Event s;
    s.kind = Kind::Isend;
    s.peer = 2;
    s.bytes = i < 100 ? 1024 : 2048;
    s.request = static_cast<std::uint64_t>(i + 1);
    written.push_back(s);
    Event w;
    w.kind = Kind::Wait;
    w.requests = {s.request};
    written.push_back(w);
  }
  codec::LoopFolder folder;
  for (const Event& e : written) folder.append(e);
  EXPECT_EQ(folder.items(), 2u);
  fs::path path = root_ / "change.pcev";
  write(written, path, folding());
  std::vector<Event> read_back = read(path, written.size());
  expect_same_sequence(written, read_back);
  EXPECT_EQ(read_back[3 * 99 + 1].bytes, 1024u);
  EXPECT_EQ(read_back[3 * 100 + 1].bytes, 2048u);
}

// Streams with nothing to fold (every field random) still round-trip, and
// blocks are sealed as the open items grow, so memory stays bounded.
TEST_F(LoopFoldTest, RandomStreamsRoundTrip) {
  RandomEvents random(7);
  std::vector<Event> written;
  for (int i = 0; i < 20000; ++i) written.push_back(random.next());
  WriterOptions options = folding();
  options.block_bytes = 4096;
  fs::path path = root_ / "random.pcev";
  write(written, path, options);
  std::vector<Event> read_back = read(path, written.size());
  expect_same_sequence(written, read_back);
  // Events outside any loop keep their exact times.
  for (std::size_t i = 0; i < written.size(); ++i) {
    ASSERT_TRUE(std::bit_cast<std::uint64_t>(read_back[i].duration_s) ==
                    std::bit_cast<std::uint64_t>(written[i].duration_s) ||
                written[i].duration_s != written[i].duration_s)
        << "event " << i;
  }
}

// A folding writer killed after a flush: salvage keeps its sealed blocks and
// the tail the flush wrote, which together are every event up to the flush.
TEST_F(LoopFoldTest, AKilledFoldingWriterLeavesItsTail) {
  std::vector<Event> written = halo(3000);
  fs::path path = root_ / "killed.pcev", partial = path, tail = path;
  partial += ".partial";
  tail += ".partial.tail";
  const std::size_t flushed = 14 * 2000 + 200;  // an allreduce is every 10th iteration
  {
    WriterOptions options = folding();
    options.block_bytes = 1024;  // seals often: blocks and a tail both
    RankWriter writer(path, 0, options);
    for (std::size_t i = 0; i < written.size(); ++i) {
      writer.append(written[i]);
      if (i + 1 == flushed) writer.flush();
    }
    // The kill: no close; the files stay as the flush left them.
    ASSERT_TRUE(fs::exists(tail));
    fs::copy_file(partial, root_ / "keep.partial");
    fs::copy_file(tail, root_ / "keep.tail");
  }
  fs::rename(root_ / "keep.partial", partial);
  fs::rename(root_ / "keep.tail", tail);
  SalvagedStream salvaged = salvage_stream(partial, path, 0);
  EXPECT_GE(salvaged.events, flushed);
  EXPECT_LE(salvaged.events, written.size());
  EXPECT_NE(salvaged.stopped.find("tail file were kept"), std::string::npos) << salvaged.stopped;
  EXPECT_FALSE(fs::exists(tail));
  std::vector<Event> read_back = read(path, salvaged.events);
  written.resize(read_back.size());
  expect_same_sequence(written, read_back);
}

// A tail written before the stream moved on (a block sealed after it) is
// stale: salvage leaves it out rather than repeat events.
TEST_F(LoopFoldTest, AStaleTailIsLeftOut) {
  RandomEvents random(3);
  std::vector<Event> written;
  for (int i = 0; i < 4000; ++i) written.push_back(random.next());
  fs::path path = root_ / "stale.pcev", partial = path, tail = path;
  partial += ".partial";
  tail += ".partial.tail";
  {
    WriterOptions options = folding();
    options.block_bytes = 1024;
    RankWriter writer(path, 0, options);
    for (std::size_t i = 0; i < written.size(); ++i) {
      writer.append(written[i]);
      if (i == 100) {
        writer.flush();
        fs::copy_file(tail, root_ / "keep.tail");  // the tail of the flush, before later seals
      }
    }
    writer.flush();
    fs::copy_file(partial, root_ / "keep.partial");
  }
  fs::rename(root_ / "keep.partial", partial);
  fs::rename(root_ / "keep.tail", tail);
  SalvagedStream salvaged = salvage_stream(partial, path, 0);
  EXPECT_EQ(salvaged.stopped.find("tail file were kept"), std::string::npos) << salvaged.stopped;
  std::vector<Event> read_back = read(path, salvaged.events);
  ASSERT_GT(read_back.size(), 101u);
  written.resize(read_back.size());
  expect_same_sequence(written, read_back);
}

}  // namespace
