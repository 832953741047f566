// The simulator at scale: a 3D-stencil job generated on the fly (no stored
// events): per step a compute burst, a 6-neighbour halo exchange of 64 KiB
// per face with irecv/isend/waitall, and an 8-byte allreduce every 10 steps.
//
//   bench_sim_stencil RANKS STEPS [--jitter F] [--collectives auto|table|algorithms]
//
// --jitter F draws each rank's compute time per step from [1, 1 + F] ms, so
// ranks drift out of step; 0 (the default) keeps them in step.
// Prints wall time, MPI calls/s, peak RSS (VmHWM) and bytes per rank.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "events/source.h"
#include "machine/machine_io.h"
#include "sim/engine.h"

using namespace perfcast;

namespace {

constexpr std::uint64_t kHaloBytes = 64 * 1024;

// MPI_Dims_create for 3 dimensions: as close to a cube as the factors allow.
std::array<int, 3> dims_create(int n) {
  std::array<int, 3> d{1, 1, 1};
  int rest = n;
  for (int f = 2; f * f <= rest;) {
    if (rest % f == 0) {
      rest /= f;
      *std::min_element(d.begin(), d.end()) *= f;
    } else {
      ++f;
    }
  }
  if (rest > 1) *std::min_element(d.begin(), d.end()) *= rest;
  std::sort(d.begin(), d.end(), std::greater<>());
  return d;
}

struct Job {
  int ranks, steps;
  double jitter;
  std::array<int, 3> dims;
};

class StencilRank : public events::RankSource {
 public:
  StencilRank(const Job& job, int rank) : job_(job), rank_(rank), rng_(0x9E3779B97F4A7C15ull ^ (rank * 0xBF58476D1CE4E5B9ull)) {
    int x = rank % job.dims[0], y = (rank / job.dims[0]) % job.dims[1], z = rank / (job.dims[0] * job.dims[1]);
    auto at = [&](int a, int b, int c) {
      a = (a + job.dims[0]) % job.dims[0];
      b = (b + job.dims[1]) % job.dims[1];
      c = (c + job.dims[2]) % job.dims[2];
      return a + job.dims[0] * (b + job.dims[1] * c);
    };
    neighbours_ = {at(x - 1, y, z), at(x + 1, y, z), at(x, y - 1, z), at(x, y + 1, z), at(x, y, z - 1), at(x, y, z + 1)};
  }

  bool next(events::Event& out, double) override {
    if (step_ >= job_.steps) return false;
    // Phases: 0 compute, 1..6 irecv, 7..12 isend, 13 waitall, 14 allreduce (every 10th step).
    // `out` holds another rank's last event (the engine shares one buffer): reset what it may have set.
    out.kind = events::Kind::Compute;
    out.seconds = -1;
    out.comm = events::kCommWorld;
    out.requests.clear();
    if (phase_ == 0) {
      out.seconds = 1e-3 * (1 + job_.jitter * uniform());
    } else if (phase_ <= 6) {
      int face = phase_ - 1;
      out.kind = events::Kind::Irecv;
      out.peer = neighbours_[static_cast<size_t>(face)];
      out.tag = face ^ 1;  // the face of the neighbour that sends to us
      out.bytes = kHaloBytes;
      out.request = ++request_;
    } else if (phase_ <= 12) {
      int face = phase_ - 7;
      out.kind = events::Kind::Isend;
      out.peer = neighbours_[static_cast<size_t>(face)];
      out.tag = face;
      out.bytes = kHaloBytes;
      out.request = ++request_;
    } else if (phase_ == 13) {
      out.kind = events::Kind::Waitall;
      out.requests.resize(12);
      for (int i = 0; i < 12; ++i) out.requests[static_cast<size_t>(i)] = request_ - 11 + static_cast<std::uint64_t>(i);
    } else {
      out.kind = events::Kind::Allreduce;
      out.bytes = out.bytes2 = 8;
    }
    ++phase_;
    if (phase_ == 14 && step_ % 10 != 9) phase_ = 15;
    if (phase_ == 15) {
      phase_ = 0;
      ++step_;
    }
    return true;
  }

 private:
  double uniform() {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return static_cast<double>(rng_ >> 11) * 0x1.0p-53;
  }

  const Job& job_;
  int rank_;
  std::uint64_t rng_;
  std::array<int, 6> neighbours_;
  int step_ = 0, phase_ = 0;
  std::uint64_t request_ = 0;
};

class StencilJob : public events::JobSource {
 public:
  explicit StencilJob(Job job) : job_(job) {}
  int size() const override { return job_.ranks; }
  std::unique_ptr<events::RankSource> open_rank(int rank) override { return std::make_unique<StencilRank>(job_, rank); }

 private:
  Job job_;
};

long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

// A petascale-like machine: 4096 nodes of 32 cores on a 16x16x16 torus.
constexpr const char* kMachine = R"(
name = "bench-torus"
[node]
count = 4096
cores = 32
flops_per_core = "10 Gflop/s"
[memory]
L1 = { size = "32 KiB", bandwidth = "100 GB/s" }
DRAM = { bandwidth = "5 GB/s" }
[network]
latency = "1 us"
hop_latency = "100 ns"
bandwidth = "5 GB/s"
topology = "torus3d"
torus = [16, 16, 16]
intra_node_latency = "300 ns"
intra_node_bandwidth = "20 GB/s"
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s RANKS STEPS [--jitter F] [--collectives auto|table|algorithms]\n", argv[0]);
    return 2;
  }
  Job job{std::atoi(argv[1]), std::atoi(argv[2]), 0.0, {}};
  sim::SimOptions options;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--jitter")) job.jitter = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--collectives")) sim::parse_collective_mode(argv[i + 1], options.collectives);
  }
  job.dims = dims_create(job.ranks);
  auto machine = machine::load_machine_string(kMachine, "bench-torus");
  long rss_before = peak_rss_kib();
  StencilJob source(job);
  std::clock_t cpu_start = std::clock();
  auto r = sim::simulate(source, machine, options);
  // The host is shared: CPU time says what the engine costs, wall time what it took.
  double cpu_s = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  long rss = peak_rss_kib();
  fmt::print("ranks {} ({}x{}x{}) steps {} jitter {}: predicted {:.6g} s (slowest rank {}, {}), {} events, {} MPI "
             "calls in {:.3f} s wall = {:.3g} M MPI calls/s ({:.3f} s CPU = {:.3g} M calls/CPU-s); peak RSS {:.1f} MiB (before {:.1f}), {:.0f} B/rank RSS, "
             "{:.0f} B/rank engine state\n",
             job.ranks, job.dims[0], job.dims[1], job.dims[2], job.steps, job.jitter, r.predicted_time_s,
             r.slowest_rank, r.slowest_component, r.events, r.mpi_calls, r.wall_s, r.mpi_calls / r.wall_s / 1e6, cpu_s, r.mpi_calls / cpu_s / 1e6,
             rss / 1024.0, rss_before / 1024.0, (rss - rss_before) * 1024.0 / job.ranks,
             static_cast<double>(r.engine_bytes) / job.ranks);
  return 0;
}
