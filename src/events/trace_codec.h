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
  // `data` must outlive the decoding; the delta state restarts.
  void reset(const std::uint8_t* data, std::size_t size, std::uint32_t events);
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
  std::uint64_t previous_request_ = 0;
};

}  // namespace perfcast::events::codec
