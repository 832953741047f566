// Binary traces (src/events/trace.h): exact round trips, bounded memory, the
// errors a damaged trace gives, and writers that never leave a half trace.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "event_samples.h"
#include "events/memory_source.h"
#include "events/text.h"
#include "events/trace.h"
#include "events/trace_codec.h"
#include "support/error.h"

namespace {

namespace fs = std::filesystem;
using namespace perfcast::events;
using perfcast::UserError;
using perfcast::events::testing::HaloExchange;
using perfcast::events::testing::RandomEvents;

// A fresh directory per test, removed after it.
class TraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fmt::format("perfcast-test-events-{}-{}", ::getpid(),
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

// Runs `f` and returns the UserError message it throws ("" if none).
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

void expect_contains(const std::string& text, const std::string& piece) {
  EXPECT_NE(text.find(piece), std::string::npos) << "'" << piece << "' not in: " << text;
}

std::vector<char> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const fs::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The block layout of a stream file as trace.h specifies it: offsets of every
// block header, the last one being the end marker.
std::vector<std::size_t> block_offsets(const std::vector<char>& bytes) {
  std::vector<std::size_t> offsets;
  std::size_t at = 16;
  while (at + 32 <= bytes.size()) {
    offsets.push_back(at);
    std::uint32_t marker, compressed;
    std::memcpy(&marker, bytes.data() + at, 4);
    std::memcpy(&compressed, bytes.data() + at + 8, 4);
    if (marker == 0x4e454350) break;  // "PCEN"
    at += 32 + compressed;
  }
  return offsets;
}

TEST_F(TraceTest, RandomStreamsRoundTripExactly) {
  RandomEvents random(42);
  std::vector<std::vector<Event>> ranks(5);
  for (std::size_t r = 0; r < ranks.size(); ++r)
    for (std::size_t i = 0; i < 3000 * r; ++i) ranks[r].push_back(random.next());  // rank 0 stays empty
  VectorJobSource job(ranks);
  WriterOptions small_blocks;
  small_blocks.block_bytes = 4096;  // many blocks, so delta state restarts often
  TraceManifest manifest = write_trace(job, root_ / "t", {"prog", {"prog", "--n", "3"}}, small_blocks);
  EXPECT_EQ(manifest.ranks, 5);

  auto back = open_trace(root_ / "t");
  ASSERT_EQ(back->size(), 5);
  auto events = read_all(*back);
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    ASSERT_EQ(events[r].size(), ranks[r].size()) << "rank " << r;
    for (std::size_t i = 0; i < ranks[r].size(); ++i)
      ASSERT_EQ(events[r][i], ranks[r][i]) << "rank " << r << " event " << i;
  }
  TraceManifest read = read_manifest(root_ / "t");
  EXPECT_EQ(read.metadata.program, "prog");
  EXPECT_EQ(read.metadata.command, (std::vector<std::string>{"prog", "--n", "3"}));
  EXPECT_EQ(read.streams[3].events, 9000u);
  EXPECT_EQ(read.streams[3].file, "rank-000003.pcev");
  EXPECT_FALSE(read.created.empty());
}

TEST_F(TraceTest, ManifestIsReadableJson) {
  TraceWriter writer(root_ / "t", 2, {"wave3d", {"wave3d", "--n", "64"}});
  writer.append(1, Event{});
  writer.close();
  nlohmann::json manifest = nlohmann::json::parse(std::ifstream(root_ / "t" / "trace.json"));
  EXPECT_EQ(manifest["format"], "perfcast-trace");
  EXPECT_EQ(manifest["version"], 3);
  EXPECT_EQ(manifest["ranks"], 2);
  EXPECT_EQ(manifest["program"], "wave3d");
  EXPECT_EQ(manifest["streams"][1]["file"], "rank-000001.pcev");
  EXPECT_EQ(manifest["streams"][1]["events"], 1);
  EXPECT_EQ(manifest["streams"][0]["events"], 0);
}

// A call's duration in whole nanoseconds (what the tracer records) costs a
// few bytes before compression; any other double is kept exactly, raw.
TEST_F(TraceTest, CallDurationsRoundTripCompactly) {
  std::vector<Event> events;
  for (std::uint64_t ns : {0ull, 1ull, 999ull, 1234567ull, 250000000ull, 86400000000000ull}) {
    Event e;
    e.kind = Kind::Waitall;
    e.duration_s = seconds_of_ns(ns);
    events.push_back(e);
  }
  for (double odd : {-0.0, 1e-300, 0.1, 3.0e12, std::numeric_limits<double>::infinity()}) {
    Event e;
    e.kind = Kind::Barrier;
    e.duration_s = odd;
    events.push_back(e);
  }
  VectorJobSource job({events});
  write_trace(job, root_ / "t");
  auto back = read_all(*open_trace(root_ / "t"))[0];
  ASSERT_EQ(back.size(), events.size());
  for (std::size_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back[i].duration_s), std::bit_cast<std::uint64_t>(events[i].duration_s))
        << "event " << i << ": " << events[i].duration_s;

  // Encoded sizes: an untimed call is kind + mask; a 1 ms call adds 3 bytes.
  codec::BlockEncoder encoder;
  Event call;
  call.kind = Kind::Waitall;
  encoder.append(call);
  std::size_t untimed = encoder.bytes().size();
  encoder.clear();
  call.duration_s = seconds_of_ns(1000000);
  encoder.append(call);
  EXPECT_EQ(untimed, 2u);
  EXPECT_EQ(encoder.bytes().size(), untimed + 3);
}

// MPI_Pcontrol took the kind number the marker had before version 3: a version 3
// stream keeps the two apart, and an older stream's number is its marker.
TEST_F(TraceTest, PcontrolAndMarkerKeepTheirKindsAcrossVersions) {
  codec::BlockEncoder encoder;
  Event pcontrol;
  pcontrol.kind = Kind::Pcontrol;
  pcontrol.tag = 1;
  Event marker;
  marker.kind = Kind::Marker;
  marker.tag = 7;
  encoder.append(pcontrol);
  encoder.append(marker);
  const auto* data = reinterpret_cast<const std::uint8_t*>(encoder.bytes().data());
  codec::BlockDecoder decoder;
  Event e;
  decoder.reset(data, encoder.bytes().size(), 2, 3);
  decoder.next(e);
  EXPECT_EQ(e, pcontrol);
  decoder.next(e);
  EXPECT_EQ(e, marker);
  encoder.clear();
  encoder.append(pcontrol);
  decoder.reset(reinterpret_cast<const std::uint8_t*>(encoder.bytes().data()), encoder.bytes().size(), 1, 2);
  decoder.next(e);
  EXPECT_EQ(e.kind, Kind::Marker);
  EXPECT_EQ(e.tag, 1);
}

// A trace written by the tracer at format version 1 (before call durations,
// tests/events/fixtures) reads as the events that perfcast printed for it:
// same calls, same compute, no durations.
TEST_F(TraceTest, OldFormatTraceReadsAsItWasWritten) {
  fs::path fixtures = fs::path(PERFCAST_SOURCE_DIR) / "tests" / "events" / "fixtures";
  fs::path old = fixtures / "trace-v1-wave3d";
  EXPECT_EQ(read_manifest(old).version, 1u);
  std::ifstream text_file(fixtures / "trace-v1-wave3d.txt");
  std::vector<std::vector<Event>> expected;
  for (std::string line; std::getline(text_file, line);) {
    if (line.empty() || line[0] == '#') continue;
    if (line.starts_with("rank ")) {
      expected.emplace_back();
      continue;
    }
    expected.back().push_back(parse_event(line));
  }
  TraceJobSource job(old);
  ASSERT_EQ(job.size(), 2);
  auto events = read_all(job);
  ASSERT_EQ(events.size(), expected.size());
  for (std::size_t r = 0; r < events.size(); ++r) {
    ASSERT_EQ(events[r].size(), expected[r].size()) << "rank " << r;
    EXPECT_GT(events[r].size(), 50u);
    for (std::size_t i = 0; i < events[r].size(); ++i) {
      EXPECT_EQ(events[r][i], expected[r][i]) << "rank " << r << " event " << i;
      EXPECT_EQ(events[r][i].duration_s, -1) << "rank " << r << " event " << i;
    }
  }
  EXPECT_EQ(static_cast<TraceRankSource&>(*job.open_rank(0)).version(), 1u);
}

// Version 1 has no duration bit: a version-1 stream whose kind byte has it is
// refused as damaged, never read as some other kind.
TEST_F(TraceTest, OldFormatRefusesADurationItCannotHold) {
  Event timed;
  timed.kind = Kind::Barrier;
  timed.duration_s = 1e-3;
  VectorJobSource job({{timed}});
  write_trace(job, root_ / "t");
  fs::path file = root_ / "t" / rank_file_name(0);
  std::vector<char> bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_EQ(bytes[8], 3);  // the stream's format version
  bytes[8] = 1;
  std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  std::string error = error_of([&] { read_all(*open_trace(root_ / "t")); });
  expect_contains(error, "event 0 of the block is malformed: unknown event kind (file corrupted)");
}

// 2 million events through one rank: the reader never holds more than about
// one block, and resident memory does not grow with the stream.
TEST_F(TraceTest, LargeStreamIsReadWithBoundedMemory) {
  const std::uint64_t kEvents = 2'000'000;
  auto start = std::chrono::steady_clock::now();
  std::uint64_t written = 0;
  {
    RankWriter writer(root_ / "big.pcev", 0);
    HaloExchange halo(0, true);
    while (writer.events() < kEvents) halo.iteration([&](const Event& e) { writer.append(e); });
    written = writer.events();
    writer.close();
  }
  auto rss_kib = [] {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
      if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
    return 0L;
  };
  long rss_before = rss_kib();
  TraceRankSource source(root_ / "big.pcev", 0, written);
  HaloExchange expected(0, true);
  std::vector<Event> pending;
  std::size_t most_buffered = 0;
  std::uint64_t count = 0;
  Event e;
  while (source.next(e)) {
    if (pending.empty()) {
      expected.iteration([&](const Event& x) { pending.push_back(x); });
      std::reverse(pending.begin(), pending.end());
    }
    ASSERT_EQ(e, pending.back()) << "event " << count;
    pending.pop_back();
    ++count;
    most_buffered = std::max(most_buffered, source.buffered_bytes());
  }
  long rss_growth_kib = rss_kib() - rss_before;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(count, written);
  std::uintmax_t file_bytes = fs::file_size(root_ / "big.pcev");
  std::cout << fmt::format(
      "{} events, {} bytes on disk ({:.2f} bytes/event); reader held at most {} bytes; "
      "RSS grew {} KiB; write + read {:.2f} s\n",
      count, file_bytes, double(file_bytes) / double(count), most_buffered, rss_growth_kib, seconds);
  // Two buffers of one 64 KiB block (compressed and not), with slack for the
  // event that crosses the threshold.
  EXPECT_LT(most_buffered, 3u * 64 * 1024);
  EXPECT_LT(rss_growth_kib, 8 * 1024) << "the reader's memory grows with the stream";
  // The whole stream decoded would be 2M Events (~200 MB); the file is far
  // smaller than that, so a reader holding everything would show above.
}

TEST_F(TraceTest, HaloExchangeCostsAFewBytesPerEvent) {
  struct Variant {
    const char* name;
    bool traced, timed_calls;
    double most_bytes_per_event;
  };
  // A traced run's call durations are as random as its gaps: whole
  // nanoseconds keep them to a few bytes each before compression.
  for (Variant v :
       {Variant{"skeleton (repeating)", false, false, 1.0}, Variant{"traced gaps (jittered)", true, false, 8.0},
        Variant{"traced gaps and call durations", true, true, 4.0}}) {
    const int kRanks = 8;
    TraceWriter writer(root_ / "halo", kRanks);
    for (int r = 0; r < kRanks; ++r) {
      HaloExchange halo(1000 + r, v.traced, static_cast<std::uint64_t>(r), v.timed_calls);
      for (int i = 0; i < 2000; ++i) halo.iteration([&](const Event& e) { writer.append(r, e); });
    }
    TraceManifest manifest = writer.close();
    std::uint64_t events = 0, bytes = 0;
    for (const auto& s : manifest.streams) {
      events += s.events;
      bytes += fs::file_size(root_ / "halo" / s.file);
    }
    double per_event = double(bytes) / double(events);
    std::cout << fmt::format("halo exchange, {}: {} events, {} bytes, {:.3f} bytes/event\n", v.name, events, bytes,
                             per_event);
    EXPECT_LT(per_event, v.most_bytes_per_event);
  }
}

TEST_F(TraceTest, EmptyJobAndEmptyRanks) {
  {
    TraceWriter writer(root_ / "t", 3);
    writer.close();
  }
  auto job = open_trace(root_ / "t");
  auto events = read_all(*job);
  ASSERT_EQ(events.size(), 3u);
  for (const auto& r : events) EXPECT_TRUE(r.empty());
}

// A trace with rank 3 in several blocks, for the damage tests.
class DamagedTraceTest : public TraceTest {
 protected:
  void SetUp() override {
    TraceTest::SetUp();
    WriterOptions options;
    options.block_bytes = 2048;
    TraceWriter writer(root_ / "t", 4, {}, options);
    RandomEvents random(7);
    for (int r = 0; r < 4; ++r)
      for (int i = 0; i < 500; ++i) writer.append(r, random.next());
    writer.close();
    file_ = root_ / "t" / "rank-000003.pcev";
    original_ = read_bytes(file_);
    blocks_ = block_offsets(original_);
    ASSERT_GE(blocks_.size(), 4u) << "expected several blocks and the end marker";
  }

  // Reads rank 3 to the end; returns the error message.
  std::string read_rank3() {
    return error_of([&] {
      auto job = open_trace(root_ / "t");
      auto source = job->open_rank(3);
      Event e;
      while (source->next(e, 0)) {
      }
    });
  }

  fs::path file_;
  std::vector<char> original_;
  std::vector<std::size_t> blocks_;  // the last is the end marker
};

TEST_F(DamagedTraceTest, IntactTraceReads) { EXPECT_EQ(read_rank3(), ""); }

TEST_F(DamagedTraceTest, TruncatedInsideABlock) {
  // Cut inside block headers, inside payloads, inside the end marker.
  std::vector<std::size_t> cuts = {blocks_[0] + 5, blocks_[0] + 40,     blocks_[1] + 31,
                                   blocks_[2] - 1, blocks_.back() + 10, original_.size() - 1};
  for (std::size_t cut : cuts) {
    std::size_t block = blocks_[0];
    for (std::size_t b : blocks_)
      if (b <= cut) block = b;
    write_bytes(file_, std::vector<char>(original_.begin(), original_.begin() + static_cast<long>(cut)));
    std::string message = read_rank3();
    expect_contains(message, file_.string());
    expect_contains(
        message,
        fmt::format("rank 3: file ends at offset {} inside the block at offset {}: truncated trace", cut, block));
  }
}

TEST_F(DamagedTraceTest, TruncatedAtABlockBoundary) {
  for (std::size_t cut : {blocks_[1], blocks_.back()}) {
    write_bytes(file_, std::vector<char>(original_.begin(), original_.begin() + static_cast<long>(cut)));
    expect_contains(read_rank3(),
                    fmt::format("rank 3: file ends at offset {} where a block or the end marker should start: "
                                "truncated trace",
                                cut));
  }
}

TEST_F(DamagedTraceTest, TruncatedInsideTheFileHeader) {
  write_bytes(file_, std::vector<char>(original_.begin(), original_.begin() + 9));
  expect_contains(read_rank3(), "rank 3: file ends at offset 9 inside the file header: truncated trace");
}

TEST_F(DamagedTraceTest, FlippedBytesAreCaught) {
  // A byte in each part of a block: marker, sizes, count, payload checksum,
  // header checksum, payload; and in the end marker.
  for (std::size_t block_index = 0; block_index < blocks_.size(); ++block_index) {
    std::size_t block = blocks_[block_index];
    std::vector<std::size_t> positions = {block, block + 5, block + 9, block + 13, block + 17, block + 30};
    if (block_index + 1 < blocks_.size()) positions.push_back(block + 32 + 7);
    for (std::size_t at : positions) {
      std::vector<char> bytes = original_;
      bytes[at] = static_cast<char>(bytes[at] ^ 0x10);
      write_bytes(file_, bytes);
      expect_contains(read_rank3(),
                      fmt::format("rank 3: block at offset {}: checksum mismatch (file corrupted)", block));
    }
  }
}

TEST_F(DamagedTraceTest, DamagedFileHeader) {
  std::vector<char> bytes = original_;
  bytes[1] = 'X';
  write_bytes(file_, bytes);
  expect_contains(read_rank3(), "rank 3: not a perfcast event stream (bad magic at offset 0)");
  bytes = original_;
  bytes[12] = 2;  // the rank
  write_bytes(file_, bytes);
  expect_contains(read_rank3(), "rank 3: the file header says rank 2");
  bytes = original_;
  bytes[8] = 9;  // the format version
  write_bytes(file_, bytes);
  expect_contains(read_rank3(), "rank 3: stream format version 9 is not one this perfcast reads");
}

TEST_F(DamagedTraceTest, TrailingBytesAfterTheEndMarker) {
  std::vector<char> bytes = original_;
  bytes.push_back(0);
  write_bytes(file_, bytes);
  expect_contains(read_rank3(),
                  fmt::format("rank 3: 1 unexpected bytes after the end marker at offset {}", blocks_.back()));
}

TEST_F(DamagedTraceTest, ManifestMismatches) {
  fs::path manifest_path = root_ / "t" / "trace.json";
  nlohmann::json manifest = nlohmann::json::parse(std::ifstream(manifest_path));
  auto rewrite = [&](const nlohmann::json& m) { std::ofstream(manifest_path) << m.dump(1); };

  nlohmann::json edited = manifest;
  edited["ranks"] = 5;
  rewrite(edited);
  expect_contains(error_of([&] { open_trace(root_ / "t"); }),
                  "trace.json: 'streams': lists 4 rank streams, but 'ranks' is 5");

  edited = manifest;
  edited["streams"][3]["events"] = 499;
  rewrite(edited);
  expect_contains(read_rank3(), "rank 3: the stream holds 500 events, trace.json says 499");

  edited = manifest;
  edited["version"] = 4;
  rewrite(edited);
  expect_contains(error_of([&] { open_trace(root_ / "t"); }),
                  "trace format version 4 is not one this perfcast reads (1 to 3)");

  rewrite(manifest);
  fs::remove(file_);
  expect_contains(error_of([&] { open_trace(root_ / "t"); }), "rank 3: stream file 'rank-000003.pcev' is missing");

  fs::remove(manifest_path);
  expect_contains(error_of([&] { open_trace(root_ / "t"); }), "not a perfcast trace: no trace.json");
}

std::vector<Event> numbered(int n, std::int32_t tag) {
  std::vector<Event> events;
  for (int i = 0; i < n; ++i) {
    Event e;
    e.kind = Kind::Isend;
    e.peer = 1;
    e.tag = tag;
    e.request = static_cast<std::uint64_t>(i + 1);
    events.push_back(e);
  }
  return events;
}

TEST_F(TraceTest, FailedWriteLeavesTheExistingTraceIntact) {
  VectorJobSource old_job({numbered(100, 1), numbered(50, 1)});
  write_trace(old_job, root_ / "t");
  auto listing = [&] {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(root_)) names.push_back(entry.path().filename().string());
    return names;
  };

  // A run that fails after writing more than a block's worth of its own.
  try {
    TraceWriter writer(root_ / "t", 2);
    for (const Event& e : numbered(100000, 2)) writer.append(0, e);
    throw std::runtime_error("the traced program crashed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(listing(), std::vector<std::string>{"t"}) << "staging files left behind";
  auto job = open_trace(root_ / "t");
  auto events = read_all(*job);
  EXPECT_EQ(events[0], numbered(100, 1));
  EXPECT_EQ(events[1], numbered(50, 1));

  // A rank writer that is never closed leaves nothing that looks like a stream.
  {
    RankWriter writer(root_ / "lonely.pcev", 0);
    for (const Event& e : numbered(100000, 2)) writer.append(e);
  }
  EXPECT_FALSE(fs::exists(root_ / "lonely.pcev"));
  EXPECT_FALSE(fs::exists(root_ / "lonely.pcev.partial"));

  // A completed write replaces it.
  VectorJobSource new_job({numbered(3, 9)});
  write_trace(new_job, root_ / "t");
  EXPECT_EQ(listing(), std::vector<std::string>{"t"});
  auto replaced = read_all(*open_trace(root_ / "t"));
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_EQ(replaced[0], numbered(3, 9));
}

TEST_F(TraceTest, RefusesToReplaceWhatIsNotATrace) {
  fs::create_directories(root_ / "mine");
  std::ofstream(root_ / "mine" / "thesis.tex") << "precious";
  VectorJobSource job({numbered(3, 1)});
  expect_contains(error_of([&] { write_trace(job, root_ / "mine"); }),
                  "exists and is neither empty nor a perfcast trace (no trace.json): not replacing it");
  EXPECT_TRUE(fs::exists(root_ / "mine" / "thesis.tex"));
  std::ofstream(root_ / "file") << "x";
  expect_contains(error_of([&] { write_trace(job, root_ / "file"); }), "exists and is not a directory");
  // An empty directory is fine (e.g. made by a job script).
  fs::create_directories(root_ / "empty");
  write_trace(job, root_ / "empty/");
  EXPECT_TRUE(is_trace_dir(root_ / "empty"));
}

TEST_F(TraceTest, NoTraceAtPath) {
  expect_contains(error_of([&] { open_trace(root_ / "nothing"); }), "no such trace");
}

}  // namespace
