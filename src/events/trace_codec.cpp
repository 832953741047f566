#include "events/trace_codec.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <string>

namespace perfcast::events::codec {

static_assert(std::endian::native == std::endian::little, "the trace codec writes doubles as little-endian bytes");

namespace {

// Mask bits, in the order the fields follow the mask.
enum Field : std::uint32_t {
  kPeer = 1u << 0,
  kTag = 1u << 1,
  kBytes = 1u << 2,
  kRequest = 1u << 3,
  kRequests = 1u << 4,
  kSeconds = 1u << 5,
  kComm = 1u << 6,
  kRoot = 1u << 7,
  kBytes2 = 1u << 8,
  kTag2 = 1u << 9,
  kFlops = 1u << 10,
  kBytesMoved = 1u << 11,
  kCounts = 1u << 12,
  kCounts2 = 1u << 13,
  kColor = 1u << 14,
  kKey = 1u << 15,
  kNewComm = 1u << 16,
  kSite = 1u << 17,
  kAllFields = (1u << 18) - 1,
};

const Event kDefault{};

// Version 2: the kind byte's top bit marks a duration after the other fields.
constexpr std::uint8_t kHasDuration = 0x80;
static_assert(kKindCount <= kHasDuration, "event kinds must leave the kind byte's top bit free");
// Nanoseconds below this fit a signed 64-bit count with room for the tag bit.
constexpr double kMaxDurationNs = 0x1p62;

// Bitwise, so that -0.0 and NaN payloads survive a round trip.
bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}
std::int64_t unzigzag(std::uint64_t v) { return static_cast<std::int64_t>((v >> 1) ^ (~(v & 1) + 1)); }

void put_varint(std::string& out, std::uint64_t v) {
  char buffer[10];
  int n = 0;
  while (v >= 0x80) {
    buffer[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  buffer[n++] = static_cast<char>(v);
  out.append(buffer, static_cast<size_t>(n));
}
void put_signed(std::string& out, std::int64_t v) { put_varint(out, zigzag(v)); }
void put_double(std::string& out, double d) {
  char bytes[8];
  std::memcpy(bytes, &d, 8);
  out.append(bytes, 8);
}
// A duration as 2 x nanoseconds when that reads back to the same bits, else
// 1 and the raw double.
void put_duration(std::string& out, double seconds) {
  double ns = seconds * 1e9;
  if (ns >= 0 && ns < kMaxDurationNs) {
    auto whole = static_cast<std::uint64_t>(std::llround(ns));
    if (same_bits(seconds_of_ns(whole), seconds)) {
      put_varint(out, whole << 1);
      return;
    }
  }
  put_varint(out, 1);
  put_double(out, seconds);
}
// Modular difference: exact for any pair of 64-bit ids.
void put_delta(std::string& out, std::uint64_t value, std::uint64_t previous) {
  put_varint(out, zigzag(static_cast<std::int64_t>(value - previous)));
}
void put_list(std::string& out, const std::vector<std::uint64_t>& values) {
  put_varint(out, values.size());
  for (std::uint64_t v : values) put_varint(out, v);
}

struct Reader {
  const std::uint8_t*& p;
  const std::uint8_t* end;

  [[noreturn]] static void fail(const char* what) { throw DecodeError(what); }

  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end) fail("payload ends inside a number");
      std::uint8_t byte = *p++;
      if (shift == 63 && byte > 1) fail("number too large");
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    fail("number too long");
  }
  std::int32_t int32() {
    std::int64_t v = unzigzag(varint());
    if (v < INT32_MIN || v > INT32_MAX) fail("32-bit field out of range");
    return static_cast<std::int32_t>(v);
  }
  double real() {
    if (end - p < 8) fail("payload ends inside a number");
    double d;
    std::memcpy(&d, p, 8);
    p += 8;
    return d;
  }
  double duration() {
    std::uint64_t v = varint();
    if (v == 1) return real();
    if (v & 1) fail("bad duration tag");
    return seconds_of_ns(v >> 1);
  }
  std::uint64_t delta(std::uint64_t previous) { return previous + static_cast<std::uint64_t>(unzigzag(varint())); }
  std::size_t length() {
    std::uint64_t n = varint();
    // Every element takes at least one byte: a larger count is corruption, and
    // checking it here keeps a bad count from allocating gigabytes.
    if (n > static_cast<std::uint64_t>(end - p)) fail("list longer than its block");
    return static_cast<std::size_t>(n);
  }
  void list(std::vector<std::uint64_t>& out) {
    out.resize(length());
    for (auto& v : out) v = varint();
  }
};

}  // namespace

void BlockEncoder::clear() {
  buffer_.clear();
  events_ = 0;
  previous_request_ = 0;
}

void BlockEncoder::release() {
  clear();
  std::string().swap(buffer_);
}

namespace {

// Writes `e` in the block layout. Without `with_times` its time values are
// left out: the kind byte's top bit and the mask's kSeconds bit still say
// which it has (a folded block's shape, loop_fold.h).
void put_fields(std::string& out, const Event& e, std::uint64_t& previous_request, bool with_times) {
  std::uint32_t mask = 0;
  if (e.peer != kDefault.peer) mask |= kPeer;
  if (e.tag != kDefault.tag) mask |= kTag;
  if (e.bytes != kDefault.bytes) mask |= kBytes;
  if (e.request != kDefault.request) mask |= kRequest;
  if (!e.requests.empty()) mask |= kRequests;
  if (!same_bits(e.seconds, kDefault.seconds)) mask |= kSeconds;
  if (e.comm != kDefault.comm) mask |= kComm;
  if (e.root != kDefault.root) mask |= kRoot;
  if (e.bytes2 != kDefault.bytes2) mask |= kBytes2;
  if (e.tag2 != kDefault.tag2) mask |= kTag2;
  if (!same_bits(e.flops, kDefault.flops)) mask |= kFlops;
  if (!same_bits(e.bytes_moved, kDefault.bytes_moved)) mask |= kBytesMoved;
  if (!e.counts.empty()) mask |= kCounts;
  if (!e.counts2.empty()) mask |= kCounts2;
  if (e.color != kDefault.color) mask |= kColor;
  if (e.key != kDefault.key) mask |= kKey;
  if (e.new_comm != kDefault.new_comm) mask |= kNewComm;
  if (e.site != kDefault.site) mask |= kSite;

  const bool timed = !same_bits(e.duration_s, kDefault.duration_s);
  out.push_back(static_cast<char>(static_cast<std::uint8_t>(e.kind) | (timed ? kHasDuration : 0)));
  put_varint(out, mask);
  if (mask & kPeer) put_signed(out, e.peer);
  if (mask & kTag) put_signed(out, e.tag);
  if (mask & kBytes) put_varint(out, e.bytes);
  if (mask & kRequest) {
    put_delta(out, e.request, previous_request);
    previous_request = e.request;
  }
  if (mask & kRequests) {
    put_varint(out, e.requests.size());
    std::uint64_t previous = previous_request;
    for (std::uint64_t r : e.requests) {
      put_delta(out, r, previous);
      previous = r;
    }
  }
  if ((mask & kSeconds) && with_times) put_double(out, e.seconds);
  if (mask & kComm) put_signed(out, e.comm);
  if (mask & kRoot) put_signed(out, e.root);
  if (mask & kBytes2) put_varint(out, e.bytes2);
  if (mask & kTag2) put_signed(out, e.tag2);
  if (mask & kFlops) put_double(out, e.flops);
  if (mask & kBytesMoved) put_double(out, e.bytes_moved);
  if (mask & kCounts) put_list(out, e.counts);
  if (mask & kCounts2) put_list(out, e.counts2);
  if (mask & kColor) put_signed(out, e.color);
  if (mask & kKey) put_signed(out, e.key);
  if (mask & kNewComm) put_signed(out, e.new_comm);
  if (mask & kSite) put_varint(out, e.site);
  if (timed && with_times) put_duration(out, e.duration_s);
}

// Reads what put_fields wrote. Without `with_times` the times read as
// "not given" and the returned flags say which the event has.
EventTimes get_fields(Reader& in, Event& e, std::uint64_t& previous_request, std::uint32_t version,
                      bool with_times) {
  if (in.p == in.end) Reader::fail("payload ends before its last event");
  std::uint8_t kind = *in.p++;
  const bool timed = version >= 2 && (kind & kHasDuration);
  if (timed) kind &= static_cast<std::uint8_t>(~kHasDuration);
  // Before version 3 the vocabulary ended at Finalize, and the marker took the number
  // MPI_Pcontrol (appended after Finalize) has now.
  if (version < 3 && kind == static_cast<std::uint8_t>(Kind::Pcontrol)) kind = static_cast<std::uint8_t>(Kind::Marker);
  if (kind >= kKindCount) Reader::fail("unknown event kind");
  std::uint64_t mask = in.varint();
  if (mask & ~static_cast<std::uint64_t>(kAllFields)) Reader::fail("unknown field");

  // Reuse the vectors' storage: the engine calls next() in a loop on one Event.
  e.kind = static_cast<Kind>(kind);
  e.peer = (mask & kPeer) ? in.int32() : kDefault.peer;
  e.tag = (mask & kTag) ? in.int32() : kDefault.tag;
  e.bytes = (mask & kBytes) ? in.varint() : kDefault.bytes;
  if (mask & kRequest) {
    e.request = in.delta(previous_request);
    previous_request = e.request;
  } else {
    e.request = kDefault.request;
  }
  e.requests.clear();
  if (mask & kRequests) {
    e.requests.resize(in.length());
    std::uint64_t previous = previous_request;
    for (auto& r : e.requests) previous = r = in.delta(previous);
  }
  e.seconds = (mask & kSeconds) && with_times ? in.real() : kDefault.seconds;
  e.comm = (mask & kComm) ? in.int32() : kDefault.comm;
  e.root = (mask & kRoot) ? in.int32() : kDefault.root;
  e.bytes2 = (mask & kBytes2) ? in.varint() : kDefault.bytes2;
  e.tag2 = (mask & kTag2) ? in.int32() : kDefault.tag2;
  e.flops = (mask & kFlops) ? in.real() : kDefault.flops;
  e.bytes_moved = (mask & kBytesMoved) ? in.real() : kDefault.bytes_moved;
  e.counts.clear();
  if (mask & kCounts) in.list(e.counts);
  e.counts2.clear();
  if (mask & kCounts2) in.list(e.counts2);
  e.color = (mask & kColor) ? in.int32() : kDefault.color;
  e.key = (mask & kKey) ? in.int32() : kDefault.key;
  e.new_comm = (mask & kNewComm) ? in.int32() : kDefault.new_comm;
  if (mask & kSite) {
    std::uint64_t site = in.varint();
    if (site > UINT32_MAX) Reader::fail("site out of range");
    e.site = static_cast<std::uint32_t>(site);
  } else {
    e.site = kDefault.site;
  }
  e.duration_s = timed && with_times ? in.duration() : kDefault.duration_s;
  e.live = nullptr;
  return {(mask & kSeconds) != 0, timed};
}

}  // namespace

void BlockEncoder::append(const Event& e) {
  put_fields(buffer_, e, previous_request_, true);
  ++events_;
}

void put_shape(std::string& out, const Event& e, std::uint64_t& previous_request) {
  put_fields(out, e, previous_request, false);
}

EventTimes get_shape(const std::uint8_t*& p, const std::uint8_t* end, Event& e, std::uint64_t& previous_request) {
  Reader in{p, end};
  return get_fields(in, e, previous_request, kCodecVersion, false);
}

void put_time(std::string& out, double seconds) { put_duration(out, seconds); }
void put_raw_double(std::string& out, double value) { put_double(out, value); }
void put_number(std::string& out, std::uint64_t value) { put_varint(out, value); }

double get_time(const std::uint8_t*& p, const std::uint8_t* end) {
  Reader in{p, end};
  return in.duration();
}
double get_raw_double(const std::uint8_t*& p, const std::uint8_t* end) {
  Reader in{p, end};
  return in.real();
}
std::uint64_t get_number(const std::uint8_t*& p, const std::uint8_t* end) {
  Reader in{p, end};
  return in.varint();
}

void BlockDecoder::reset(const std::uint8_t* data, std::size_t size, std::uint32_t events, std::uint32_t version) {
  version_ = version;
  position_ = data;
  end_ = data + size;
  events_ = events;
  decoded_ = 0;
  previous_request_ = 0;
}

void BlockDecoder::next(Event& e) {
  Reader in{position_, end_};
  get_fields(in, e, previous_request_, version_, true);
  ++decoded_;
  if (done() && position_ != end_) Reader::fail("bytes left after the block's last event");
}

}  // namespace perfcast::events::codec
