// Binary traces: event streams on disk, written with bounded memory and read
// back one block at a time.
//
// A trace is a directory:
//   trace.json          manifest: {"format": "perfcast-trace", "version": 2,
//                       "ranks": N, "program", "command", "created",
//                       "streams": [{"rank", "file", "events"}, ...]}
//   rank-000000.pcev    one stream file per rank
// A stream file is a 16-byte header (magic "PCEV\r\n\x1a\n", u32 format version,
// u32 rank), then blocks, then an end marker. Every block starts with a 32-byte
// header (u32 "PCBK", u32 uncompressed size, u32 compressed size, u32 events,
// u64 XXH64 of the compressed payload, u64 XXH64 of the preceding 24 header
// bytes) followed by the zstd-compressed payload (trace_codec.h); the end marker
// has the same 32-byte shape (u32 "PCEN", u32 0, u64 total events, u64 0,
// u64 XXH64 of the preceding 24 bytes). All integers are little-endian.
//
// Versions: 2 records each MPI call's duration (trace_codec.h); 1, written
// before, has none, and reads as events whose durations are not recorded. A
// reader takes every version up to its own and refuses a newer one by name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "events/source.h"
#include "events/trace_codec.h"

namespace perfcast::events {

inline constexpr std::uint32_t kTraceFormatVersion = 3;
static_assert(kTraceFormatVersion == codec::kCodecVersion, "a stream's version is its blocks' layout");
inline constexpr const char* kTraceFormatName = "perfcast-trace";
inline constexpr const char* kManifestName = "trace.json";

// What is known about the run a trace records.
struct TraceMetadata {
  std::string program;               // empty when unknown
  std::vector<std::string> command;  // the command line, when known
};

struct RankStreamInfo {
  int rank = 0;
  std::string file;  // relative to the trace directory
  std::uint64_t events = 0;
};

struct TraceManifest {
  std::uint32_t version = kTraceFormatVersion;
  int ranks = 0;
  TraceMetadata metadata;
  std::string created;                  // ISO 8601, UTC
  std::vector<RankStreamInfo> streams;  // streams[r] is rank r's
};

struct WriterOptions {
  std::size_t block_bytes = 64 * 1024;  // a block is flushed once its encoded events reach this
  int compression_level = 3;            // zstd level
};

// "rank-000042.pcev"
std::string rank_file_name(int rank);

// Writes one rank's stream file. Memory is bounded by one block. The file is
// written under a temporary name (path + ".partial") and renamed by close(), so
// a stream that was not closed never looks complete. Not thread-safe; writers of
// different ranks may live in different threads or processes.
class RankWriter {
 public:
  RankWriter(std::filesystem::path path, int rank, WriterOptions options = {});
  ~RankWriter();  // without close(): removes the temporary file
  RankWriter(const RankWriter&) = delete;
  RankWriter& operator=(const RankWriter&) = delete;

  void append(const Event& event);
  // Writes the events appended so far as a block now, so a writer killed
  // later (SIGKILL: no destructor, no close) leaves them whole in the
  // ".partial" file for salvage_stream.
  void flush() { flush_block(); }
  // Flushes the last block, writes the end marker and renames the file into
  // place. Throws UserError when the disk refuses.
  void close();

  int rank() const { return rank_; }
  std::uint64_t events() const { return events_; }
  std::uint64_t file_bytes() const { return file_bytes_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  void flush_block();
  void write(const void* data, std::size_t size);

  std::filesystem::path path_, partial_path_;
  int rank_;
  WriterOptions options_;
  codec::BlockEncoder encoder_;
  std::string compressed_;
  std::uint64_t events_ = 0;
  std::uint64_t file_bytes_ = 0;
  bool closed_ = false;
};

// Writes a whole trace directory. Everything goes into a hidden staging
// directory next to `dir`; close() moves it into place in one step, replacing
// a trace already at `dir` only then. A TraceWriter destroyed without close()
// (an exception, a failed run) removes its staging directory and leaves `dir`
// as it was. Refuses to replace a `dir` that is neither empty nor a trace.
class TraceWriter {
 public:
  TraceWriter(std::filesystem::path dir, int ranks, TraceMetadata metadata = {}, WriterOptions options = {});
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  RankWriter& rank(int r);
  void append(int r, const Event& event) { rank(r).append(event); }
  // Closes every rank (ranks never written get empty streams), writes the
  // manifest, then swaps the trace into place. Returns the manifest written.
  TraceManifest close();

  int ranks() const { return ranks_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_, staging_;
  int ranks_;
  TraceMetadata metadata_;
  WriterOptions options_;
  std::vector<std::unique_ptr<RankWriter>> writers_;
  bool closed_ = false;
};

// True when `dir` holds a trace manifest.
bool is_trace_dir(const std::filesystem::path& dir);

// Reads and checks trace.json (format, version, ranks against streams, files
// present). Throws UserError naming the file and what is wrong.
TraceManifest read_manifest(const std::filesystem::path& dir);

// A cursor on one stream file: decodes one block at a time. Opens the file only
// while it reads a block, so a job of many thousand ranks does not run out of
// file descriptors.
class TraceRankSource : public RankSource {
 public:
  // `expected_events` is the manifest's count (checked against the end marker);
  // checks the file header at once.
  TraceRankSource(std::filesystem::path path, int rank, std::uint64_t expected_events);
  bool next(Event& out, double now_s = 0) override;

  int rank() const { return rank_; }
  std::uint32_t version() const { return version_; }
  // Where the block being read (or the one that failed to read) starts.
  std::uint64_t block_offset() const { return block_offset_; }
  std::uint64_t events_read() const { return events_read_; }
  // Memory held for decoding (at most about one block).
  std::size_t buffered_bytes() const { return compressed_.capacity() + block_.capacity(); }

 private:
  bool load_block();  // false at the end marker
  [[noreturn]] void fail(const std::string& message) const;

  std::filesystem::path path_;
  int rank_;
  std::uint64_t expected_events_;
  std::uint32_t version_ = kTraceFormatVersion;  // from the file header
  std::uint64_t offset_;  // of the next block header
  std::uint64_t block_offset_ = 0;
  std::uint64_t events_read_ = 0;
  std::string compressed_, block_;
  codec::BlockDecoder decoder_;
  bool finished_ = false;
};

class TraceJobSource : public JobSource {
 public:
  explicit TraceJobSource(std::filesystem::path dir);
  int size() const override { return manifest_.ranks; }
  std::unique_ptr<RankSource> open_rank(int rank) override;
  const TraceManifest& manifest() const { return manifest_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  TraceManifest manifest_;
};

// Opens a trace directory: its manifest is read and checked now, each rank's
// stream when opened.
std::unique_ptr<JobSource> open_trace(const std::filesystem::path& dir);

// What salvage_stream kept of a stream whose writer never closed it.
struct SalvagedStream {
  std::uint64_t events = 0;       // whole events kept
  std::uint64_t whole_bytes = 0;  // the file's bytes up to the first block that could not be read whole
  std::uint64_t file_bytes = 0;
  std::string stopped;  // why reading stopped there (a torn or damaged block, or the file's end)
};

// Reads the stream file `partial` (RankWriter's ".partial" file of rank
// `rank`, left by a process that was killed) up to its last whole block and
// writes those events as a closed stream at `path`. Throws UserError only
// when `partial` is not a stream at all (no file header).
SalvagedStream salvage_stream(const std::filesystem::path& partial, const std::filesystem::path& path, int rank);

// Copies every rank of `job` into a trace at `dir` (see TraceWriter).
TraceManifest write_trace(JobSource& job, const std::filesystem::path& dir, const TraceMetadata& metadata = {},
                          WriterOptions options = {});

}  // namespace perfcast::events
