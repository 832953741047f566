// Event streams the events tests share: every kind with every field set,
// random streams, and a halo exchange as a traced or skeleton run produces it.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "events/event.h"

namespace perfcast::events::testing {

// Every field away from its default, values chosen so a field swapped with
// another or truncated to fewer bits would show.
inline Event every_field(Kind kind) {
  Event e;
  e.kind = kind;
  e.seconds = 1.25e-3;
  e.flops = 2e6;
  e.bytes_moved = 1.6e7;
  e.comm = 3;
  e.peer = 5;
  e.root = 7;
  e.tag = 11;
  e.tag2 = 13;
  e.bytes = 65536;
  e.bytes2 = 1ull << 40;
  e.request = 17;
  e.requests = {17, 19, 4};
  e.counts = {8, 16, 0};
  e.counts2 = {8, 8, 8, 1ull << 33};
  e.color = 2;
  e.key = -3;
  e.new_comm = 4;
  e.site = 4000000000u;
  if (kind != Kind::Compute) e.duration_s = 3.5e-5;  // a burst's time is its seconds
  return e;
}

// Any event, fields at random (each left at its default half the time),
// extremes included; no NaN (it is never equal to itself).
class RandomEvents {
 public:
  explicit RandomEvents(std::uint64_t seed) : rng_(seed) {}

  Event next() {
    Event e;
    e.kind = static_cast<Kind>(pick(kKindCount));
    if (coin()) e.seconds = real();
    if (coin()) e.flops = real();
    if (coin()) e.bytes_moved = real();
    if (coin()) e.comm = int32();
    if (coin()) e.peer = int32();
    if (coin()) e.root = int32();
    if (coin()) e.tag = int32();
    if (coin()) e.tag2 = int32();
    if (coin()) e.bytes = uint64();
    if (coin()) e.bytes2 = uint64();
    if (coin()) e.request = uint64();
    if (coin()) e.requests = list();
    if (coin()) e.counts = list();
    if (coin()) e.counts2 = list();
    if (coin()) e.color = int32();
    if (coin()) e.key = int32();
    if (coin()) e.new_comm = int32();
    if (coin()) e.site = static_cast<std::uint32_t>(uint64());
    // A call's duration: whole nanoseconds as the tracer records them (any
    // size), or any double.
    if (e.kind != Kind::Compute && coin()) e.duration_s = coin() ? seconds_of_ns(uint64() >> pick(64)) : real();
    return e;
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool coin() { return pick(2) == 0; }
  std::int32_t int32() {
    switch (pick(4)) {
      case 0:
        return std::numeric_limits<std::int32_t>::min();
      case 1:
        return std::numeric_limits<std::int32_t>::max();
      case 2:
        return pick(20) - 3;
      default:
        return static_cast<std::int32_t>(rng_());
    }
  }
  std::uint64_t uint64() {
    switch (pick(4)) {
      case 0:
        return std::numeric_limits<std::uint64_t>::max();
      case 1:
        return static_cast<std::uint64_t>(pick(1000));
      default:
        return rng_();
    }
  }
  double real() {
    switch (pick(4)) {
      case 0:
        return -0.0;
      case 1:
        return std::uniform_real_distribution<double>(0, 1e-2)(rng_);
      case 2:
        return std::numeric_limits<double>::infinity();
      default: {
        double d = std::bit_cast<double>(rng_());
        return std::isnan(d) ? 1.0 : d;
      }
    }
  }
  std::vector<std::uint64_t> list() {
    std::vector<std::uint64_t> v(static_cast<std::size_t>(pick(6) + 1));
    for (auto& x : v) x = uint64();
    return v;
  }

  std::mt19937_64 rng_;
};

// One rank of a 3-D halo exchange: per iteration a compute burst, 6 irecv,
// 6 isend, one waitall of the 12; an allreduce every 10 iterations. With
// `traced_durations` the bursts jitter as measured gaps do; else they repeat
// as a skeleton's BSIM_Add_time does. With `timed_calls` every MPI call also
// has a duration in whole nanoseconds, jittered as the tracer records them
// (posts about a microsecond, the waitall tens to hundreds).
class HaloExchange {
 public:
  HaloExchange(int rank, bool traced_durations, std::uint64_t seed = 1, bool timed_calls = false)
      : rank_(rank), traced_(traced_durations), timed_(timed_calls), rng_(seed) {}

  template <typename Sink>
  void iteration(Sink&& sink) {
    Event e;
    e.kind = Kind::Compute;
    e.seconds = traced_ ? 2.5e-3 * (1 + 0.05 * jitter_(rng_)) : 2.5e-3;
    e.site = 12;
    sink(e);
    const int neighbours[6] = {rank_ - 1, rank_ + 1, rank_ - 16, rank_ + 16, rank_ - 256, rank_ + 256};
    std::uint64_t first = next_request_;
    for (int recv = 1; recv >= 0; --recv)
      for (int d = 0; d < 6; ++d) {
        Event m;
        m.kind = recv ? Kind::Irecv : Kind::Isend;
        m.peer = neighbours[d];
        m.tag = recv ? (d ^ 1) : d;
        m.bytes = d < 2 ? 32768 : d < 4 ? 65536 : 131072;
        m.request = next_request_++;
        m.site = recv ? 20 : 21;
        if (timed_) m.duration_s = seconds_of_ns(static_cast<std::uint64_t>(1000 * (1.5 + jitter_(rng_))));
        sink(m);
      }
    Event w;
    w.kind = Kind::Waitall;
    for (std::uint64_t r = first; r < next_request_; ++r) w.requests.push_back(r);
    w.site = 22;
    if (timed_) w.duration_s = seconds_of_ns(static_cast<std::uint64_t>(1e5 * (2 + jitter_(rng_))));
    sink(w);
    if (++iterations_ % 10 == 0) {
      Event a;
      a.kind = Kind::Allreduce;
      a.bytes = a.bytes2 = 8;
      a.site = 30;
      if (timed_) a.duration_s = seconds_of_ns(static_cast<std::uint64_t>(2e4 * (2 + jitter_(rng_))));
      sink(a);
    }
  }

 private:
  int rank_;
  bool traced_, timed_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> jitter_{-1, 1};
  std::uint64_t next_request_ = 1;
  int iterations_ = 0;
};

}  // namespace perfcast::events::testing
