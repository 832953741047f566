// `perfcast machine show`, run as a process: every bundled machine prints, the
// JSON carries the same figures as the tables, errors exit 1 with one message,
// usage errors exit 2.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "perfcast_cli.h"
#include "scratch.h"
#include "support/units.h"

namespace {

using perfcast::units::Dimension;
using perfcast::units::format;
using json = nlohmann::json;

const std::string kMachines = std::string(PERFCAST_SOURCE_DIR) + "/machines/";
const std::vector<std::string> kBundled = {"polus", "primequest", "petascale", "generic-cluster", "hetero-example"};

using perfcast::testing::perfcast_run;

void expect_in(const std::string& text, const std::string& piece) {
  EXPECT_NE(text.find(piece), std::string::npos) << "'" << piece << "' not in:\n" << text;
}

TEST(CliMachine, ShowsEveryBundledMachine) {
  for (const auto& name : kBundled) {
    auto r = perfcast_run({"machine", "show", kMachines + name + ".toml"});
    EXPECT_EQ(r.exit_code, 0) << name << "\n" << r.stderr_text;
    EXPECT_EQ(r.stderr_text, "");
    expect_in(r.stdout_text, "machine " + name);
    expect_in(r.stdout_text, "balance B/flop");
    expect_in(r.stdout_text, "diameter");
  }
}

// `machine check`: every bundled machine passes (exit 0, one line each); a
// clock no core runs at and a cache faster than the one before it fail
// (exit 1), each line naming the key, the figure and the bound; `machine show`
// prints the same findings.
TEST(CliMachine, CheckPassesTheBundledMachinesAndNamesEachImplausibleFigure) {
  std::vector<std::string> all = {"machine", "check"};
  for (const auto& name : kBundled) all.push_back(kMachines + name + ".toml");
  auto ok = perfcast_run(all);
  EXPECT_EQ(ok.exit_code, 0) << ok.stdout_text << ok.stderr_text;
  for (const auto& name : kBundled) expect_in(ok.stdout_text, name + ".toml: every figure within what hardware does");

  auto bad = perfcast_run({"machine", "check", "polus", "--set", "node.clock=\"13.6 GHz\"", "--set",
                           "memory.DRAM.bandwidth=\"900 GB/s\""});
  EXPECT_EQ(bad.exit_code, 1) << bad.stdout_text << bad.stderr_text;
  expect_in(bad.stdout_text, "node.clock = 13.6 GHz, expected at most 6.5 GHz");
  expect_in(bad.stdout_text, "memory.DRAM.bandwidth = 900 GB/s, expected at most");
  expect_in(bad.stderr_text, "figures outside what hardware does");

  auto show = perfcast_run({"machine", "show", "polus", "--set", "node.clock=\"13.6 GHz\"", "--json"});
  ASSERT_EQ(show.exit_code, 0) << show.stderr_text;
  const json shown = json::parse(show.stdout_text)["machines"][0]["implausible"];
  ASSERT_EQ(shown.size(), 1u) << shown.dump();
  EXPECT_EQ(shown[0].get<std::string>().rfind("node.clock = 13.6 GHz", 0), 0u);
}

// generic-cluster with a clock no core runs at: a file edited by hand.
std::string implausible_machine_file() {
  std::ifstream in(kMachines + "generic-cluster.toml");
  std::stringstream text;
  text << in.rdbuf();
  std::string toml = text.str();
  const std::string clock = "clock = \"2.8 GHz\"";
  const auto at = toml.find(clock);
  EXPECT_NE(at, std::string::npos) << "generic-cluster.toml has no " << clock;
  if (at != std::string::npos) toml.replace(at, clock.size(), "clock = \"13.6 GHz\"");
  auto path = perfcast::testing::scratch() / "implausible.toml";
  std::ofstream(path) << toml;
  return path.string();
}

// calibrate --noise-only and --network-only rewrite a machine file keeping most of
// its figures: a kept figure no hardware has is refused as a full calibration's is
// (before measuring, nothing written), and --allow-implausible writes with a warning.
TEST(CliMachine, CalibrateRewritesRefuseImplausibleFigures) {
  const std::string file = implausible_machine_file();
  for (const char* mode : {"--noise-only", "--network-only"}) {
    SCOPED_TRACE(mode);
    const auto out = perfcast::testing::scratch() / (std::string(mode + 2) + ".toml");
    auto r = perfcast_run({"calibrate", mode, file, "--quick", "-o", out.string()});
    EXPECT_EQ(r.exit_code, 1) << r.stdout_text << r.stderr_text;
    expect_in(r.stderr_text, file);
    expect_in(r.stderr_text, "node.clock = 13.6 GHz, expected at most 6.5 GHz");
    expect_in(r.stderr_text, "--allow-implausible");
    EXPECT_FALSE(std::filesystem::exists(out)) << out;
  }
  const auto out = perfcast::testing::scratch() / "allowed.toml";
  auto allowed = perfcast_run({"calibrate", "--noise-only", file, "--quick", "--allow-implausible", "-o", out.string()});
  ASSERT_EQ(allowed.exit_code, 0) << allowed.stderr_text;
  expect_in(allowed.stderr_text, "warning");
  expect_in(allowed.stderr_text, "node.clock = 13.6 GHz");
  EXPECT_TRUE(std::filesystem::exists(out)) << out;
}

// simulate prices with an implausible machine as predict does, and says so on
// stderr and in its JSON (warnings.machine); a plausible one gives no such line.
TEST(CliMachine, SimulateWarnsAboutAnImplausibleMachine) {
  auto events = perfcast::testing::scratch() / "two.txt";
  std::ofstream(events) << "# perfcast events 1\nrank 0\ncompute 0.001\nsend peer=1 bytes=8\n"
                           "rank 1\nrecv peer=0 bytes=8\n";
  auto bad = perfcast_run({"simulate", "--machine", "polus", "--set", "node.clock=\"13.6 GHz\"", events.string(),
                           "--json"});
  ASSERT_EQ(bad.exit_code, 0) << bad.stderr_text;
  expect_in(bad.stderr_text, "perfcast simulate: warning: machine 'polus': node.clock = 13.6 GHz");
  const json warned = json::parse(bad.stdout_text)["warnings"]["machine"];
  ASSERT_EQ(warned.size(), 1u) << warned.dump();
  EXPECT_NE(warned[0].get<std::string>().find("node.clock = 13.6 GHz"), std::string::npos) << warned.dump();

  auto good = perfcast_run({"simulate", "--machine", "polus", events.string(), "--json"});
  ASSERT_EQ(good.exit_code, 0) << good.stderr_text;
  EXPECT_EQ(good.stderr_text.find("hardware"), std::string::npos) << good.stderr_text;
  EXPECT_TRUE(json::parse(good.stdout_text)["warnings"]["machine"].empty());
}

TEST(CliMachine, BundledMachinesByName) {
  auto r = perfcast_run({"machine", "show", "polus", "petascale"});
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  expect_in(r.stdout_text, "machine polus");
  expect_in(r.stdout_text, "machine petascale");
}

TEST(CliMachine, JsonHasTheFiguresOfTheTable) {
  for (const auto& name : kBundled) {
    SCOPED_TRACE(name);
    std::string file = kMachines + name + ".toml";
    auto table = perfcast_run({"machine", "show", file});
    auto js = perfcast_run({"machine", "show", file, "--json"});
    ASSERT_EQ(js.exit_code, 0) << js.stderr_text;
    json doc = json::parse(js.stdout_text);
    ASSERT_EQ(doc["machines"].size(), 1u);
    const json& m = doc["machines"][0];
    EXPECT_EQ(m["name"], name);
    const std::string& text = table.stdout_text;
    expect_in(text, fmt::format(" {}\n", m["total_cores"].get<int>()));
    expect_in(text, fmt::format(" {}\n", m["nodes"].get<int>()));
    expect_in(text, format(m["peak_flops"].get<double>(), Dimension::FlopsPerSecond));
    for (const auto& g : m["node_groups"]) {
      expect_in(text, format(g["peak_flops_per_node"].get<double>(), Dimension::FlopsPerSecond));
      expect_in(text, format(g["memory_bandwidth_per_node_Bps"].get<double>(), Dimension::BytesPerSecond));
      expect_in(text, fmt::format("{:.3g}", g["balance_bytes_per_flop"].get<double>()));
      for (const auto& level : g["memory"]) {
        expect_in(text, format(level["bandwidth_per_core_all_cores_Bps"].get<double>(), Dimension::BytesPerSecond));
        if (!level["capacity_per_core_all_cores_bytes"].is_null())
          expect_in(text, format(level["capacity_per_core_all_cores_bytes"].get<double>(), Dimension::Bytes));
      }
    }
    const json& n = m["network"];
    expect_in(text, format(n["latency_s"].get<double>(), Dimension::Seconds));
    expect_in(text, format(n["bandwidth_Bps"].get<double>(), Dimension::BytesPerSecond));
    expect_in(text, format(n["diameter_latency_s"].get<double>(), Dimension::Seconds));
    int diameter = n["diameter_hops"].get<int>();
    expect_in(text, fmt::format("{} hop{}", diameter, diameter == 1 ? "" : "s"));
    expect_in(text, n["topology"].get<std::string>());
  }
}

TEST(CliMachine, JsonFiguresWorkedByHand) {
  auto r = perfcast_run({"machine", "show", kMachines + "petascale.toml", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json m = json::parse(r.stdout_text)["machines"][0];
  EXPECT_EQ(m["total_cores"], 32768);
  EXPECT_DOUBLE_EQ(m["node_groups"][0]["peak_flops_per_node"].get<double>(), 512e9);
  EXPECT_DOUBLE_EQ(m["node_groups"][0]["balance_bytes_per_flop"].get<double>(), 0.5);
  EXPECT_EQ(m["network"]["diameter_hops"], 24);
  EXPECT_DOUBLE_EQ(m["network"]["diameter_latency_s"].get<double>(), 1e-6 + 23 * 100e-9);
}

TEST(CliMachine, SetOverridesAKey) {
  auto r = perfcast_run({"machine", "show", "--set", "node.cores=32", kMachines + "polus.toml", "--set",
                         "network.bandwidth=20 GB/s", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json m = json::parse(r.stdout_text)["machines"][0];
  EXPECT_EQ(m["total_cores"], 4 * 32);
  EXPECT_DOUBLE_EQ(m["network"]["bandwidth_Bps"].get<double>(), 20e9);
}

// What calibrate measures beside the plain figures shows in both forms: the
// FP instruction cycles of a node, its CPU's LLVM name and the exchange curve.
TEST(CliMachine, ShowsTheInstructionCyclesAndTheExchangeCurve) {
  auto r = perfcast_run({"machine", "show", kMachines + "polus.toml", "--set",
                         "node.instruction_cycles={ fp_add_latency = 2.05, fp_divide_interval = 4.09 }", "--set",
                         "network.intra_node_exchange={ bytes = [1, 4096], time_s = [5e-7, 4e-6] }", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json m = json::parse(r.stdout_text)["machines"][0];
  EXPECT_EQ(m["node_groups"][0]["instruction_cycles"], "FP add 2.05, a divide every 4.09 cycles");
  EXPECT_EQ(m["network"]["intra_node_exchange"], "2 sizes, 1 B in 500 ns .. 4 KiB in 4 us");
  auto table = perfcast_run({"machine", "show", kMachines + "polus.toml", "--set",
                             "node.instruction_cycles={ fp_add_latency = 2.05 }"});
  EXPECT_NE(table.stdout_text.find("instruction cycles: FP add 2.05 cycles"), std::string::npos) << table.stdout_text;
  EXPECT_NE(table.stdout_text.find("CPU, as LLVM names it: pwr8"), std::string::npos) << table.stdout_text;
  EXPECT_EQ(m["node_groups"][0]["cpu"], "pwr8");
  auto unnamed = perfcast_run({"machine", "show", kMachines + "petascale.toml", "--json"});
  ASSERT_EQ(unnamed.exit_code, 0) << unnamed.stderr_text;
  EXPECT_TRUE(json::parse(unnamed.stdout_text)["machines"][0]["node_groups"][0]["cpu"].is_null());
}

// The memory levels' serial fractions: the plain one and, where the file has
// overlap_by_streams, each stream count's at core = memory (here between the
// table's ratios 0.5 and 2, in log ratio: the mean of the two).
TEST(CliMachine, ShowsTheSerialFractionsByStreams) {
  const std::string overlap = "memory.DRAM.overlap_by_streams={ streams = [3, 7], core_over_memory = [0.5, 2], "
                              "serial_fraction = [[0.1, 0.3], [0.9, 0.5]] }";
  auto r = perfcast_run({"machine", "show", kMachines + "polus.toml", "--set", "memory.DRAM.serial_fraction=0.08",
                         "--set", overlap, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  const json dram = json::parse(r.stdout_text)["machines"][0]["node_groups"][0]["memory"].back();
  EXPECT_EQ(dram["name"], "DRAM");
  EXPECT_DOUBLE_EQ(dram["serial_fraction"].get<double>(), 0.08);
  EXPECT_NEAR(dram["serial_fraction_by_streams_at_balance"]["3"].get<double>(), 0.2, 1e-12);
  EXPECT_NEAR(dram["serial_fraction_by_streams_at_balance"]["7"].get<double>(), 0.7, 1e-12);
  auto table = perfcast_run({"machine", "show", kMachines + "polus.toml", "--set", overlap});
  EXPECT_NE(table.stdout_text.find("3: 0.20, 7: 0.70"), std::string::npos) << table.stdout_text;
}

size_t count(const std::string& text, const std::string& piece) {
  size_t n = 0;
  for (size_t at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1)) ++n;
  return n;
}

TEST(CliMachine, BadFileExitsOneWithOneMessage) {
  std::string file = std::string(PERFCAST_SOURCE_DIR) + "/tests/machine/malformed/bad_unit.toml";
  auto r = perfcast_run({"machine", "show", file});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.stdout_text, "");
  EXPECT_EQ(count(r.stderr_text, "perfcast: error:"), 1u) << r.stderr_text;
  expect_in(r.stderr_text, "bad_unit.toml:11: 'network.bandwidth': unknown unit 'parsecs'");

  auto missing = perfcast_run({"machine", "show", "no-such-machine"});
  EXPECT_EQ(missing.exit_code, 1);
  expect_in(missing.stderr_text, "cannot open the machine file");
  expect_in(missing.stderr_text, "hint: bundled machines:");

  auto bad_set = perfcast_run({"machine", "show", "polus", "--set", "network.bandwith=1"});
  EXPECT_EQ(bad_set.exit_code, 1);
  EXPECT_EQ(count(bad_set.stderr_text, "perfcast: error:"), 1u) << bad_set.stderr_text;
  expect_in(bad_set.stderr_text, "did you mean 'network.bandwidth'?");
}

TEST(CliMachine, UsageErrorsExitTwo) {
  EXPECT_EQ(perfcast_run({"machine", "show", "polus", "--no-such-flag"}).exit_code, 2);
  EXPECT_EQ(perfcast_run({"machine", "show"}).exit_code, 2);
  EXPECT_EQ(perfcast_run({"machine"}).exit_code, 2);
}

}  // namespace
