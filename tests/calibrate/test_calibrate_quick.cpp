// Acceptance: `perfcast calibrate --quick` on this machine, judged against
// figures measured independently here: a STREAM triad loop for DRAM and the
// cache sizes the system reports.
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <toml++/toml.h>

#include "machine/calibrate/system.h"
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
  const std::set<std::string> top = {"name", "description", "node", "memory", "math", "network", "collective"};
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
      EXPECT_TRUE(k == "size" || k == "bandwidth" || k == "shared" || k == "node_bandwidth") << k.str();
    double size = quantity((*memory)[level]["size"], Dimension::Bytes, std::string(level) + ".size");
    EXPECT_GT(size, previous_size) << "sizes must grow outwards";
    previous_size = size;
    quantity((*memory)[level]["bandwidth"], Dimension::BytesPerSecond, std::string(level) + ".bandwidth");
  }
  quantity(t["memory"]["DRAM"]["node_bandwidth"], Dimension::BytesPerSecond, "DRAM.node_bandwidth");

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
  double bw = quantity(t["network"]["bandwidth"], Dimension::BytesPerSecond, "network.bandwidth");
  EXPECT_GT(bw, 1e8);
  EXPECT_EQ(t["network"]["topology"].value<std::string>().value_or(""), "crossbar");
  if (t["network"]["eager_threshold"]) quantity(t["network"]["eager_threshold"], Dimension::Bytes, "eager");

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

void check_dram_against_stream(const toml::table& t) {
  double calibrated = quantity(t["memory"]["DRAM"]["bandwidth"], Dimension::BytesPerSecond, "DRAM.bandwidth");
  double stream = stream_triad_Bps();
  std::cout << fmt::format("DRAM, one core: calibrate {:.2f} GB/s, STREAM triad here {:.2f} GB/s, ratio {:.2f}\n",
                           calibrated / 1e9, stream / 1e9, calibrated / stream);
  EXPECT_NEAR(calibrated / stream, 1.0, 0.25);
}

void check_caches_against_reported(const toml::table& t) {
  auto caches = reported_caches();
  if (caches.empty()) {
    std::cout << "the system reports no cache sizes: nothing to compare\n";
    return;
  }
  int compared = 0;
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
    std::cout << fmt::format("{}: {} reports {}, calibrate measured {}\n", level, c.source, reported, measured);
    if (!measured_text) {
      ADD_FAILURE() << "no " << level << " plateau found; the system reports " << reported;
      continue;
    }
    double size = units::parse(*measured_text, Dimension::Bytes);
    EXPECT_GE(size, c.size_bytes / 2) << level;
    EXPECT_LE(size, c.size_bytes * 2) << level;
    ++compared;
  }
  EXPECT_GT(compared, 0) << "no plausible reported cache to compare with";
}

// One test, not one per check: a calibration takes seconds, and separate tests
// (each run in its own process by ctest) would calibrate concurrently under
// `ctest -j` and measure each other.
TEST(CalibrateQuick, AgreesWithIndependentMeasurementsHere) {
  auto dir = std::filesystem::temp_directory_path() / fmt::format("perfcast_calibrate_{}", ::getpid());
  std::filesystem::create_directories(dir);
  auto file = dir / "local.toml";
  auto run = measure::run_process(
      {std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast", "calibrate", "--quick", "-o", file.string()},
      std::chrono::seconds(180));
  std::cout << run.stdout_text;

  ASSERT_FALSE(run.timed_out) << run.stderr_text;
  ASSERT_EQ(run.exit_code, 0) << run.stderr_text;
  std::cout << fmt::format("perfcast calibrate --quick took {:.1f} s\n", run.wall_s);
  EXPECT_LT(run.wall_s, 60.0);
  EXPECT_NE(run.stderr_text.find("calibrate [1/"), std::string::npos) << "no progress display on stderr";

  auto t = load(file);
  ASSERT_FALSE(t.empty());
  {
    SCOPED_TRACE("documented keys");
    check_documented_keys(t);
  }
  {
    SCOPED_TRACE("DRAM against STREAM triad");
    check_dram_against_stream(t);
  }
  {
    SCOPED_TRACE("cache plateaus against reported sizes");
    check_caches_against_reported(t);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace perfcast::calibrate
