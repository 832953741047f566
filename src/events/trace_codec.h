// The compact encoding of events inside one block of a binary trace (trace.h).
// Internal to src/events: readers and writers of trace files use it; nothing
// else should depend on the byte layout.
//
// An event is: kind (1 byte), a varint mask of the fields that differ from
// Event{} (bit order puts the fields point-to-point and completion events use in
// the first 7 bits, so the mask is one byte for them), then those fields in mask
// order. Integers are LEB128 varints, signed ones zig-zagged; the request a call
// creates is stored as the difference from the previous request of the block,
// and a completion's request list as differences from that request and then from
// each other, so an iteration of a loop encodes to the same bytes as the last
// one and zstd removes it. Doubles are stored raw (8 bytes, little-endian):
// traced durations have no structure worth modelling, and raw keeps them exact.
// Delta state starts afresh with every block, so blocks decode independently.
//
// Format version 2 adds an MPI call's duration (Event::duration_s): the kind
// byte's top bit says one follows the other fields, as a varint v: even v is
// v/2 nanoseconds (seconds_of_ns, exact for the tracer's whole-nanosecond
// durations: 2 bytes up to 8 us, 3 up to 1 ms, 4 up to 134 ms), v = 1 is
// followed by the raw double (any other value). Version 1 has no such bit:
// a reader of version 1 data refuses a kind byte with it.
//
// Format version 3 adds folded blocks (loop_fold.h): repeated loops of events
// stored once with their trip counts. Their events are written as shapes:
// the layout above without the time values (the kind byte's top bit and the
// mask's seconds bit still say which times the event has); the times follow
// as loop_fold.h describes. Plain blocks keep version 2's layout.
//
// Format version 3 also appends MPI_Pcontrol to the vocabulary's kinds, so the marker's
// number moves up by one: in older data the number Pcontrol has now is a marker.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "events/event.h"

namespace perfcast::events::codec {

// A malformed payload: the reader turns it into a UserError naming the block.
struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The newest block layout, the one the encoder writes.
inline constexpr std::uint32_t kCodecVersion = 3;

// Which times an event carries: its compute seconds, its call's duration.
struct EventTimes {
  bool seconds = false;
  bool duration = false;
};

// An event's shape: every field but its time values, with its requests as
// differences from `previous_request` (updated as for a block). Two events of
// a loop's iterations have equal shapes when they differ only in time.
void put_shape(std::string& out, const Event& event, std::uint64_t& previous_request);
// Reads a shape at `p` (advanced past it): the times read as "not given";
// the result says which the event has. Throws DecodeError.
EventTimes get_shape(const std::uint8_t*& p, const std::uint8_t* end, Event& event, std::uint64_t& previous_request);

// The pieces folded blocks are made of: a time (whole nanoseconds when exact,
// as durations are, else a raw double), a raw double, a varint.
void put_time(std::string& out, double seconds);
void put_raw_double(std::string& out, double value);
void put_number(std::string& out, std::uint64_t value);
double get_time(const std::uint8_t*& p, const std::uint8_t* end);
double get_raw_double(const std::uint8_t*& p, const std::uint8_t* end);
std::uint64_t get_number(const std::uint8_t*& p, const std::uint8_t* end);

class BlockEncoder {
 public:
  void append(const Event& event);
  const std::string& bytes() const { return buffer_; }
  std::uint32_t events() const { return events_; }
  void clear();    // empties the buffer and restarts the delta state (a new block)
  void release();  // clear() and give the memory back

 private:
  std::string buffer_;
  std::uint32_t events_ = 0;
  std::uint64_t previous_request_ = 0;
};

class BlockDecoder {
 public:
  // `data` must outlive the decoding; the delta state restarts. `version` is
  // the stream's format version (1 to kCodecVersion).
  void reset(const std::uint8_t* data, std::size_t size, std::uint32_t events, std::uint32_t version = kCodecVersion);
  bool done() const { return decoded_ == events_; }
  // Decodes the next event (precondition: !done()). After the last event,
  // checks that the payload was used up exactly. Throws DecodeError.
  void next(Event& out);
  std::uint32_t decoded() const { return decoded_; }

 private:
  const std::uint8_t* position_ = nullptr;
  const std::uint8_t* end_ = nullptr;
  std::uint32_t events_ = 0;
  std::uint32_t decoded_ = 0;
  std::uint32_t version_ = kCodecVersion;
  std::uint64_t previous_request_ = 0;
};

}  // namespace perfcast::events::codec
