// The engine's data structures (engine.cpp is the state machine that uses them):
// the ready queue of ranks, the per-rank state, requests, envelopes and
// communicators, and the pools they live in. Internal to src/sim; a header of
// its own so that each structure can be tested alone.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

#include "events/event.h"
#include "events/source.h"
#include "support/error.h"
#include "support/large_blocks.h"

namespace perfcast::sim::engine_state {

using events::Event;
using events::Kind;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();  // no index: end of a list, none yet

// A pool of T in fixed chunks of 2^18: it grows without copying what it holds
// and indices stay stable. Chunks are big so that the chunk table stays small
// (70 pointers at 10^6 ranks, where 1024-element chunks needed 18 000, one more
// cold load per access), and each is a whole number of huge pages
// (support/large_blocks.h: 2^18 x 8k bytes = k x 2 MiB), so only the last huge
// page a pool touches has slack. An element is constructed when added, so the unused tail of the last chunk is
// address space, not memory. (Chunks doubling in size needed a bit_width per
// access: +24 % instructions per event; chunks of 2^16, not whole huge pages,
// left ~1.4 MiB slack each: +250 B per rank.)
template <typename T>
class Pool {
  static_assert(std::is_trivially_destructible_v<T>, "chunks are freed without destroying elements");
  static_assert(sizeof(T) % 8 == 0, "a chunk must be a whole number of huge pages");

 public:
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;
  ~Pool() { release(); }

  T& operator[](std::uint32_t i) { return chunks_[i >> kShift][i & kMask]; }
  const T& operator[](std::uint32_t i) const { return chunks_[i >> kShift][i & kMask]; }
  std::uint32_t size() const { return size_; }
  void use_huge_pages() { huge_pages_ = true; }  // for chunks made from now on
  std::uint32_t add() {
    if (size_ == kNone) throw UserError("more than 4 billion MPI operations in flight at once", {}, "");
    if ((size_ & kMask) == 0) {
      void* chunk = map_aligned(kChunkBytes);
      if (huge_pages_) advise_huge_pages(chunk, kChunkBytes);
      chunks_.push_back(static_cast<T*>(chunk));
    }
    new (&(*this)[size_]) T{};
    return size_++;
  }
  // The elements ever added (what is resident of the chunks) and the table.
  std::size_t bytes() const { return std::size_t{size_} * sizeof(T) + chunks_.capacity() * sizeof(T*); }
  void release() {
    for (T* chunk : chunks_) unmap_aligned(chunk, kChunkBytes);
    std::vector<T*>().swap(chunks_);
    size_ = 0;
  }

 private:
  static constexpr std::uint32_t kShift = 18, kChunk = 1u << kShift, kMask = kChunk - 1;
  static constexpr std::size_t kChunkBytes = std::size_t{kChunk} * sizeof(T);
  std::vector<T*> chunks_;
  std::uint32_t size_ = 0;
  bool huge_pages_ = false;
};

// Heads and tails of two intrusive lists in the envelope pool: receives posted
// and not matched, messages arrived and not received. One per (communicator,
// receiver); a rank that never uses a communicator allocates nothing for it.
struct Queues {
  std::uint32_t posted_head = kNone, posted_tail = kNone;
  std::uint32_t unexpected_head = kNone, unexpected_tail = kNone;
};

// A rank's view of a communicator it created (handles >= 2).
struct CommRef {
  std::int32_t id = -1;  // global communicator; -1: freed or never created
  std::int32_t my_rank = 0;
  Queues queues;
};

// 40 bytes: a stencil rank has a dozen of these in flight. The two links
// replace per-rank vectors (a header and a heap block per rank); what only a
// deadlock report needs (peer, tag, communicator) is read from the envelope
// that an unfinished request always has, and the owner is known wherever a
// request completes (the envelope's rank).
struct Request {
  double end_s = 0;             // valid once done
  double transfer_start_s = 0;  // when the transfer that completes it began
  std::uint64_t id = 0;         // the stream's request id; the free-list link while free
  std::int32_t peer_world = -1;
  std::uint32_t next = kNone;       // the owner's list of live user requests (RankState::requests)
  std::uint32_t wait_next = kNone;  // the blocking call's requests in its order (RankState::waiting)
  Kind kind = Kind::Send;
  bool done : 1 = false;
  bool waited : 1 = false;    // its owner is blocked on it
  bool internal : 1 = false;  // made by a blocking call, not visible to the stream
  bool eager_in : 1 = false;  // a receive an eager message completed (its flight can still change: crossing)
  bool crossed : 1 = false;   // that message was found crossing one going the other way
};
static_assert(sizeof(Request) == 40);

// A message at its receiver (eager data or a rendezvous request to send), or a
// posted receive. One cache line: a send walks the receiver's posted receives,
// and an envelope across two lines cost two misses there.
struct Envelope {
  std::uint32_t next = kNone;
  std::int32_t source = 0;  // message: sender's comm rank; posted: source filter
  std::int32_t tag = 0;     // message: its tag; posted: tag filter
  std::int32_t world = 0;   // message: sender; posted: receiver
  double bytes = 0;
  double time_s = 0;        // send or post time
  double arrival_s = 0;     // eager: data arrival; rendezvous: arrival of the request to send
  std::uint32_t request = kNone;  // rendezvous message: the send's; posted: the receive's
  std::int32_t comm = 0;          // the handle the call named
  // Live runs: the call's data, for the DataMover; with `kind` it is all the
  // mover reads of a point-to-point call (source.h), so live calls need no copy
  // of their event beside the envelope.
  void* live = nullptr;
  Kind kind = Kind::Compute;  // the call's
  bool rendezvous = false;
  bool crossed = false;  // an eager message priced as one step of an exchange
};
static_assert(sizeof(Envelope) == 64);

// What the DataMover reads of a collective member's event (its scalar MPI
// fields; source.h): kept from its arrival until the last member's, 56 bytes
// instead of a 176-byte Event with three vectors.
struct MoverCopy {
  void* live = nullptr;
  std::uint64_t bytes = 0, bytes2 = 0, request = 0;
  std::int32_t comm = 0, peer = 0, root = 0, tag = 0, tag2 = 0;
  Kind kind = Kind::Compute;
};

// The fields of a rank's current call that must outlive the event buffer
// (which the next rank to act reuses): what a blocked call (a probe's filters)
// and error reports read. A communicator call's arguments are kept by the
// collective (Comm::creating) instead, as only those calls need them.
struct Call {
  void* live = nullptr;
  std::int32_t comm = 0, peer = 0, tag = 0;
  Kind kind = Kind::Compute;

  static Call of(const Event& e) { return {e.live, e.comm, e.peer, e.tag, e.kind}; }
};

// A member's arguments to a call that creates communicators (split, dup, cart_create).
struct Creating {
  std::int32_t color = 0, key = 0, new_comm = -1;
};

enum class Block : std::uint8_t { None, Requests, Collective, Probe, Done };
enum class WaitMode : std::uint8_t { All, Any, Some };

// Where most of a rank's wait went (a space-saving sketch: small and fixed).
struct WaitTally {
  std::int32_t peer = -1;
  float seconds = 0;
};

// Per rank, so kept small: no Event (the engine has one buffer for the rank
// acting) and no vectors for requests (intrusive lists through the pool).
struct RankState {
  std::unique_ptr<events::RankSource> source;
  std::uint32_t seq = 0;  // beside source: first_in_line reads it, then run() calls source->prefetch()
  Call call;  // the current call (a blocked rank's)
  double clock = 0, calc = 0, wait = 0, comm = 0;
  std::uint64_t index = 0;  // events pulled so far
  Queues world_queues, self_queues;
  std::vector<CommRef> comms;  // handle h >= 2 at h - 2
  // Live user requests in the order they were made (pool indices; the id is
  // in the request), and the one a completion found last.
  std::uint32_t requests = kNone, requests_tail = kNone, found = kNone;
  std::uint32_t waiting = kNone;  // the requests of the current blocking call
  double block_start = 0;
  double resume_end = 0, resume_comm = 0;
  std::int32_t resume_peer = -1;
  double pending_max = 0;
  std::int32_t pending = 0;
  std::uint32_t critical = kNone;
  Block block = Block::None;
  WaitMode mode = WaitMode::All;
  bool resolved = false;
  bool initialized = false;  // its stream reached MPI_Init
  bool finalized = false;    // its stream reached MPI_Finalize
  std::uint32_t calls_after_finalize = 0;
  WaitTally tally[4];

  void add_wait(int peer, double seconds) {
    if (peer < 0 || seconds <= 0) return;
    WaitTally* smallest = &tally[0];
    for (auto& t : tally) {
      if (t.peer == peer) {
        t.seconds += static_cast<float>(seconds);
        return;
      }
      if (t.seconds < smallest->seconds) smallest = &t;
    }
    smallest->peer = peer;
    smallest->seconds += static_cast<float>(seconds);
  }
};

// A global communicator and the collective in progress on it.
struct Comm {
  int size = 0;
  std::vector<std::int32_t> world;    // comm rank -> world rank; empty for MPI_COMM_WORLD
  std::vector<std::int32_t> handles;  // comm rank -> that member's handle
  int arrived = 0;
  Kind kind = Kind::Barrier;
  int root = 0;
  int first_world = 0;
  std::uint64_t first_index = 0;
  double bytes = 0;
  std::vector<double> arrival;
  std::vector<Creating> creating;  // per member, for communicator calls only
  // Live runs only: per member, a copy of the event it entered the collective
  // with (event_copies_ index), which is what the DataMover is handed.
  std::vector<std::uint32_t> entered;

  int world_of(int r) const { return world.empty() ? r : world[static_cast<size_t>(r)]; }
  int handle_of(int r) const { return handles.empty() ? uniform_handle : handles[static_cast<size_t>(r)]; }

  // A communicator of the world's ranks in their order, by the same handle on
  // every member (MPI_COMM_WORLD itself, a dup of it, a Cartesian grid without
  // reordering), keeps neither map: each message on it would otherwise read
  // two arrays of 4N bytes at the destination's index, two cache misses once N
  // is large, and they would cost 8 bytes per rank.
  std::int32_t uniform_handle = events::kCommWorld;
  void drop_trivial_maps(int nranks) {
    bool identity = size == nranks;
    for (int i = 0; identity && i < size; ++i) identity = world[static_cast<size_t>(i)] == i;
    if (identity) std::vector<std::int32_t>().swap(world);
    bool uniform = !handles.empty();
    for (size_t i = 1; uniform && i < handles.size(); ++i) uniform = handles[i] == handles[0];
    if (uniform) {
      uniform_handle = handles[0];
      std::vector<std::int32_t>().swap(handles);
    }
  }
};

struct HeapEntry {
  double t;
  std::int32_t rank;
  std::uint32_t seq;
  // (t, rank, seq) is a strict total order (seq counts a rank's pushes), so any
  // correct priority queue pops entries in the same sequence.
  bool operator<(const HeapEntry& o) const {
    if (t != o.t) return t < o.t;
    if (rank != o.rank) return rank < o.rank;
    return seq < o.seq;
  }
};
static_assert(sizeof(HeapEntry) == 16);

// The ranks ready to act, first the least (t, rank, seq): a 4-ary heap whose
// groups of siblings each fill one 64-byte line. A pop walks down one line per
// level, log4 N levels instead of the binary heap's log2 N, and with ranks out
// of step the levels below the first few are cache misses: at 10^6 ranks the
// heap is 16 MB, and it is the one part of an event's cost that grows with N.
class ReadyQueue {
 public:
  ReadyQueue() : slots_(kOffset) {}
  void reserve(std::size_t n) { slots_.reserve(n + kOffset); }
  bool empty() const { return size_ == 0; }
  const HeapEntry& top() const { return slots_[kOffset]; }
  void push(const HeapEntry& e) {
    slots_.push_back(e);
    std::size_t i = size_++;
    while (i > 0) {
      std::size_t parent = (i - 1) / 4;
      if (!(e < at(parent))) break;
      at(i) = at(parent);
      i = parent;
    }
    at(i) = e;
  }
  void pop() {
    HeapEntry last = at(--size_);
    slots_.pop_back();
    if (size_ == 0) return;
    std::size_t i = 0;
    for (;;) {
      std::size_t first = 4 * i + 1;
      if (first >= size_) break;
      std::size_t end = std::min(first + 4, size_), best = first;
      for (std::size_t c = first + 1; c < end; ++c)
        if (at(c) < at(best)) best = c;
      if (!(at(best) < last)) break;
      at(i) = at(best);
      i = best;
    }
    at(i) = last;
  }
  std::size_t bytes() const { return slots_.capacity() * sizeof(HeapEntry); }
  void use_huge_pages() {
    if (bytes() >= kHugePageBytes) advise_huge_pages(slots_.data(), bytes());
  }
  void release() {
    decltype(slots_)(kOffset).swap(slots_);
    size_ = 0;
  }

 private:
  // Entry i is at slots_[i + 3], so the children 4i+1..4i+4 of entry i sit at
  // slots 4i+4..4i+7: one aligned line (LargeAllocator aligns to 64 bytes).
  static constexpr std::size_t kOffset = 3;
  HeapEntry& at(std::size_t i) { return slots_[i + kOffset]; }
  std::vector<HeapEntry, LargeAllocator<HeapEntry>> slots_;
  std::size_t size_ = 0;
};

// ---------------------------------------------------------------------------
// Small conversions the engine makes between these records and events.

// One side of a match as the DataMover sees it (source.h): the message's
// source and tag, or the receive's filters.
inline Event mover_event(const Envelope& env) {
  Event e;
  e.kind = env.kind;
  e.comm = env.comm;
  e.peer = env.source;
  e.tag = env.tag;
  e.bytes = static_cast<std::uint64_t>(env.bytes);
  e.live = env.live;
  return e;
}

inline MoverCopy mover_copy(const Event& e) {
  return {e.live, e.bytes, e.bytes2, e.request, e.comm, e.peer, e.root, e.tag, e.tag2, e.kind};
}

inline Event mover_event(const MoverCopy& c) {
  Event e;
  e.kind = c.kind;
  e.comm = c.comm;
  e.peer = c.peer;
  e.root = c.root;
  e.tag = c.tag;
  e.tag2 = c.tag2;
  e.bytes = c.bytes;
  e.bytes2 = c.bytes2;
  e.request = c.request;
  e.live = c.live;
  return e;
}

inline bool creates_communicator(Kind k) { return k == Kind::CommSplit || k == Kind::CommDup || k == Kind::CartCreate; }

inline double mean(const std::vector<std::uint64_t>& counts) {
  if (counts.empty()) return 0;
  double sum = 0;
  for (auto c : counts) sum += static_cast<double>(c);
  return sum / static_cast<double>(counts.size());
}

// n, the per-process message size a collective is priced with.
inline double collective_bytes(const Event& e, int size) {
  double n = static_cast<double>(std::max(e.bytes, e.bytes2));
  if (e.kind == Kind::ReduceScatter) n = std::max(static_cast<double>(e.bytes), static_cast<double>(e.bytes2) * size);
  return std::max({n, mean(e.counts), mean(e.counts2)});
}

inline bool matches(std::int32_t source_filter, std::int32_t tag_filter, std::int32_t source, std::int32_t tag) {
  return (source_filter == events::kAnySource || source_filter == source) &&
         (tag_filter == events::kAnyTag || tag_filter == tag);
}

}  // namespace perfcast::sim::engine_state
