// Acceptance: `perfcast calibrate --quick` on this machine, judged against
// figures measured independently here: a STREAM triad loop for DRAM and the
// cache sizes the system reports.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "machine/calibrate/system.h"
#include "machine/machine_io.h"
#include "measure/launcher.h"
#include "support/units.h"

namespace perfcast::calibrate {
namespace {

using units::Dimension;

template <typename View>
double quantity(const View& node, Dimension d, const std::string& key) {
  auto text = node.template value<std::string>();
  if (!text) {
    ADD_FAILURE() << key << " is missing or not a string";
    return 0;
  }
  try {
    return units::parse(*text, d);
  } catch (const std::exception& e) {
    ADD_FAILURE() << key << ": " << e.what();
    return 0;
  }
}

// STREAM's triad on one core, arrays far larger than any cache (3 x 128 MiB),
// bytes counted as STREAM counts them; median of several repeats. Timed, like
// calibrate's kernels, by the thread's CPU time: the cores here are shared,
// and wall time would measure the other processes' load as well. The repeats
// are spread over a couple of seconds, as calibrate's rounds are, so that a
// burst of memory traffic from another process spoils few of them.
double stream_triad_Bps() {
  const std::size_t n = 16u << 20;
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  auto cpu_s = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  std::vector<double> rates;
  for (int rep = 0; rep < 16; ++rep) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    double t0 = cpu_s();
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
    double t = cpu_s() - t0;
    asm volatile("" : : "g"(a.data()) : "memory");
    if (rep > 0) rates.push_back(3.0 * sizeof(double) * n / t);  // the first pass is a warm-up
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

toml::table load(const std::filesystem::path& file) {
  try {
    return toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    ADD_FAILURE() << "the machine file does not parse: " << e.description();
    return {};
  }
}

void check_documented_keys(const toml::table& t) {
  const std::set<std::string> top = {"name",    "description", "node",      "memory",
                                     "math",    "network",     "collective", "mapping"};
  for (auto&& [k, v] : t) EXPECT_TRUE(top.count(std::string(k.str()))) << "unexpected key " << k.str();
  EXPECT_EQ(t["name"].value<std::string>().value_or(""), calibrate::host_name());
  EXPECT_NE(t["description"].value<std::string>().value_or("").find("alibrated"), std::string::npos);

  EXPECT_EQ(t["node"]["count"].value<int64_t>(), 1);
  EXPECT_EQ(t["node"]["cores"].value<int64_t>(), measure::online_cores());
  for (const char* key : {"flops_per_core", "flops_per_core_single", "flops_per_core_scalar",
                          "flops_per_core_single_scalar"}) {
    double rate = quantity(t["node"][key], Dimension::FlopsPerSecond, key);
    EXPECT_GT(rate, 1e8) << key;
    EXPECT_LT(rate, 1e12) << key;
  }
  EXPECT_GE(quantity(t["node"]["flops_per_core"], Dimension::FlopsPerSecond, "flops"),
            quantity(t["node"]["flops_per_core_scalar"], Dimension::FlopsPerSecond, "scalar"));

  auto* memory = t["memory"].as_table();
  ASSERT_TRUE(memory);
  ASSERT_TRUE(memory->contains("DRAM"));
  double previous_size = 0;
  for (const char* level : {"L1", "L2", "L3"}) {
    if (!memory->contains(level)) continue;
    for (auto&& [k, v] : *(*memory)[level].as_table())
      EXPECT_TRUE(k == "size" || k == "bandwidth" || k == "shared" || k == "node_bandwidth" ||
                  k == "serial_fraction" || k == "overlap_by_streams" || k == "bandwidth_by_cores")
          << k.str();
    double size = quantity((*memory)[level]["size"], Dimension::Bytes, std::string(level) + ".size");
    EXPECT_GT(size, previous_size) << "sizes must grow outwards";
    previous_size = size;
    quantity((*memory)[level]["bandwidth"], Dimension::BytesPerSecond, std::string(level) + ".bandwidth");
  }
  quantity(t["memory"]["DRAM"]["node_bandwidth"], Dimension::BytesPerSecond, "DRAM.node_bandwidth");
  // The overlap by streams, where written: 3, 5 and 7 streams, a fraction in
  // [0, 1] per stream count and per increasing ratio of in-core to transfer
  // time (the machine loader checks the same; here: that calibrate wrote it
  // so, with the kernel's own stream counts).
  for (const char* level : {"L2", "L3", "DRAM"}) {
    if (!memory->contains(level) || !(*memory)[level].as_table()->contains("overlap_by_streams")) continue;
    auto table = (*memory)[level]["overlap_by_streams"];
    std::vector<int64_t> streams;
    for (auto&& s : *table["streams"].as_array()) streams.push_back(s.value<int64_t>().value_or(0));
    EXPECT_EQ(streams, (std::vector<int64_t>{3, 5, 7})) << level;
    size_t ratios = table["core_over_memory"].as_array()->size();
    EXPECT_GE(ratios, 1u) << level;
    ASSERT_EQ(table["serial_fraction"].as_array()->size(), 3u) << level;
    for (auto&& row : *table["serial_fraction"].as_array()) {
      ASSERT_EQ(row.as_array()->size(), ratios) << level;
      for (auto&& f : *row.as_array()) {
        EXPECT_GE(f.value<double>().value_or(-1), 0) << level;
        EXPECT_LE(f.value<double>().value_or(2), 1) << level;
      }
    }
  }

  for (const char* precision : {"double", "single"})
    for (const char* fn : {"sin", "cos", "tan", "exp", "log", "sqrt", "pow"}) {
      auto cost = t["math"][precision][fn].value<double>();
      ASSERT_TRUE(cost) << precision << "." << fn;
      EXPECT_GT(*cost, 0.5) << precision << "." << fn;
      EXPECT_LT(*cost, 5000) << precision << "." << fn;
    }

  double latency = quantity(t["network"]["latency"], Dimension::Seconds, "network.latency");
  EXPECT_GT(latency, 1e-8);
  EXPECT_LT(latency, 1e-3);
  // The cost of a call that moves nothing (LogP o): well under a small message's latency.
  double overhead = quantity(t["network"]["overhead"], Dimension::Seconds, "network.overhead");
  EXPECT_GT(overhead, 1e-9);
  EXPECT_LT(overhead, latency);
  double bw = quantity(t["network"]["bandwidth"], Dimension::BytesPerSecond, "network.bandwidth");
  EXPECT_GT(bw, 1e8);
  EXPECT_EQ(t["network"]["topology"].value<std::string>().value_or(""), "crossbar");
  if (t["network"]["eager_threshold"]) quantity(t["network"]["eager_threshold"], Dimension::Bytes, "eager");
  // The whole ping-pong curve, beside the line through its ends: no message
  // is much faster than the latency (a median over the smallest sizes).
  const toml::array* one_way_bytes = t["network"]["intra_node_one_way"]["bytes"].as_array();
  const toml::array* one_way_s = t["network"]["intra_node_one_way"]["time_s"].as_array();
  ASSERT_TRUE(one_way_bytes && one_way_s) << "no network.intra_node_one_way";
  ASSERT_GE(one_way_bytes->size(), 2u);
  EXPECT_EQ(one_way_bytes->size(), one_way_s->size());
  for (auto&& v : *one_way_s) EXPECT_GE(v.value<double>().value_or(-1), 0.5 * latency) << "far below the latency";
  // The exchange (both ways at once) at the same sizes: a message still has to
  // cross, so no step is far below the latency, and 4 MiB each way takes
  // longer than a byte.
  const toml::array* exchange_bytes = t["network"]["intra_node_exchange"]["bytes"].as_array();
  const toml::array* exchange_s = t["network"]["intra_node_exchange"]["time_s"].as_array();
  ASSERT_TRUE(exchange_bytes && exchange_s) << "no network.intra_node_exchange";
  ASSERT_EQ(exchange_bytes->size(), one_way_bytes->size());
  ASSERT_EQ(exchange_s->size(), exchange_bytes->size());
  for (auto&& v : *exchange_s) EXPECT_GE(v.value<double>().value_or(-1), 0.5 * latency) << "far below the latency";
  EXPECT_GT(exchange_s->back().value<double>().value_or(0), exchange_s->front().value<double>().value_or(0));

  // The cores' noise: quantiles of time over the fastest time, ascending from 1.
  double quantum = quantity(t["node"]["noise"]["quantum"], Dimension::Seconds, "node.noise.quantum");
  EXPECT_GT(quantum, 5e-6);
  EXPECT_LT(quantum, 1e-3);
  // How long a core's state lasts: at least one quantum (tau >= 1), at most the probe's 0.5 s.
  double spell = quantity(t["node"]["noise"]["spell"], Dimension::Seconds, "node.noise.spell");
  EXPECT_GE(spell, quantum);
  EXPECT_LT(spell, 0.5);
  // Both quanta's: the ports' and the divider's, taking turns.
  for (const char* key : {"stretch", "divider_stretch"}) {
    const toml::array* stretch = t["node"]["noise"][key].as_array();
    ASSERT_TRUE(stretch) << "no node.noise." << key;
    EXPECT_EQ(stretch->size(), 20u) << key;
    double previous = 1;
    for (auto&& v : *stretch) {
      double s = v.value<double>().value_or(0);
      EXPECT_GE(s, previous) << key << ": the quantiles must ascend from 1";
      previous = s;
    }
  }

  auto* collectives = t["collective"].as_array();
  ASSERT_TRUE(collectives);
  std::set<std::string> ops;
  for (auto&& node : *collectives) {
    auto& c = *node.as_table();
    auto op = c["op"].value<std::string>().value_or("");
    ops.insert(op);
    auto* procs = c["procs"].as_array();
    auto* bytes = c["bytes"].as_array();
    auto* rows = c["time_s"].as_array();
    ASSERT_TRUE(procs && bytes && rows) << op;
    EXPECT_EQ(rows->size(), procs->size()) << op;
    EXPECT_GE(procs->front().value<int64_t>().value_or(0), 2) << op;
    for (auto&& row : *rows) {
      ASSERT_EQ(row.as_array()->size(), bytes->size()) << op;
      for (auto&& v : *row.as_array()) EXPECT_GT(v.value<double>().value_or(-1), 0) << op;
    }
  }
  EXPECT_EQ(ops, (std::set<std::string>{"barrier", "bcast", "reduce", "allreduce", "allgather", "alltoall"}));
}

// The measured figures against independent ones. They come from a noisy
// shared VM, so each check returns what disagreed rather than failing at once:
// the test calibrates again before it calls a disagreement real.
std::vector<std::string> dram_against_stream(const toml::table& t) {
  auto text = t["memory"]["DRAM"]["bandwidth"].value<std::string>();
  if (!text) return {"memory.DRAM.bandwidth is missing"};
  double calibrated = units::parse(*text, Dimension::BytesPerSecond);
  double stream = stream_triad_Bps();
  double ratio = calibrated / stream;
  std::cout << fmt::format("DRAM, one core: calibrate {:.2f} GB/s, STREAM triad here {:.2f} GB/s, ratio {:.2f}\n",
                           calibrated / 1e9, stream / 1e9, ratio);
  // What this catches is a gross error (a cache level taken for DRAM: the L3
  // streams 2.5-4.5x DRAM's rate on the VMs this ran on). The two figures are
  // taken seconds apart with different kernels (calibrate's AVX2 triad in
  // short samples, this plain loop over 384 MB): quiet, their ratio has been
  // 1.00-1.20 here; with another process streaming memory on this VM,
  // 1.26-1.42; with a co-tenant of the host streaming, 1.50-1.61 (a Zen 3 VM,
  // issue 5, stop 19: a clean-clone CI run failed at the old band's 1.5).
  // Hence the band.
  if (ratio < 0.6 || ratio > 2.0)
    return {fmt::format("DRAM bandwidth {:.2f} GB/s is {:.2f}x the STREAM triad's {:.2f} GB/s (expected 0.6-2x)",
                        calibrated / 1e9, ratio, stream / 1e9)};
  return {};
}

// L1 and L2 are private to a core, so CPUID's sizes are what one core sees
// and the plateaus must find them. The last level is shared with whatever else
// runs on the host (other guests of the VM too): the size one core can hold
// there is not the reported one, so it is printed, not compared.
std::vector<std::string> caches_against_reported(const toml::table& t) {
  auto caches = reported_caches();
  if (caches.empty()) {
    std::cout << "the system reports no cache sizes: nothing to compare\n";
    return {};
  }
  std::vector<std::string> wrong;
  for (const auto& c : caches) {
    std::string level = "L" + std::to_string(c.level);
    auto measured_text = t["memory"][level]["size"].value<std::string>();
    std::string measured = measured_text.value_or("(no plateau)");
    std::string reported = units::format(c.size_bytes, Dimension::Bytes, 3);
    if (!c.plausible) {
      // A hypervisor's CPUID figure, no real cache: say what was measured, compare nothing.
      std::cout << fmt::format("{}: {} reports {}, implausible for {} cores; not compared (measured {})\n", level,
                               c.source, reported, measure::online_cores(), measured);
      continue;
    }
    if (c.level > 2) {
      std::cout << fmt::format("{}: {} reports {} (shared last level), calibrate measured {}; not compared\n", level,
                               c.source, reported, measured);
      continue;
    }
    std::cout << fmt::format("{}: {} reports {}, calibrate measured {}\n", level, c.source, reported, measured);
    if (!measured_text) {
      wrong.push_back(fmt::format("no {} plateau found; the system reports {}", level, reported));
      continue;
    }
    double size = units::parse(*measured_text, Dimension::Bytes);
    // Two plateaus merged: the level's measured size is the next reported
    // level's, and calibrate found no plateau after it. A quick sweep on a
    // loaded shared host sees no step between a private L2 and the last level
    // there (their bandwidths a few percent apart under co-tenants); the
    // merged plateau must still be the larger level's size.
    auto next = std::find_if(caches.begin(), caches.end(), [&](const auto& o) { return o.level == c.level + 1; });
    const bool merged = next != caches.end() && !t["memory"]["L" + std::to_string(c.level + 1)]["size"] &&
                        size >= next->size_bytes / 2 && size <= next->size_bytes * 2;
    if (merged) {
      std::cout << fmt::format("{}: measured {} is L{}'s reported {} with no plateau after it: the two merged\n",
                               level, measured, c.level + 1, units::format(next->size_bytes, Dimension::Bytes, 3));
      continue;
    }
    if (size < c.size_bytes / 2 || size > c.size_bytes * 2)
      wrong.push_back(fmt::format("{} measured {}, reported {} (expected within a factor of 2)", level, measured,
                                  reported));
  }
  return wrong;
}

struct Calibration {
  measure::ProcessResult run;
  toml::table table;
};

Calibration calibrate_quick(const std::filesystem::path& file) {
  Calibration c;
  c.run = measure::run_process(
      {std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast", "calibrate", "--quick", "-o", file.string()},
      std::chrono::seconds(180));
  std::cout << c.run.stdout_text;
  std::cout << fmt::format("perfcast calibrate --quick took {:.1f} s\n", c.run.wall_s);
  if (!c.run.timed_out && c.run.exit_code == 0) c.table = load(file);
  return c;
}

// What the node's cores share, as calibrate measured it here: each core's
// DRAM bandwidth with 1, 2, 4 ... and all of this host's cores streaming at
// once, and the in-core slowdown with all of them busy; the file loads.
void check_sharing(const toml::table& t, const std::filesystem::path& file) {
  const int cores = measure::online_cores();
  auto* sharing = t["memory"]["DRAM"]["bandwidth_by_cores"].as_table();
  ASSERT_TRUE(sharing) << "memory.DRAM.bandwidth_by_cores not written";
  auto* counts = (*sharing)["cores"].as_array();
  auto* per_core = (*sharing)["per_core"].as_array();
  ASSERT_TRUE(counts && per_core);
  ASSERT_EQ(counts->size(), per_core->size());
  EXPECT_EQ(counts->front().value<int64_t>(), 1);
  EXPECT_EQ(counts->back().value<int64_t>(), cores) << "up to every core here";
  for (size_t i = 0; i < per_core->size(); ++i) {
    double bandwidth = quantity(*per_core->get(i), Dimension::BytesPerSecond, "per_core");
    EXPECT_GT(bandwidth, 1e8) << i;
    EXPECT_LT(bandwidth, 1e12) << i;
  }
  if (cores >= 2) {
    EXPECT_GE(t["node"]["busy_slowdown"].value<double>().value_or(0), 1.0);
  }
  const machine::Machine m = machine::load_machine_file(file);
  EXPECT_TRUE(m.groups[0].sharing_measured());
  EXPECT_EQ(m.groups[0].memory.back().sharing_cores.back(), cores);
}

// The clock calibrate wrote passes every physics check (the file is refused
// otherwise), sits near this host's TSC, and the file records the probe's
// chains and which witnesses could be read.
void check_clock(const toml::table& t, const std::filesystem::path& file) {
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("# Clock: dependent register adds "), std::string::npos);
  EXPECT_NE(text.find("# Clock witnesses: TSC "), std::string::npos);
  EXPECT_NE(text.find("# Clock samples (register adds): slowest "), std::string::npos);
  EXPECT_NE(text.find("perf cycles"), std::string::npos);
  EXPECT_EQ(text.find("Implausible"), std::string::npos);
  const double clock = quantity(t["node"]["clock"], Dimension::Hertz, "node.clock");
  EXPECT_GT(clock, 0.3e9);
  EXPECT_LT(clock, 6.5e9);
  auto check = measure::run_process({std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast", "machine", "check",
                                     file.string()},
                                    std::chrono::seconds(30));
  EXPECT_EQ(check.exit_code, 0) << check.stdout_text << check.stderr_text;
}

// The file names this host's CPU as perfcast analyze prices on it by default
// (node.cpu: the mca.cpu of a model analysed here without --mcpu), and
// `--noise-only` keeps it.
void check_cpu(const toml::table& t, const std::filesystem::path& file, const std::filesystem::path& dir) {
  const std::string cpu = t["node"]["cpu"].value<std::string>().value_or("");
  ASSERT_FALSE(cpu.empty()) << "node.cpu not written";
  EXPECT_EQ(machine::load_machine_file(file).groups[0].cpu, cpu);
  const std::filesystem::path source = dir / "loop.c";
  std::ofstream(source) << "#include <mpi.h>\ndouble a[1000];\nint main(int c, char **v) {\n  MPI_Init(&c, &v);\n"
                           "  for (int i = 0; i < c; i++) a[i] = a[i] / 3.0;\n  MPI_Finalize();\n  return 0;\n}\n";
  const std::filesystem::path model = dir / "loop.model.json";
  auto analysed = measure::run_process({std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast", "analyze",
                                        source.string(), "-o", model.string()},
                                       std::chrono::seconds(120));
  ASSERT_EQ(analysed.exit_code, 0) << analysed.stderr_text;
  std::ifstream in(model);
  EXPECT_EQ(nlohmann::json::parse(in)["mca"]["cpu"], cpu) << "calibrate and analyze name this host alike";
}

// `calibrate --noise-only` refreshes the noise of a machine file into another
// file and leaves the original as it was; without -o it refuses.
void check_noise_only(const std::filesystem::path& file, const std::filesystem::path& dir) {
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string perfcast = std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast";
  std::string before = read(file);
  auto refused = measure::run_process({perfcast, "calibrate", "--noise-only", file.string()}, std::chrono::seconds(60));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.stderr_text.find("--noise-only"), std::string::npos) << refused.stderr_text;
  EXPECT_NE(refused.stderr_text.find("-o"), std::string::npos) << refused.stderr_text;

  // A machine of two node groups: which one this node is cannot be told.
  auto hetero = measure::run_process({perfcast, "calibrate", "--noise-only",
                                      std::string(PERFCAST_SOURCE_DIR) + "/machines/hetero-example.toml", "-o",
                                      (dir / "hetero.toml").string()},
                                     std::chrono::seconds(60));
  EXPECT_NE(hetero.exit_code, 0);
  EXPECT_NE(hetero.stderr_text.find("has 2 node groups"), std::string::npos) << hetero.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(dir / "hetero.toml"));

  auto refreshed = dir / "refreshed.toml";
  auto run = measure::run_process(
      {perfcast, "calibrate", "--noise-only", file.string(), "--quick", "-o", refreshed.string()},
      std::chrono::seconds(60));
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_NE(run.stdout_text.find("mean stretch"), std::string::npos) << run.stdout_text;
  EXPECT_EQ(read(file), before) << "the original machine file changed";
  toml::table t = load(refreshed);
  EXPECT_TRUE(t["node"]["noise"]["stretch"].as_array());
  EXPECT_TRUE(t["node"]["noise"]["divider_stretch"].as_array());
  // The spell it measured, said and written.
  EXPECT_NE(run.stdout_text.find("states last"), std::string::npos) << run.stdout_text;
  EXPECT_GT(quantity(t["node"]["noise"]["spell"], Dimension::Seconds, "node.noise.spell"), 0) << read(refreshed);
  // Everything else is the original's: the same flop rate.
  EXPECT_EQ(quantity(t["node"]["flops_per_core"], Dimension::FlopsPerSecond, "flops_per_core"),
            quantity(load(file)["node"]["flops_per_core"], Dimension::FlopsPerSecond, "flops_per_core"));

  // --accumulate means nothing without --noise-only: refused, naming both.
  auto alone = measure::run_process({perfcast, "calibrate", "--accumulate", "-o", (dir / "alone.toml").string()},
                                    std::chrono::seconds(60));
  EXPECT_NE(alone.exit_code, 0);
  EXPECT_NE(alone.stderr_text.find("--noise-only"), std::string::npos) << alone.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(dir / "alone.toml"));

  // --accumulate averages a second measurement into the refreshed file's noise.
  auto pooled = dir / "pooled.toml";
  auto again = measure::run_process({perfcast, "calibrate", "--noise-only", refreshed.string(), "--quick",
                                     "--accumulate", "-o", pooled.string()},
                                    std::chrono::seconds(60));
  ASSERT_EQ(again.exit_code, 0) << again.stderr_text;
  EXPECT_EQ(load(pooled)["node"]["noise"]["probes"].value<int>(), 2) << read(pooled);
  EXPECT_GT(quantity(load(pooled)["node"]["noise"]["spell"], Dimension::Seconds, "node.noise.spell"), 0)
      << read(pooled);
  // Onto a noise of another shape (3 quantiles, no divider's) it refuses
  // before measuring, naming the file, and writes nothing.
  auto odd = dir / "odd.toml";
  {
    std::string text = read(refreshed);
    auto at = text.find("noise = {");
    ASSERT_NE(at, std::string::npos) << text;
    std::ofstream(odd) << text.substr(0, at) << "noise = { quantum = \"20 us\", stretch = [1.0, 1.5, 2.0] }"
                       << text.substr(text.find('\n', at));
  }
  auto refused_shape = measure::run_process(
      {perfcast, "calibrate", "--noise-only", odd.string(), "--accumulate", "-o", (dir / "odd_out.toml").string()},
      std::chrono::seconds(60));
  EXPECT_NE(refused_shape.exit_code, 0) << read(odd);
  EXPECT_NE(refused_shape.stderr_text.find("cannot --accumulate onto"), std::string::npos) << refused_shape.stderr_text;
  EXPECT_FALSE(std::filesystem::exists(dir / "odd_out.toml"));
}

// `calibrate --network-only` measures MPI alone into another file: the
// exchange curve and the collectives are there, the node's figures are the
// original's, the original is untouched; without -o it refuses.
void check_network_only(const std::filesystem::path& file, const std::filesystem::path& dir) {
  const std::string perfcast = std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast";
  auto refused = measure::run_process({perfcast, "calibrate", "--network-only", file.string()}, std::chrono::seconds(60));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.stderr_text.find("-o/--output"), std::string::npos) << refused.stderr_text;
  // A machine file without any MPI tables gains them.
  auto bare = dir / "bare.toml";
  std::ofstream(bare) << "name = \"bare\"\n[node]\ncount = 1\ncores = 2\nflops_per_core = \"7 Gflop/s\"\n"
                         "[memory]\nDRAM = { bandwidth = \"9 GB/s\" }\n[network]\nlatency = \"1 us\"\n"
                         "bandwidth = \"1 GB/s\"\n";
  auto refreshed = dir / "network.toml";
  auto run = measure::run_process(
      {perfcast, "calibrate", "--network-only", bare.string(), "--quick", "-o", refreshed.string()},
      std::chrono::seconds(120));
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  EXPECT_NE(run.stdout_text.find("intra-node latency"), std::string::npos) << run.stdout_text;
  toml::table t = load(refreshed);
  EXPECT_TRUE(t["network"]["intra_node_exchange"]["time_s"].as_array()) << "no exchange curve";
  EXPECT_TRUE(t["network"]["intra_node_one_way"]["time_s"].as_array()) << "no one-way curve";
  EXPECT_TRUE(t["collective"].as_array()) << "no collective tables";
  EXPECT_EQ(quantity(t["node"]["flops_per_core"], Dimension::FlopsPerSecond, "flops_per_core"), 7e9);
  EXPECT_LT(quantity(t["network"]["latency"], Dimension::Seconds, "latency"), 1e-6) << "one node: measured";
  EXPECT_EQ(quantity(load(bare)["network"]["latency"], Dimension::Seconds, "latency"), 1e-6) << "original changed";

  // --accumulate averages a second measurement into it: probes = 2, and the
  // file's 512 B exchange step is the mean of the first probe's and this one's
  // (to the 4 digits the file keeps).
  auto pooled = dir / "network_pooled.toml";
  auto again = measure::run_process({perfcast, "calibrate", "--network-only", refreshed.string(), "--quick",
                                     "--accumulate", "--json", "-o", pooled.string()},
                                    std::chrono::seconds(120));
  ASSERT_EQ(again.exit_code, 0) << again.stderr_text;
  auto j = nlohmann::json::parse(again.stdout_text);
  EXPECT_EQ(j.at("probes"), 2);
  EXPECT_EQ(load(pooled)["network"]["probes"].value<int>(), 2);
  auto first = machine::load_machine_file(refreshed).network.intra_node_exchange.time_at(512, 0);
  double second = j.at("exchange_512B_s").at("probe"), file = j.at("exchange_512B_s").at("file");
  EXPECT_NEAR(file, (first + second) / 2, 1e-3 * file) << first << " and " << second;
  EXPECT_NEAR(machine::load_machine_file(pooled).network.intra_node_exchange.time_at(512, 0), file, 1e-3 * file);
  EXPECT_FALSE(load(refreshed)["network"]["probes"]) << "the history file changed";
  // Without --accumulate a fresh measurement replaces the history: one probe again.
  auto replaced = dir / "network_replaced.toml";
  auto fresh = measure::run_process(
      {perfcast, "calibrate", "--network-only", pooled.string(), "--quick", "-o", replaced.string()},
      std::chrono::seconds(120));
  ASSERT_EQ(fresh.exit_code, 0) << fresh.stderr_text;
  EXPECT_FALSE(load(replaced)["network"]["probes"]) << "probes = 1 is not written";
}

// One test, not one per check: a calibration takes seconds, and separate tests
// (each run in its own process by ctest) would calibrate concurrently under
// `ctest -j` and measure each other.
TEST(CalibrateQuick, AgreesWithIndependentMeasurementsHere) {
  auto dir = std::filesystem::temp_directory_path() / fmt::format("perfcast_calibrate_{}", ::getpid());
  std::filesystem::create_directories(dir);
  auto file = dir / "local.toml";
  // A disagreement in each of three calibrations is calibrate's, not the
  // moment's (a merged L2 and last level is accepted: caches_against_reported).
  constexpr int kAttempts = 3;
  std::vector<std::string> disagreements;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    auto c = calibrate_quick(file);
    ASSERT_FALSE(c.run.timed_out) << c.run.stderr_text;
    ASSERT_EQ(c.run.exit_code, 0) << c.run.stderr_text;
    ASSERT_FALSE(c.table.empty());
    if (attempt == 1) {
      EXPECT_NE(c.run.stderr_text.find("calibrate [1/"), std::string::npos) << "no progress display on stderr";
      SCOPED_TRACE("documented keys");
      check_documented_keys(c.table);
      SCOPED_TRACE("sharing");
      check_sharing(c.table, file);
      SCOPED_TRACE("clock");
      check_clock(c.table, file);
      SCOPED_TRACE("cpu");
      check_cpu(c.table, file, dir);
    }
    if (attempt == 1) {
      SCOPED_TRACE("--noise-only");
      check_noise_only(file, dir);
    }
    if (attempt == 1) {
      SCOPED_TRACE("--network-only");
      check_network_only(file, dir);
    }
    disagreements = dram_against_stream(c.table);
    for (auto& d : caches_against_reported(c.table)) disagreements.push_back(std::move(d));
    if (disagreements.empty()) break;
    for (const auto& d : disagreements) std::cout << "attempt " << attempt << ": " << d << "\n";
  }
  for (const auto& d : disagreements) ADD_FAILURE() << d << " (in each of " << kAttempts << " calibrations)";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace perfcast::calibrate
