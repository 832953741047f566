// Hand-written event streams for the signature tests.
#pragma once

#include <vector>

#include "events/event.h"

namespace perfcast::signature::testing {

using events::Event;
using events::Kind;

inline Event compute(double s) {
  Event e;
  e.seconds = s;
  return e;
}
inline Event p2p(Kind kind, int peer, std::uint64_t bytes = 8, int tag = 0) {
  Event e;
  e.kind = kind;
  e.peer = peer;
  e.bytes = bytes;
  e.tag = tag;
  return e;
}
inline Event irecv(int peer, std::uint64_t request, std::uint64_t bytes = 8) {
  Event e = p2p(Kind::Irecv, peer, bytes);
  e.request = request;
  return e;
}
inline Event waitall(std::vector<std::uint64_t> requests) {
  Event e;
  e.kind = Kind::Waitall;
  e.requests = std::move(requests);
  return e;
}
inline Event sendrecv(int dest, int source, std::uint64_t bytes = 8) {
  Event e = p2p(Kind::Sendrecv, dest, bytes);
  e.root = source;
  e.bytes2 = bytes;
  return e;
}
inline Event collective(Kind kind, std::uint64_t bytes = 8) {
  Event e;
  e.kind = kind;
  e.bytes = e.bytes2 = bytes;
  return e;
}

}  // namespace perfcast::signature::testing
