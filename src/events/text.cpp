#include "events/text.h"

#include "events/event_domain.h"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <fstream>
#include <map>
#include <ostream>
#include <sstream>

#include "support/error.h"
#include "support/output_file.h"

namespace perfcast::events {

namespace fs = std::filesystem;

namespace {

// Where an error is: a whole file (no line or field).
SourceLocation in_file(std::string file) { return {std::move(file), std::nullopt, ""}; }

const Event kDefault{};

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// fmt's "{}" is the shortest text that reads back to the same double.
std::string real_text(double v) { return fmt::format("{}", v); }

std::string rank_text(std::int32_t v) {
  if (v == kAnySource) return "any";
  if (v == kProcNull) return "null";
  return std::to_string(v);
}
std::string tag_text(std::int32_t v) { return v == kAnyTag ? "any" : std::to_string(v); }
std::string color_text(std::int32_t v) { return v == kUndefinedColor ? "undefined" : std::to_string(v); }
std::string list_text(const std::vector<std::uint64_t>& values) {
  std::string s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(values[i]);
  }
  return s;
}

// A parse failure inside one line: the field it concerns and what was expected.
struct LineError {
  std::string field;
  std::string message;
};

[[noreturn]] void expected(std::string_view key, std::string_view what, std::string_view got) {
  throw LineError{std::string(key), fmt::format("expected {}, got '{}'", what, got)};
}

template <typename T>
bool parse_number(std::string_view text, T& out) {
  const char* end = text.data() + text.size();
  auto [p, error] = std::from_chars(text.data(), end, out);
  return error == std::errc() && p == end;
}

std::int32_t parse_int32(std::string_view key, std::string_view text, std::string_view what = "an integer") {
  std::int32_t v;
  if (!parse_number(text, v)) expected(key, what, text);
  return v;
}
std::uint64_t parse_uint64(std::string_view key, std::string_view text, std::string_view what) {
  std::uint64_t v;
  if (!parse_number(text, v)) expected(key, what, text);
  return v;
}
// A compute quantity given in the text: finite and >= 0 (-1 is the binary
// form's "not given", never a value a user writes).
double parse_real(std::string_view key, std::string_view text) {
  double v;
  if (!parse_number(text, v)) expected(key, "a number (like 1.5e-3)", text);
  if (auto why = explicit_quantity_error(v))
    throw LineError{std::string(key), fmt::format("'{}' {}: expected a finite number >= 0", text, *why)};
  return v;
}
std::int32_t parse_rank(std::string_view key, std::string_view text) {
  if (text == "any") return kAnySource;
  if (text == "null") return kProcNull;
  return parse_int32(key, text, "a rank, 'any' or 'null'");
}
std::int32_t parse_tag(std::string_view key, std::string_view text) {
  if (text == "any") return kAnyTag;
  return parse_int32(key, text, "a tag or 'any'");
}
std::vector<std::uint64_t> parse_list(std::string_view key, std::string_view text, std::string_view what) {
  std::vector<std::uint64_t> values;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = text.find(',', start);
    std::string_view item =
        text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    values.push_back(parse_uint64(key, item, what));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return values;
}

// Splits on blanks, dropping a trailing '#' comment.
std::vector<std::string_view> words(std::string_view line) {
  if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    std::size_t start = i;
    while (i < line.size() && !(line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::string kind_list() {
  std::string s;
  for (int k = 0; k < kKindCount; ++k) {
    if (k) s += ", ";
    s += kind_name(static_cast<Kind>(k));
  }
  return s;
}

Event parse_words(const std::vector<std::string_view>& w) {
  Event e;
  if (!parse_kind(w[0], e.kind))
    throw LineError{"", fmt::format("unknown event kind '{}' (expected one of: {})", w[0], kind_list())};
  const bool compute = e.kind == Kind::Compute;
  const bool completion = is_completion(e.kind);
  std::uint32_t given = 0;  // one bit per Event field, to reject a field set twice
  auto once = [&](int bit, std::string_view key) {
    if (given & (1u << bit)) throw LineError{std::string(key), "given twice"};
    given |= 1u << bit;
  };

  std::size_t first = 1;
  if (compute && w.size() > 1 && w[1].find('=') == std::string_view::npos) {
    e.seconds = parse_real("seconds", w[1]);
    once(0, "seconds");
    first = 2;
  }
  for (std::size_t i = first; i < w.size(); ++i) {
    std::size_t eq = w[i].find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == w[i].size())
      throw LineError{"", fmt::format("expected key=value, got '{}'", w[i])};
    std::string_view key = w[i].substr(0, eq), value = w[i].substr(eq + 1);
    if (key == "seconds") {
      once(0, key), e.seconds = parse_real(key, value);
    } else if (key == "flops") {
      once(1, key), e.flops = parse_real(key, value);
    } else if (key == "bytes_moved" || (compute && key == "bytes")) {
      once(2, key), e.bytes_moved = parse_real(key, value);
    } else if (key == "comm") {
      once(3, key), e.comm = parse_int32(key, value, "a communicator handle");
    } else if (key == "peer") {
      once(4, key), e.peer = parse_rank(key, value);
    } else if (key == "root" || key == "source") {
      once(5, key), e.root = parse_rank(key, value);
    } else if (key == "tag") {
      once(6, key), e.tag = parse_tag(key, value);
    } else if (key == "tag2") {
      once(7, key), e.tag2 = parse_tag(key, value);
    } else if (key == "bytes" || key == "msg_bytes") {
      once(8, key), e.bytes = parse_uint64(key, value, "a whole number of bytes");
    } else if (key == "bytes2") {
      once(9, key), e.bytes2 = parse_uint64(key, value, "a whole number of bytes");
    } else if (key == "request" || (key == "req" && !completion)) {
      once(10, key), e.request = parse_uint64(key, value, "one request id");
    } else if (key == "requests" || key == "req") {
      once(11, key), e.requests = parse_list(key, value, "request ids separated by commas");
    } else if (key == "counts") {
      once(12, key), e.counts = parse_list(key, value, "byte counts separated by commas");
    } else if (key == "counts2") {
      once(13, key), e.counts2 = parse_list(key, value, "byte counts separated by commas");
    } else if (key == "color") {
      once(14, key),
          e.color = value == "undefined" ? kUndefinedColor : parse_int32(key, value, "a color or 'undefined'");
    } else if (key == "key") {
      once(15, key), e.key = parse_int32(key, value);
    } else if (key == "new") {
      once(16, key), e.new_comm = parse_int32(key, value, "a communicator handle");
    } else if (key == "dur") {
      if (compute) throw LineError{std::string(key), "a compute burst's time is its seconds; dur= is an MPI call's"};
      once(18, key), e.duration_s = parse_real(key, value);
    } else if (key == "site") {
      std::uint64_t site = parse_uint64(key, value, "a site id");
      if (site > UINT32_MAX) expected(key, "a site id below 2^32", value);
      once(17, key), e.site = static_cast<std::uint32_t>(site);
    } else {
      throw LineError{std::string(key),
                      "unknown field (expected peer, root, source, tag, tag2, bytes, bytes2, req, request, requests, "
                      "counts, counts2, color, key, new, comm, seconds, flops, bytes_moved, msg_bytes, dur or site)"};
    }
  }
  return e;
}

}  // namespace

std::string format_event(const Event& e) {
  std::string s(kind_name(e.kind));
  auto field = [&](std::string_view key, const std::string& value) {
    s += ' ';
    s += key;
    s += '=';
    s += value;
  };
  const bool compute = e.kind == Kind::Compute;
  const bool completion = is_completion(e.kind);

  if (compute) {
    if (!same_bits(e.seconds, kDefault.seconds)) s += ' ' + real_text(e.seconds);
    if (!same_bits(e.flops, kDefault.flops)) field("flops", real_text(e.flops));
    if (!same_bits(e.bytes_moved, kDefault.bytes_moved)) field("bytes", real_text(e.bytes_moved));
  }
  if (e.peer != kDefault.peer || is_point_to_point(e.kind)) field("peer", rank_text(e.peer));
  if (e.root != kDefault.root) field(e.kind == Kind::Sendrecv ? "source" : "root", rank_text(e.root));
  if (e.tag != kDefault.tag) field("tag", tag_text(e.tag));
  if (e.tag2 != kDefault.tag2) field("tag2", tag_text(e.tag2));
  if (e.bytes != kDefault.bytes) field(compute ? "msg_bytes" : "bytes", std::to_string(e.bytes));
  if (e.bytes2 != kDefault.bytes2) field("bytes2", std::to_string(e.bytes2));
  if (e.request != kDefault.request) field(completion ? "request" : "req", std::to_string(e.request));
  if (!e.requests.empty()) field(completion ? "req" : "requests", list_text(e.requests));
  if (!e.counts.empty()) field("counts", list_text(e.counts));
  if (!e.counts2.empty()) field("counts2", list_text(e.counts2));
  if (e.color != kDefault.color) field("color", color_text(e.color));
  if (e.key != kDefault.key) field("key", std::to_string(e.key));
  if (e.new_comm != kDefault.new_comm) field("new", std::to_string(e.new_comm));
  if (e.comm != kDefault.comm) field("comm", std::to_string(e.comm));
  if (!compute) {
    if (!same_bits(e.seconds, kDefault.seconds)) field("seconds", real_text(e.seconds));
    if (!same_bits(e.flops, kDefault.flops)) field("flops", real_text(e.flops));
    if (!same_bits(e.bytes_moved, kDefault.bytes_moved)) field("bytes_moved", real_text(e.bytes_moved));
  }
  if (!same_bits(e.duration_s, kDefault.duration_s)) field("dur", real_text(e.duration_s));
  if (e.site != kDefault.site) field("site", std::to_string(e.site));
  return s;
}

Event parse_event(std::string_view line) {
  auto w = words(line);
  if (w.empty()) throw UserError("expected an event, got an empty line");
  try {
    return parse_words(w);
  } catch (const LineError& e) {
    throw UserError(e.message, {"", std::nullopt, e.field});
  }
}

void write_text(JobSource& job, std::ostream& out, const TextWriteOptions& options) {
  if (options.only_rank >= job.size())
    throw UserError(fmt::format("there is no rank {}: the job has {} rank{}", options.only_rank, job.size(),
                                job.size() == 1 ? "" : "s"),
                    {}, fmt::format("--rank takes 0 to {}", job.size() - 1));
  out << "# perfcast events " << kTextFormatVersion << "\n";
  int first = options.only_rank >= 0 ? options.only_rank : 0;
  int last = options.only_rank >= 0 ? options.only_rank : job.size() - 1;
  std::vector<std::unique_ptr<RankSource>> sources;
  for (int r = first; r <= last; ++r) sources.push_back(job.open_rank(r));
  Event event;
  for (int r = first; r <= last; ++r) {
    out << "rank " << r << "\n";
    auto& source = sources[static_cast<std::size_t>(r - first)];
    for (std::uint64_t n = 0; n < options.head && source->next(event, 0); ++n) out << format_event(event) << "\n";
    source.reset();
  }
}

void write_text_file(JobSource& job, const fs::path& path) {
  AtomicFile out(path);
  write_text(job, out.stream());
  out.commit();
}

std::unique_ptr<VectorJobSource> parse_text_job(std::string_view text, const std::string& name) {
  std::map<int, std::pair<std::vector<Event>, int>> ranks;  // rank -> events, line of its "rank" line
  std::vector<Event>* current = nullptr;
  int line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    SourceLocation where{name, line_number, ""};

    if (line.starts_with("# perfcast events")) {
      auto w = words(line.substr(1));
      int version = 0;
      if (w.size() != 3 || !parse_number(w[2], version))
        throw UserError("expected '# perfcast events <version>'", where);
      if (version != kTextFormatVersion)
        throw UserError(
            fmt::format("text format version {}; this perfcast reads version {}", version, kTextFormatVersion), where);
      continue;
    }
    auto w = words(line);
    if (w.empty()) continue;
    if (w[0] == "rank") {
      int rank = -1;
      if (w.size() != 2 || !parse_number(w[1], rank) || rank < 0)
        throw UserError(fmt::format("expected 'rank N' with N a rank from 0, got '{}'", line), where);
      auto [it, inserted] = ranks.try_emplace(rank, std::vector<Event>{}, line_number);
      if (!inserted)
        throw UserError(fmt::format("rank {} appears twice (first at line {})", rank, it->second.second), where);
      current = &it->second.first;
      continue;
    }
    if (!current) throw UserError(fmt::format("expected 'rank N' before the first event, got '{}'", w[0]), where);
    try {
      current->push_back(parse_words(w));
    } catch (const LineError& e) {
      throw UserError(e.message, {name, line_number, e.field});
    }
  }
  if (ranks.empty())
    throw UserError("no 'rank N' line: not a perfcast event text", in_file(name),
                    "a text job starts with '# perfcast events 1', then 'rank 0' and its events");
  std::vector<std::vector<Event>> streams;
  int expected_rank = 0;
  for (auto& [rank, entry] : ranks) {
    if (rank != expected_rank)
      throw UserError(
          fmt::format("rank {} is missing (ranks 0 to {} must each appear)", expected_rank, ranks.rbegin()->first),
          in_file(name), "an empty rank is written as a 'rank N' line with no events after it");
    streams.push_back(std::move(entry.first));
    ++expected_rank;
  }
  return std::make_unique<VectorJobSource>(std::move(streams));
}

std::unique_ptr<VectorJobSource> read_text_job(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read event text (no such file, or no permission)", in_file(path.string()));
  std::ostringstream content;
  content << in.rdbuf();
  return parse_text_job(content.str(), path.string());
}

}  // namespace perfcast::events
