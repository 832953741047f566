// Builders for the simulator's tests: events in code, machines from TOML.
#pragma once

#include <string>
#include <vector>

#include "events/memory_source.h"
#include "machine/machine_io.h"
#include "sim/engine.h"

namespace perfcast::sim::test {

using events::Event;
using events::Kind;

// Every rank on its own node of a crossbar: L = 1 us, B = 1 GB/s, eager up to
// 1 KiB, no overhead; hand computations need nothing else.
inline const char* kFlatMachine = R"(
name = "flat"
[node]
count = 64
cores = 1
flops_per_core = "1 Gflop/s"
[memory]
DRAM = { bandwidth = "1 GB/s" }
[network]
latency = "1 us"
bandwidth = "1 GB/s"
eager_threshold = "1 KiB"
)";

inline machine::Machine flat_machine(const std::vector<std::string>& overrides = {}) {
  return machine::load_machine_string(kFlatMachine, "flat", ".", overrides);
}

inline Event compute(double s) {
  Event e;
  e.kind = Kind::Compute;
  e.seconds = s;
  return e;
}
inline Event p2p(Kind kind, int peer, std::uint64_t bytes, int tag = 0, int comm = 0, std::uint64_t request = 0) {
  Event e;
  e.kind = kind;
  e.peer = peer;
  e.bytes = bytes;
  e.tag = tag;
  e.comm = comm;
  e.request = request;
  return e;
}
inline Event send(int peer, std::uint64_t bytes, int tag = 0, int comm = 0) { return p2p(Kind::Send, peer, bytes, tag, comm); }
inline Event recv(int peer, std::uint64_t bytes, int tag = 0, int comm = 0) { return p2p(Kind::Recv, peer, bytes, tag, comm); }
inline Event isend(int peer, std::uint64_t bytes, std::uint64_t req, int tag = 0, int comm = 0) {
  return p2p(Kind::Isend, peer, bytes, tag, comm, req);
}
inline Event irecv(int peer, std::uint64_t bytes, std::uint64_t req, int tag = 0, int comm = 0) {
  return p2p(Kind::Irecv, peer, bytes, tag, comm, req);
}
inline Event completion(Kind kind, std::vector<std::uint64_t> requests) {
  Event e;
  e.kind = kind;
  e.requests = std::move(requests);
  return e;
}
inline Event sendrecv(int dest, std::uint64_t bytes, int source, std::uint64_t bytes2, int tag = 0) {
  Event e;
  e.kind = Kind::Sendrecv;
  e.peer = dest;
  e.root = source;
  e.bytes = bytes;
  e.bytes2 = bytes2;
  e.tag = e.tag2 = tag;
  return e;
}
inline Event coll(Kind kind, std::uint64_t bytes, int root = 0, int comm = 0) {
  Event e;
  e.kind = kind;
  e.bytes = e.bytes2 = bytes;
  e.root = root;
  e.comm = comm;
  return e;
}
inline Event split(int color, int key, int new_comm, int comm = 0) {
  Event e;
  e.kind = Kind::CommSplit;
  e.color = color;
  e.key = key;
  e.new_comm = new_comm;
  e.comm = comm;
  return e;
}

inline SimResult run(std::vector<std::vector<Event>> ranks, const machine::Machine& m, SimOptions options = {}) {
  events::VectorJobSource job(std::move(ranks));
  return simulate(job, m, options);
}

}  // namespace perfcast::sim::test
