// Folded event streams: a rank's repeated loops of events stored once, with
// their trip counts (ScalaTrace's intra-node compression), for traces whose
// size must not grow with the length of a run that repeats itself.
//
// Lossless for the sequence, summarised for the times. Events are compared
// by their shape (trace_codec.h: kind, peers, tags, bytes, communicators,
// requests as differences from the previous one, call site, flops: every
// field but the compute seconds and the call's duration), so the folded
// stream expands to exactly the recorded sequence of shapes, request ids
// included. Times cannot stay per event while a ten times longer run stays
// the same size: each position of a loop body keeps, per time it has, the
// minimum, mean and maximum over every time that position ran. Expansion
// gives every occurrence the position's mean (the exact value where all
// were equal, and for events outside any loop); what is lost is each
// occurrence's own time, so a replay's total per position is exact
// (mean x count) while its per-iteration variation is gone.
//
// Folding is online with bounded memory: each appended event becomes an
// item; a body of up to `window` items right after an equal body becomes a
// loop of two trips, and an equal body after a loop adds a trip; loops of
// equal bodies and trip counts fold again into outer loops. Items further
// back than two windows can no longer fold and are `settled`: a writer
// encodes and drops them.
//
// A folded block's payload (format version 3; zstd-compressed like any
// block): varint events (expanded), varint previous request (the request
// state its first shape is relative to), varint items, then the items. An
// item is a leaf, a shape followed by its times (for seconds then duration,
// each the event has: byte 0 and one time when every occurrence was equal,
// or byte 1 and min, max (times) and mean (raw double)), or a loop: byte 0x7f,
// varint trips, varint body items, then the body's items.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "events/event.h"
#include "events/trace_codec.h"

namespace perfcast::events::codec {

// The longest loop body looked for, in items (events and loops already folded).
inline constexpr std::size_t kFoldWindow = 256;

// The times one loop position took over every occurrence.
struct TimeStats {
  std::uint64_t count = 0;
  double min = 0, max = 0, sum = 0;
  void add(double value);
  void merge(const TimeStats& other);
  double mean() const { return count ? sum / static_cast<double>(count) : 0; }
};

class LoopFolder {
 public:
  explicit LoopFolder(std::size_t window = kFoldWindow);
  ~LoopFolder();

  void append(const Event& event);
  std::size_t items() const;
  // Leaves over all items (a loop's body counted once): the folded size.
  std::uint64_t positions() const;
  // How many leading items no later fold can reach.
  std::size_t settled() const;
  // Events the first `count` items expand to.
  std::uint64_t events(std::size_t count) const;
  // Appends the folded payload of the first `count` items to `out`.
  void encode(std::size_t count, std::string& out) const;
  // Forgets the first `count` items (written).
  void drop(std::size_t count);

 private:
  struct Node;
  bool fold();
  std::size_t window_;
  std::vector<Node> items_;
  std::uint64_t previous_request_ = 0;  // after the last appended event
};

// Expands a folded payload one event at a time.
class FoldedBlockDecoder {
 public:
  // Parses the whole payload (bounded by a block): throws DecodeError when
  // it is malformed. `data` must outlive the decoding.
  void reset(const std::uint8_t* data, std::size_t size, std::uint32_t items);
  bool done() const { return decoded_ == events_; }
  std::uint64_t events() const { return events_; }
  std::uint64_t decoded() const { return decoded_; }
  // Precondition: !done().
  void next(Event& out);

 private:
  struct Node {
    bool loop = false;
    std::uint64_t trips = 0;
    std::uint32_t first = 0, count = 0;  // loop: its body in children_
    const std::uint8_t* shape = nullptr;
    const std::uint8_t* shape_end = nullptr;
    double seconds = -1, duration = -1;
  };
  struct Frame {
    std::uint32_t node;
    std::uint32_t position = 0;
    std::uint64_t trip = 0;
  };
  std::uint32_t parse_item(const std::uint8_t*& p, const std::uint8_t* end, int depth, std::uint64_t& events);

  std::vector<Node> nodes_;
  std::vector<std::uint32_t> children_;
  std::vector<Frame> stack_;
  const std::uint8_t* end_ = nullptr;
  std::uint64_t events_ = 0, decoded_ = 0;
  std::uint64_t previous_request_ = 0;
};

}  // namespace perfcast::events::codec
