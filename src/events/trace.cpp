#include "events/trace.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>
#include <utility>
// XXH64 rather than zlib's crc32: it is several times faster on this kind of
// data (it never shows in a read profile), 64 bits make an undetected
// corruption practically impossible, and it is the checksum zstd itself uses.
// We checksum the compressed payload (not zstd's optional content checksum) so
// a bad block is rejected before the decompressor ever sees it.
#include <xxhash.h>
#include <zstd.h>

#include "support/error.h"
#include "support/utc_time.h"

namespace perfcast::events {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Where an error is: a whole file (no line or field).
SourceLocation in_file(std::string file) { return {std::move(file), std::nullopt, ""}; }

constexpr char kMagic[8] = {'P', 'C', 'E', 'V', '\r', '\n', '\x1a', '\n'};
constexpr std::size_t kFileHeaderBytes = 16;
// A TraceRankSource's expected count when no manifest gives one.
constexpr std::uint64_t kUnknownEventCount = UINT64_MAX;
constexpr std::size_t kBlockHeaderBytes = 32;
constexpr std::uint32_t kBlockMarker = 0x4b424350;  // "PCBK" in little-endian bytes
constexpr std::uint32_t kEndMarker = 0x4e454350;    // "PCEN"
constexpr std::uint32_t kFoldedMarker = 0x42464350; // "PCFB"
constexpr std::uint32_t kTailMarker = 0x4c544350;   // "PCTL"
constexpr std::size_t kTailHeaderBytes = 24;
// A folding writer seals its settled items into the stream once its open
// items hold this many positions per KiB of block_bytes: memory stays bounded
// while a run that does not repeat itself still gets blocks of useful size.
constexpr std::uint64_t kPositionsPerKiB = 64;
constexpr std::uint32_t kSealCheckEvents = 256;
// Far above any block a writer makes (64 KiB, or one huge v-collective event);
// a limit so a forged header cannot make the reader allocate without bound.
constexpr std::uint32_t kMaxBlockBytes = 1u << 30;

void put_u32(char* p, std::uint32_t v) { std::memcpy(p, &v, 4); }
void put_u64(char* p, std::uint64_t v) { std::memcpy(p, &v, 8); }
std::uint32_t get_u32(const char* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
std::uint64_t get_u64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// Header and end marker share one shape: 24 bytes of fields and their hash.
void seal_header(char (&header)[kBlockHeaderBytes]) { put_u64(header + 24, XXH64(header, 24, 0)); }
bool header_intact(const char (&header)[kBlockHeaderBytes]) { return XXH64(header, 24, 0) == get_u64(header + 24); }

// One context per thread, shared by all the writers (readers) of that thread:
// a context costs ~1 MiB, far too much to hold per rank.
ZSTD_CCtx* compression_context() {
  thread_local std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
  return context.get();
}
ZSTD_DCtx* decompression_context() {
  thread_local std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
  return context.get();
}

std::string system_error_text() { return std::strerror(errno); }

[[noreturn]] void write_failed(const fs::path& path) {
  throw UserError(fmt::format("cannot write: {}", system_error_text()), in_file(path.string()),
                  "check that the disk has room and the directory is writable");
}


// Closes a file descriptor on every path out of a read.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads up to `size` bytes at `offset`; fewer only at the end of the file.
std::size_t read_at(int fd, void* data, std::size_t size, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::pread(fd, static_cast<char*>(data) + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return static_cast<std::size_t>(-1);
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  return done;
}

}  // namespace

std::string rank_file_name(int rank) { return fmt::format("rank-{:06d}.pcev", rank); }

// ---------------------------------------------------------------- writing

RankWriter::RankWriter(fs::path path, int rank, WriterOptions options)
    : path_(std::move(path)), rank_(rank), options_(options) {
  partial_path_ = path_;
  partial_path_ += ".partial";
  tail_path_ = partial_path_;
  tail_path_ += ".tail";
  if (options_.fold_loops) folder_ = std::make_unique<codec::LoopFolder>(options_.fold_window);
  std::FILE* file = std::fopen(partial_path_.c_str(), "wb");
  if (!file) write_failed(partial_path_);
  char header[kFileHeaderBytes];
  std::memcpy(header, kMagic, 8);
  put_u32(header + 8, kTraceFormatVersion);
  put_u32(header + 12, static_cast<std::uint32_t>(rank));
  bool ok = std::fwrite(header, 1, sizeof header, file) == sizeof header;
  ok = (std::fclose(file) == 0) && ok;
  if (!ok) write_failed(partial_path_);
  file_bytes_ = kFileHeaderBytes;
}

RankWriter::~RankWriter() {
  if (!closed_) {
    std::error_code ignored;
    fs::remove(partial_path_, ignored);
    fs::remove(tail_path_, ignored);
  }
}

void RankWriter::append(const Event& event) {
  if (closed_) throw std::logic_error("RankWriter::append after close");
  ++events_;
  if (folder_) {
    folder_->append(event);
    // Counting positions walks the open items: done every kSealCheckEvents.
    if (++events_since_check_ < kSealCheckEvents) return;
    events_since_check_ = 0;
    const std::uint64_t limit = std::max<std::uint64_t>(options_.block_bytes / 1024 * kPositionsPerKiB,
                                                        4 * static_cast<std::uint64_t>(options_.fold_window));
    const std::uint64_t positions = folder_->positions();
    if (positions < limit) return;
    // Settled items first; when none are and a loop nest keeps growing,
    // everything: folding goes on from the items that follow.
    std::size_t count = folder_->settled();
    if (count == 0 && positions >= 4 * limit) count = folder_->items();
    if (count == 0) return;
    seal_items(count);
    write_tail();
    return;
  }
  encoder_.append(event);
  if (encoder_.bytes().size() >= options_.block_bytes) flush_block();
}

void RankWriter::flush() {
  if (closed_) return;
  if (folder_)
    write_tail();
  else
    flush_block();
}

// The file is opened per block rather than held open: a TraceWriter of many
// thousand ranks would otherwise exhaust file descriptors; a block holds
// thousands of events, so the open costs nothing measurable.
void RankWriter::write(const void* data, std::size_t size) {
  std::FILE* file = std::fopen(partial_path_.c_str(), "ab");
  if (!file) write_failed(partial_path_);
  bool ok = std::fwrite(data, 1, size, file) == size;
  ok = (std::fclose(file) == 0) && ok;
  if (!ok) write_failed(partial_path_);
  file_bytes_ += size;
}

void RankWriter::flush_block() {
  if (encoder_.events() == 0) return;
  const std::string& block = make_block(kBlockMarker, encoder_.bytes(), encoder_.events());
  write(block.data(), block.size());
  encoder_.clear();
}

void RankWriter::seal_items(std::size_t count) {
  if (count == 0) return;
  folded_.clear();
  folder_->encode(count, folded_);
  const std::string& block = make_block(kFoldedMarker, folded_, static_cast<std::uint32_t>(count));
  write(block.data(), block.size());
  folder_->drop(count);
}

// Written whole under a temporary name, then renamed over the last one.
void RankWriter::write_tail() {
  std::error_code ignored;
  if (folder_->items() == 0) {
    fs::remove(tail_path_, ignored);
    return;
  }
  folded_.clear();
  folder_->encode(folder_->items(), folded_);
  const std::string& block = make_block(kFoldedMarker, folded_, static_cast<std::uint32_t>(folder_->items()));
  char header[kTailHeaderBytes] = {};
  put_u32(header, kTailMarker);
  put_u64(header + 8, file_bytes_);
  put_u64(header + 16, XXH64(header, 16, 0));
  fs::path next = tail_path_;
  next += ".new";
  std::FILE* file = std::fopen(next.c_str(), "wb");
  if (!file) write_failed(next);
  bool ok = std::fwrite(header, 1, sizeof header, file) == sizeof header;
  ok = ok && std::fwrite(block.data(), 1, block.size(), file) == block.size();
  ok = (std::fclose(file) == 0) && ok;
  if (!ok) write_failed(next);
  fs::rename(next, tail_path_, ignored);
  if (ignored) write_failed(tail_path_);
}

const std::string& RankWriter::make_block(std::uint32_t marker, const std::string& raw, std::uint32_t count) {
  if (raw.size() > kMaxBlockBytes)
    throw UserError(
        fmt::format("rank {}: a block encodes to {} bytes, more than a block may hold", rank_, raw.size()),
        in_file(path_.string()));
  compressed_.resize(kBlockHeaderBytes + ZSTD_compressBound(raw.size()));
  std::size_t size =
      ZSTD_compressCCtx(compression_context(), compressed_.data() + kBlockHeaderBytes,
                        compressed_.size() - kBlockHeaderBytes, raw.data(), raw.size(), options_.compression_level);
  if (ZSTD_isError(size))
    throw UserError(fmt::format("rank {}: compression failed: {}", rank_, ZSTD_getErrorName(size)),
                    in_file(path_.string()));
  char header[kBlockHeaderBytes];
  put_u32(header, marker);
  put_u32(header + 4, static_cast<std::uint32_t>(raw.size()));
  put_u32(header + 8, static_cast<std::uint32_t>(size));
  put_u32(header + 12, count);
  put_u64(header + 16, XXH64(compressed_.data() + kBlockHeaderBytes, size, 0));
  seal_header(header);
  std::memcpy(compressed_.data(), header, kBlockHeaderBytes);
  compressed_.resize(kBlockHeaderBytes + size);
  return compressed_;
}

void RankWriter::close() {
  if (closed_) return;
  if (folder_) {
    seal_items(folder_->items());
    folder_.reset();
  }
  flush_block();
  char marker[kBlockHeaderBytes] = {};
  put_u32(marker, kEndMarker);
  put_u64(marker + 8, events_);
  seal_header(marker);
  write(marker, sizeof marker);
  std::error_code error;
  fs::rename(partial_path_, path_, error);
  if (error)
    throw UserError(fmt::format("cannot rename {} into place: {}", partial_path_.string(), error.message()),
                    in_file(path_.string()));
  closed_ = true;
  std::error_code ignored;
  fs::remove(tail_path_, ignored);
  encoder_.release();
  std::string().swap(compressed_);
  std::string().swap(folded_);
}

namespace {

fs::path clean_dir(const fs::path& dir) {
  fs::path clean = dir.lexically_normal();
  if (!clean.has_filename() && clean.has_parent_path()) clean = clean.parent_path();
  return clean;
}

// A path the writer may replace: absent, an empty directory, or a trace.
void check_replaceable(const fs::path& dir) {
  std::error_code error;
  auto status = fs::status(dir, error);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status))
    throw UserError("exists and is not a directory: not replacing it with a trace", in_file(dir.string()),
                    "choose another output path");
  if (!is_trace_dir(dir) && !fs::is_empty(dir, error))
    throw UserError("exists and is neither empty nor a perfcast trace (no trace.json): not replacing it",
                    in_file(dir.string()), "choose another output path, or remove the directory first");
}

// Replaces `target` (absent, or a directory) by `staging` in one step when the
// kernel can exchange the two; the old one ends up at `staging` to be removed.
void swap_into_place(const fs::path& staging, const fs::path& target) {
  std::error_code error;
  if (!fs::exists(target, error)) {
    fs::rename(staging, target, error);
    if (error)
      throw UserError(fmt::format("cannot move the finished trace into place: {}", error.message()),
                      in_file(target.string()));
    return;
  }
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(staging, error);
    return;
  }
  // No exchange on this filesystem: two renames, with the old trace kept
  // aside until the new one is in place.
  fs::path old = staging;
  old += ".old";
  fs::rename(target, old, error);
  if (!error) fs::rename(staging, target, error);
  if (error) {
    std::error_code ignored;
    if (!fs::exists(target, ignored)) fs::rename(old, target, ignored);
    throw UserError(fmt::format("cannot move the finished trace into place: {}", error.message()),
                    in_file(target.string()));
  }
  fs::remove_all(old, error);
}

}  // namespace

TraceWriter::TraceWriter(fs::path dir, int ranks, TraceMetadata metadata, WriterOptions options)
    : dir_(clean_dir(dir)), ranks_(ranks), metadata_(std::move(metadata)), options_(options) {
  if (ranks < 0) throw std::invalid_argument("TraceWriter: negative rank count");
  check_replaceable(dir_);
  // Next to the target, so the final rename stays on one filesystem.
  static std::atomic<unsigned> counter{0};
  fs::path parent = dir_.has_parent_path() ? dir_.parent_path() : fs::path(".");
  staging_ = parent / fmt::format(".{}.partial-{}-{}", dir_.filename().string(), ::getpid(), counter++);
  std::error_code error;
  fs::create_directory(staging_, error);
  if (error)
    throw UserError(fmt::format("cannot create {}: {}", staging_.string(), error.message()), in_file(dir_.string()),
                    "check that the parent directory exists and is writable");
  writers_.resize(static_cast<std::size_t>(ranks));
}

TraceWriter::~TraceWriter() {
  if (!closed_) {
    writers_.clear();
    std::error_code ignored;
    fs::remove_all(staging_, ignored);
  }
}

RankWriter& TraceWriter::rank(int r) {
  if (closed_) throw std::logic_error("TraceWriter::rank after close");
  if (r < 0 || r >= ranks_) throw std::out_of_range(fmt::format("TraceWriter: rank {} of {}", r, ranks_));
  auto& writer = writers_[static_cast<std::size_t>(r)];
  if (!writer) writer = std::make_unique<RankWriter>(staging_ / rank_file_name(r), r, options_);
  return *writer;
}

TraceManifest TraceWriter::close() {
  if (closed_) throw std::logic_error("TraceWriter::close twice");
  TraceManifest manifest;
  manifest.ranks = ranks_;
  manifest.metadata = metadata_;
  manifest.created = utc_now_iso8601();
  json streams = json::array();
  for (int r = 0; r < ranks_; ++r) {
    RankWriter& writer = rank(r);
    writer.close();
    manifest.streams.push_back({r, rank_file_name(r), writer.events()});
    streams.push_back({{"rank", r}, {"file", rank_file_name(r)}, {"events", writer.events()}});
  }
  json document = {{"format", kTraceFormatName},   {"version", kTraceFormatVersion}, {"ranks", ranks_},
                   {"program", metadata_.program}, {"command", metadata_.command},   {"created", manifest.created},
                   {"streams", std::move(streams)}};
  fs::path manifest_path = staging_ / kManifestName;
  {
    std::ofstream out(manifest_path);
    out << document.dump(1) << "\n";
    out.close();
    if (!out) write_failed(manifest_path);
  }
  check_replaceable(dir_);  // it may have changed while we wrote
  swap_into_place(staging_, dir_);
  closed_ = true;
  writers_.clear();
  return manifest;
}

TraceManifest write_trace(JobSource& job, const fs::path& dir, const TraceMetadata& metadata, WriterOptions options) {
  TraceWriter writer(dir, job.size(), metadata, options);
  std::vector<std::unique_ptr<RankSource>> sources;
  for (int r = 0; r < job.size(); ++r) sources.push_back(job.open_rank(r));
  Event event;
  for (int r = 0; r < job.size(); ++r) {
    RankWriter& out = writer.rank(r);
    while (sources[static_cast<std::size_t>(r)]->next(event, 0)) out.append(event);
    sources[static_cast<std::size_t>(r)].reset();
  }
  return writer.close();
}

// ---------------------------------------------------------------- reading

bool is_trace_dir(const fs::path& dir) {
  std::error_code error;
  return fs::is_directory(dir, error) && fs::is_regular_file(dir / kManifestName, error);
}

namespace {

[[noreturn]] void manifest_error(const fs::path& file, const std::string& field, const std::string& message) {
  throw UserError(message, {file.string(), std::nullopt, field});
}

const json& member(const json& object, const char* name, const fs::path& file, const std::string& prefix = {}) {
  auto it = object.find(name);
  if (it == object.end()) manifest_error(file, prefix + name, "missing");
  return *it;
}

std::int64_t integer(const json& value, const fs::path& file, const std::string& field) {
  if (!value.is_number_integer()) manifest_error(file, field, "expected an integer, got " + value.dump());
  return value.get<std::int64_t>();
}

}  // namespace

TraceManifest read_manifest(const fs::path& dir) {
  std::error_code error;
  if (!fs::exists(dir, error)) throw UserError("no such trace (file or directory)", in_file(dir.string()));
  if (!fs::is_directory(dir, error))
    throw UserError("not a trace directory (a trace is a directory holding trace.json)", in_file(dir.string()));
  fs::path file = dir / kManifestName;
  if (!fs::exists(file, error))
    throw UserError("not a perfcast trace: no trace.json in this directory", in_file(dir.string()));

  json document;
  {
    std::ifstream in(file);
    if (!in) throw UserError("cannot read: " + system_error_text(), in_file(file.string()));
    try {
      document = json::parse(in);
    } catch (const json::exception& e) {
      throw UserError(std::string("not valid JSON: ") + e.what(), in_file(file.string()));
    }
  }
  if (!document.is_object()) throw UserError("expected a JSON object", in_file(file.string()));
  const json& format = member(document, "format", file);
  if (format != kTraceFormatName)
    manifest_error(file, "format", fmt::format("is {}, expected \"{}\"", format.dump(), kTraceFormatName));

  TraceManifest manifest;
  std::int64_t version = integer(member(document, "version", file), file, "version");
  if (version < 1 || version > kTraceFormatVersion)
    throw UserError(
        fmt::format("trace format version {} is not one this perfcast reads (1 to {})", version, kTraceFormatVersion),
        {file.string(), std::nullopt, "version"}, "a newer perfcast may read it");
  manifest.version = static_cast<std::uint32_t>(version);
  std::int64_t ranks = integer(member(document, "ranks", file), file, "ranks");
  if (ranks < 0 || ranks > INT32_MAX) manifest_error(file, "ranks", fmt::format("{} is not a rank count", ranks));
  manifest.ranks = static_cast<int>(ranks);

  if (auto it = document.find("program"); it != document.end() && it->is_string())
    manifest.metadata.program = it->get<std::string>();
  if (auto it = document.find("command"); it != document.end() && it->is_array())
    for (const json& word : *it)
      if (word.is_string()) manifest.metadata.command.push_back(word.get<std::string>());
  if (auto it = document.find("created"); it != document.end() && it->is_string())
    manifest.created = it->get<std::string>();

  const json& streams = member(document, "streams", file);
  if (!streams.is_array()) manifest_error(file, "streams", "expected an array");
  if (streams.size() != static_cast<std::size_t>(ranks))
    manifest_error(
        file, "streams",
        fmt::format("lists {} rank streams, but 'ranks' is {} (manifest corrupted or edited)", streams.size(), ranks));
  for (std::size_t r = 0; r < streams.size(); ++r) {
    std::string prefix = fmt::format("streams[{}].", r);
    const json& entry = streams[r];
    if (!entry.is_object()) manifest_error(file, fmt::format("streams[{}]", r), "expected an object");
    RankStreamInfo info;
    std::int64_t rank = integer(member(entry, "rank", file, prefix), file, prefix + "rank");
    if (rank != static_cast<std::int64_t>(r))
      manifest_error(file, prefix + "rank",
                     fmt::format("is {}, expected {} (streams are listed in rank order)", rank, r));
    info.rank = static_cast<int>(r);
    const json& name = member(entry, "file", file, prefix);
    if (!name.is_string()) manifest_error(file, prefix + "file", "expected a file name");
    info.file = name.get<std::string>();
    // Only plain names: a manifest must not point readers outside its trace.
    if (info.file.empty() || info.file.find('/') != std::string::npos || info.file == "." || info.file == "..")
      manifest_error(file, prefix + "file", fmt::format("'{}' is not a file name in the trace directory", info.file));
    const json& events = member(entry, "events", file, prefix);
    if (!events.is_number_unsigned()) manifest_error(file, prefix + "events", "expected an event count");
    info.events = events.get<std::uint64_t>();
    if (!fs::is_regular_file(dir / info.file, error))
      throw UserError(fmt::format("rank {}: stream file '{}' is missing", r, info.file), in_file(dir.string()),
                      "the trace is incomplete: copy it again or record it again");
    manifest.streams.push_back(std::move(info));
  }
  return manifest;
}

TraceRankSource::TraceRankSource(fs::path path, int rank, std::uint64_t expected_events)
    : path_(std::move(path)), rank_(rank), expected_events_(expected_events), offset_(kFileHeaderBytes) {
  FileDescriptor file{::open(path_.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) fail("cannot open: " + system_error_text());
  char header[kFileHeaderBytes];
  std::size_t got = read_at(file.fd, header, sizeof header, 0);
  if (got == static_cast<std::size_t>(-1)) fail("cannot read: " + system_error_text());
  if (got < sizeof header) fail(fmt::format("file ends at offset {} inside the file header: truncated trace", got));
  if (std::memcmp(header, kMagic, 8) != 0) fail("not a perfcast event stream (bad magic at offset 0)");
  std::uint32_t version = get_u32(header + 8);
  if (version < 1 || version > kTraceFormatVersion)
    fail(
        fmt::format("stream format version {} is not one this perfcast reads (1 to {})", version, kTraceFormatVersion));
  version_ = version;
  std::uint32_t header_rank = get_u32(header + 12);
  if (header_rank != static_cast<std::uint32_t>(rank))
    fail(fmt::format("the file header says rank {} (file misplaced or corrupted)", header_rank));
}

void TraceRankSource::fail(const std::string& message) const {
  throw UserError(fmt::format("rank {}: {}", rank_, message), in_file(path_.string()));
}

bool TraceRankSource::load_block() {
  FileDescriptor file{::open(path_.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) fail("cannot open: " + system_error_text());
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) fail("cannot read: " + system_error_text());
  const auto file_size = static_cast<std::uint64_t>(info.st_size);

  block_offset_ = offset_;
  if (offset_ >= file_size)
    fail(
        fmt::format("file ends at offset {} where a block or the end marker should start: truncated trace", file_size));
  if (file_size - offset_ < kBlockHeaderBytes)
    fail(fmt::format("file ends at offset {} inside the block at offset {}: truncated trace", file_size, offset_));
  char header[kBlockHeaderBytes];
  if (read_at(file.fd, header, sizeof header, offset_) != sizeof header) fail("cannot read: " + system_error_text());
  auto corrupted = [&](const std::string& what) {
    fail(fmt::format("block at offset {}: {} (file corrupted)", block_offset_, what));
  };
  if (!header_intact(header)) corrupted("checksum mismatch");

  std::uint32_t marker = get_u32(header);
  if (marker == kEndMarker) {
    std::uint64_t total = get_u64(header + 8);
    if (total != events_read_)
      corrupted(fmt::format("the end marker counts {} events, the blocks held {}", total, events_read_));
    if (total != expected_events_ && expected_events_ != kUnknownEventCount)
      fail(fmt::format("the stream holds {} events, trace.json says {} (manifest and stream disagree)", total,
                       expected_events_));
    if (file_size != offset_ + kBlockHeaderBytes)
      fail(fmt::format("{} unexpected bytes after the end marker at offset {}", file_size - offset_ - kBlockHeaderBytes,
                       offset_));
    finished_ = true;
    std::string().swap(compressed_);
    std::string().swap(block_);
    return false;
  }
  if (marker == kFoldedMarker && version_ < 3)
    corrupted(fmt::format("a folded block in a stream of format version {} (folded blocks came with 3)", version_));
  if (marker != kBlockMarker && marker != kFoldedMarker) corrupted("not a block header");

  std::uint32_t raw_size = get_u32(header + 4);
  std::uint32_t compressed_size = get_u32(header + 8);
  std::uint32_t events = get_u32(header + 12);  // a folded block: its top-level items
  if (events == 0 || raw_size == 0 || raw_size > kMaxBlockBytes || compressed_size > ZSTD_compressBound(raw_size))
    corrupted("impossible block sizes");
  if (file_size - offset_ - kBlockHeaderBytes < compressed_size)
    fail(fmt::format("file ends at offset {} inside the block at offset {}: truncated trace", file_size, offset_));
  compressed_.resize(compressed_size);
  if (read_at(file.fd, compressed_.data(), compressed_size, offset_ + kBlockHeaderBytes) != compressed_size)
    fail("cannot read: " + system_error_text());
  if (XXH64(compressed_.data(), compressed_size, 0) != get_u64(header + 16)) corrupted("checksum mismatch");
  block_.resize(raw_size);
  std::size_t size =
      ZSTD_decompressDCtx(decompression_context(), block_.data(), raw_size, compressed_.data(), compressed_size);
  if (ZSTD_isError(size)) corrupted(std::string("payload does not decompress: ") + ZSTD_getErrorName(size));
  if (size != raw_size) corrupted("payload decompresses to the wrong size");
  const auto* payload = reinterpret_cast<const std::uint8_t*>(block_.data());
  folded_block_ = marker == kFoldedMarker;
  if (folded_block_) {
    try {
      folded_.reset(payload, raw_size, events);
    } catch (const codec::DecodeError& e) {
      corrupted(fmt::format("folded payload is malformed: {}", e.what()));
    }
    if (folded_.events() == 0) corrupted("a folded block of no events");
  } else {
    decoder_.reset(payload, raw_size, events, version_);
  }
  offset_ += kBlockHeaderBytes + compressed_size;
  return true;
}

bool TraceRankSource::next(Event& out, double) {
  if (finished_) return false;
  while (block_done())
    if (!load_block()) return false;
  try {
    if (folded_block_) {
      folded_.next(out);
      ++folded_events_read_;
    } else
      decoder_.next(out);
  } catch (const codec::DecodeError& e) {
    fail(fmt::format("block at offset {}: event {} of the block is malformed: {} (file corrupted)", block_offset_,
                     decoder_.decoded(), e.what()));
  }
  ++events_read_;
  return true;
}

namespace {

// How far a stream file reads whole: the end of its last whole block.
struct WholePrefix {
  std::uint64_t bytes = kFileHeaderBytes;
  std::uint64_t events = 0;
  bool closed = false;   // it ends with a valid end marker
  std::string stopped;   // why reading stopped (when not closed)
};

WholePrefix whole_prefix(const fs::path& file, int rank) {
  TraceRankSource source(file, rank, kUnknownEventCount);
  WholePrefix out;
  Event event;
  try {
    while (source.next(event))
      if (source.block_done()) {
        out.bytes = source.next_block_offset();
        out.events = source.events_read();
      }
    out.closed = true;
  } catch (const UserError& e) {
    out.stopped = e.what();
  }
  return out;
}

// The block of a tail file (trace.h) when it is whole and follows exactly
// `stream_bytes` of its stream; empty otherwise.
std::string tail_block(const fs::path& tail, std::uint64_t stream_bytes) {
  std::ifstream in(tail, std::ios::binary);
  if (!in) return {};
  std::stringstream text;
  text << in.rdbuf();
  std::string bytes = text.str();
  if (bytes.size() < kTailHeaderBytes + kBlockHeaderBytes) return {};
  if (get_u32(bytes.data()) != kTailMarker || XXH64(bytes.data(), 16, 0) != get_u64(bytes.data() + 16)) return {};
  if (get_u64(bytes.data() + 8) != stream_bytes) return {};  // stale: the stream has moved on
  return bytes.substr(kTailHeaderBytes);
}

void copy_prefix(const fs::path& from, const fs::path& to, std::uint64_t bytes) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  std::vector<char> buffer(1 << 16);
  while (bytes > 0 && in) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, buffer.size()));
    in.read(buffer.data(), static_cast<std::streamsize>(n));
    out.write(buffer.data(), in.gcount());
    bytes -= static_cast<std::uint64_t>(in.gcount());
  }
  out.close();
  if (!out || bytes != 0) write_failed(to);
}

}  // namespace

SalvagedStream salvage_stream(const fs::path& partial, const fs::path& path, int rank) {
  SalvagedStream out;
  std::error_code error;
  out.file_bytes = fs::file_size(partial, error);
  // Moved aside first: the writer's own temporary file may be `partial`.
  fs::path torn = partial;
  torn += ".torn";
  fs::path tail = partial;
  tail += ".tail";
  fs::rename(partial, torn, error);
  if (error) throw UserError(fmt::format("cannot move aside: {}", error.message()), in_file(partial.string()));
  WholePrefix whole = whole_prefix(torn, rank);
  out.whole_bytes = whole.closed ? out.file_bytes : whole.bytes;
  out.stopped = whole.closed ? "the stream was whole (closed before its file was renamed)" : whole.stopped;
  if (!whole.closed) {
    // A folding writer's open items: kept when the tail follows the whole blocks.
    std::string block = tail_block(tail, whole.bytes);
    if (!block.empty()) {
      fs::resize_file(torn, whole.bytes, error);
      if (!error) {
        std::ofstream append(torn, std::ios::binary | std::ios::app);
        append.write(block.data(), static_cast<std::streamsize>(block.size()));
      }
      out.file_bytes += block.size();
      WholePrefix with_tail = whole_prefix(torn, rank);
      if (with_tail.bytes > whole.bytes) {
        whole = with_tail;
        out.whole_bytes = whole.bytes;
        out.stopped += "; the open loops of its tail file were kept";
      }
    }
  }
  fs::path staging = path;
  staging += ".partial";
  copy_prefix(torn, staging, whole.bytes);
  char marker[kBlockHeaderBytes] = {};
  put_u32(marker, kEndMarker);
  put_u64(marker + 8, whole.events);
  seal_header(marker);
  {
    std::ofstream end(staging, std::ios::binary | std::ios::app);
    end.write(marker, sizeof marker);
    end.close();
    if (!end) write_failed(staging);
  }
  fs::rename(staging, path, error);
  if (error) throw UserError(fmt::format("cannot rename into place: {}", error.message()), in_file(path.string()));
  out.events = whole.events;
  fs::remove(torn, error);
  fs::remove(tail, error);
  tail += ".new";  // a tail whose writer was killed before renaming it
  fs::remove(tail, error);
  return out;
}

TraceJobSource::TraceJobSource(fs::path dir) : dir_(std::move(dir)), manifest_(read_manifest(dir_)) {}

std::unique_ptr<RankSource> TraceJobSource::open_rank(int rank) {
  if (rank < 0 || rank >= manifest_.ranks)
    throw std::out_of_range(fmt::format("TraceJobSource: rank {} of {}", rank, manifest_.ranks));
  const RankStreamInfo& info = manifest_.streams[static_cast<std::size_t>(rank)];
  return std::make_unique<TraceRankSource>(dir_ / info.file, rank, info.events);
}

std::unique_ptr<JobSource> open_trace(const fs::path& dir) { return std::make_unique<TraceJobSource>(dir); }

}  // namespace perfcast::events
