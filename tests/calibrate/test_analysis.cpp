// Ping-pong analysis, cache plausibility and the calibration's JSON (the
// atomic writer it used is support/output_file.h's, tested in tests/support).
#include <gtest/gtest.h>

#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "calibrate/sample_calibration.h"
#include "machine/calibrate/calibrate.h"
#include "machine/calibrate/mpi_bench.h"
#include "machine/calibrate/noise.h"
#include "machine/calibrate/system.h"
#include "machine/calibrate/writer.h"
#include "support/error.h"

namespace perfcast::calibrate {
namespace {

constexpr double MiB = 1024.0 * 1024.0;

// Latency 1 us, 10 GB/s, eager up to 2 KiB; rendezvous adds 3 us.
std::vector<PingPongPoint> synthetic_pingpong() {
  std::vector<PingPongPoint> c;
  for (double b = 1; b <= 4 * MiB; b *= 2) c.push_back({b, 1e-6 + b / 10e9 + (b > 2048 ? 3e-6 : 0)});
  return c;
}

TEST(PingPong, LatencyIsTheSmallMessageTime) {
  EXPECT_NEAR(pingpong_latency(synthetic_pingpong()), 1e-6, 1e-9);
}

TEST(PingPong, EagerThresholdIsTheLastSizeBeforeTheJump) {
  auto eager = eager_threshold(synthetic_pingpong());
  ASSERT_TRUE(eager.has_value());
  EXPECT_EQ(*eager, 2048);
}

TEST(PingPong, NoJumpNoEagerThreshold) {
  std::vector<PingPongPoint> c;
  for (double b = 1; b <= 4 * MiB; b *= 2) c.push_back({b, 1e-6 + b / 10e9});
  EXPECT_FALSE(eager_threshold(c).has_value());
}

TEST(PingPong, BandwidthIsTheLargeMessageSlopeDespiteOneOutlier) {
  auto c = synthetic_pingpong();
  c[c.size() - 2].one_way_s *= 2.5;  // one disturbed size
  double bw = pingpong_bandwidth(c, eager_threshold(c));
  EXPECT_NEAR(bw / 10e9, 1.0, 0.05);
}

TEST(Caches, HypervisorL3IsImplausibleRealOnesAreNot) {
  EXPECT_FALSE(plausible_cache_size(3, 508 * MiB, 2));  // this VM's CPUID figure
  EXPECT_TRUE(plausible_cache_size(3, 32 * MiB, 2));
  EXPECT_TRUE(plausible_cache_size(3, 96 * MiB, 8));     // a V-cache CCD
  EXPECT_TRUE(plausible_cache_size(3, 504 * MiB, 128));  // a whole big-socket L3
  EXPECT_TRUE(plausible_cache_size(1, 48 * 1024, 2));
}

TEST(ProcessCounts, PowersOfTwoUpToTheMaximum) {
  EXPECT_EQ(process_counts(2, false), std::vector<int>({2}));
  EXPECT_EQ(process_counts(6, false), std::vector<int>({2, 4, 6}));
  EXPECT_EQ(process_counts(8, false), std::vector<int>({2, 4, 8}));
  EXPECT_EQ(process_counts(8, true), std::vector<int>({2, 8}));
  EXPECT_TRUE(process_counts(1, false).empty());
}

// The JSON carries the core clock beside the flop rates: it converts the
// model's cycles into seconds and differs from one calibration to the next.
TEST(CalibrationJson, CarriesTheClockMeasuredAndReported) {
  Calibration cal;
  cal.clock_Hz = 3.5e9;
  cal.reported_clock_Hz = 2.1e9;
  cal.clock_measured = true;
  auto j = calibration_json(cal);
  EXPECT_DOUBLE_EQ(j["compute"]["clock_Hz"].get<double>(), 3.5e9);
  EXPECT_DOUBLE_EQ(j["compute"]["reported_clock_Hz"].get<double>(), 2.1e9);
  EXPECT_TRUE(j["compute"]["clock_measured"].get<bool>());
  Calibration unknown;  // no clock found: null, not 0 Hz
  EXPECT_TRUE(calibration_json(unknown)["compute"]["clock_Hz"].is_null());
  EXPECT_TRUE(calibration_json(unknown)["compute"]["instruction_cycles"].is_null());
  cal.instruction_cycles.fp_add_latency = 2.05;
  cal.instruction_cycles.fp_divide_interval = 4.09;
  auto cycles = calibration_json(cal)["compute"]["instruction_cycles"];
  EXPECT_DOUBLE_EQ(cycles["fp_add_latency"].get<double>(), 2.05);
  EXPECT_DOUBLE_EQ(cycles["fp_divide_interval"].get<double>(), 4.09);
}

// The JSON records the probe's chains and each witness, null where it could
// not be read and with the reason for perf; findings as a list.
TEST(CalibrationJson, CarriesTheClockProbeItsWitnessesAndTheFindings) {
  Calibration cal;
  cal.clock_probe.register_add_Hz = 3.0e9;
  cal.clock_probe.multiply_Hz = 2.95e9;
  cal.clock_probe.immediate_add_Hz = 13.6e9;
  cal.clock_probe.attempts = 1;
  cal.clock_witnesses.tsc_Hz = 2.1e9;
  cal.clock_witnesses.constant_tsc = true;
  cal.clock_witnesses.perf_note = "perf_event_open for CPU cycles: No such file or directory";
  cal.findings.push_back({"node.clock", "13.6 GHz", "at most 6.5 GHz", "no core runs faster"});
  auto j = calibration_json(cal);
  const auto& probe = j["compute"]["clock_probe"];
  EXPECT_DOUBLE_EQ(probe["register_add_Hz"].get<double>(), 3.0e9);
  EXPECT_DOUBLE_EQ(probe["multiply_Hz"].get<double>(), 2.95e9);
  EXPECT_NEAR(probe["immediate_adds_per_cycle"].get<double>(), 4.53, 0.01);
  const auto& w = j["compute"]["clock_witnesses"];
  EXPECT_DOUBLE_EQ(w["tsc_Hz"].get<double>(), 2.1e9);
  EXPECT_TRUE(w["perf_cycles_Hz"].is_null());
  EXPECT_TRUE(w["cpufreq_max_Hz"].is_null());
  EXPECT_NE(w["perf_note"].get<std::string>().find("No such file"), std::string::npos);
  ASSERT_EQ(j["findings"].size(), 1u);
  EXPECT_EQ(j["findings"][0]["figure"], "node.clock");
  EXPECT_EQ(j["findings"][0]["bound"], "at most 6.5 GHz");
}

// A clock that moved while calibrate watched (its slowest sample far below
// the fastest, which the file takes) is said in the file's raw comments and
// in the JSON; one that held is written without the note.
TEST(CalibrationJson, SaysWhenTheClockMovedDuringTheProbe) {
  Calibration cal;
  cal.clock_probe.register_add_Hz = 2.6e9;
  cal.clock_probe.multiply_Hz = 2.6e9;
  cal.clock_probe.attempts = 1;
  cal.clock_probe.slowest_register_add_Hz = 1.4e9;
  auto joined = [](const std::vector<std::string>& lines) {
    std::string all;
    for (const auto& l : lines) all += l + "\n";
    return all;
  };
  std::string text = joined(machine_file_comments(cal).trailer);
  EXPECT_NE(text.find("Clock samples (register adds): slowest 1.4 GHz, fastest 2.6 GHz: the clock moved"),
            std::string::npos)
      << text;
  auto j = calibration_json(cal);
  EXPECT_DOUBLE_EQ(j["compute"]["clock_probe"]["slowest_register_add_Hz"].get<double>(), 1.4e9);
  EXPECT_TRUE(j["compute"]["clock_probe"]["clock_moved"].get<bool>());
  cal.clock_probe.slowest_register_add_Hz = 2.5e9;
  text = joined(machine_file_comments(cal).trailer);
  EXPECT_NE(text.find("slowest 2.5 GHz, fastest 2.6 GHz\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("the clock moved"), std::string::npos);
  EXPECT_FALSE(calibration_json(cal)["compute"]["clock_probe"]["clock_moved"].get<bool>());
}

// calibration_findings: the clock probe judged by its witnesses, then the
// machine's figures; a calibration as a real one returns passes.
TEST(CalibrationFindings, ASoundCalibrationPassesAndAMisreadClockIsRefused) {
  Calibration cal = sample_calibration();
  cal.clock_probe.register_add_Hz = cal.clock_probe.multiply_Hz = cal.clock_Hz;
  cal.clock_probe.immediate_add_Hz = cal.clock_Hz;
  cal.clock_probe.attempts = 1;
  cal.clock_witnesses.tsc_Hz = 2.45e9;
  cal.clock_witnesses.constant_tsc = true;
  EXPECT_TRUE(calibration_findings(cal).empty()) << machine::describe(calibration_findings(cal).front());
  // The clock the immediate chain gave on Emerald Rapids, in the probe and in the file.
  cal.clock_probe.register_add_Hz = 13.6e9;
  cal.machine.groups[0].clock_Hz = 13.6e9;
  const auto findings = calibration_findings(cal);
  std::vector<std::string> bounds;
  for (const auto& f : findings) {
    EXPECT_EQ(f.figure, "node.clock");
    bounds.push_back(f.bound);
  }
  ASSERT_EQ(findings.size(), 3u);  // the chains disagree, 4x the TSC, above 6.5 GHz
  EXPECT_EQ(bounds.back(), "at most 6.5 GHz");
}

// A VM names a Zen 3 and a Zen 5 alike; the family, model and SIMD width
// tell the machine files apart.
TEST(CpuDescription, NamesTheFamilyModelAndWidestSimdOfTheFirstProcessor) {
  const std::string zen5 =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
      "model name\t: AMD EPYC\nflags\t\t: fpu sse2 avx2 fma avx512f avx512dq\n\n"
      "processor\t: 1\ncpu family\t: 99\nmodel name\t: other\n";
  EXPECT_EQ(describe_cpu(zen5), "AMD EPYC (family 26, model 2, AVX-512)");
  const std::string zen3 =
      "processor\t: 0\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\nflags\t\t: fpu avx2 fma\n";
  EXPECT_EQ(describe_cpu(zen3), "AMD EPYC (family 25, model 1, AVX2)");
  EXPECT_EQ(describe_cpu("model name\t: Some CPU\n"), "Some CPU");
  EXPECT_EQ(describe_cpu(""), "");
}


// The serial fraction is the median of the points' fractions, clamped to
// [0, 1]: a noisy point below 0 (the level looked faster with work added) or
// above 1 does not move it past the physical range.
TEST(Overlap, SerialFractionIsTheClampedMedianOfThePoints) {
  using perfcast::calibrate::OverlapPoint;
  using perfcast::calibrate::serial_fraction_of;
  EXPECT_EQ(serial_fraction_of({}), 0);
  EXPECT_DOUBLE_EQ(serial_fraction_of({{4, 1, 1.5, 0.5}, {6, 1, 1.3, 0.3}, {8, 1, 1.9, 0.9}}), 0.5);
  EXPECT_EQ(serial_fraction_of({{4, 1, 0.5, -0.5}, {6, 1, 0.8, -0.2}}), 0);
  EXPECT_EQ(serial_fraction_of({{4, 1, 3, 2.0}}), 1);
}

// Two cores timed over 1 s in quanta of 10 ms (fastest 10 ms): disturbed
// windows (quanta at 2x) shared or apart give the pairs' shares exactly.
TEST(Noise, CoresDisturbedTogetherOrApartAreToldApart) {
  using perfcast::calibrate::NoiseResult;
  using perfcast::calibrate::pair_disturbance;
  auto core = [](auto slow_at) {
    std::vector<double> times, starts;
    double t = 0;
    for (int i = 0; i < 100; ++i) {
      double d = slow_at(i) ? 0.02 : 0.01;
      starts.push_back(t);
      times.push_back(d);
      t += 0.01;  // windows by start time; a slow quantum still starts on the grid
    }
    return std::pair{times, starts};
  };
  auto first_half = core([](int i) { return i < 50; });
  auto second_half = core([](int i) { return i >= 50; });
  auto first_half_too = core([](int i) { return i < 50; });
  NoiseResult apart, together;
  pair_disturbance({first_half.first, second_half.first}, {first_half.second, second_half.second}, {0.01, 0.01},
                   apart, 0.1);
  EXPECT_EQ(apart.windows, 10);
  EXPECT_DOUBLE_EQ(apart.pairs_disturbed_together, 0);
  EXPECT_DOUBLE_EQ(apart.pairs_if_independent, 0.25);
  pair_disturbance({first_half.first, first_half_too.first}, {first_half.second, first_half_too.second}, {0.01, 0.01},
                   together, 0.1);
  EXPECT_DOUBLE_EQ(together.pairs_disturbed_together, 0.5);
  EXPECT_DOUBLE_EQ(together.pairs_if_independent, 0.25);
  NoiseResult one;
  pair_disturbance({first_half.first}, {first_half.second}, {0.01}, one, 0.1);
  EXPECT_EQ(one.windows, 0) << "one core has no pairs";
}

// The spell estimator on series whose autocorrelation time is known. 100'000
// values: tau's sampling error is then about 3 % (runs of 50) or less, and
// the truncation at rho < 0.05 drops 0.25 % of a run's tau, so 10 % holds.
TEST(Noise, TheAutocorrelationTimeOfIndependentValuesIsOneOfRunsTheirLength) {
  using perfcast::calibrate::integrated_autocorrelation;
  std::mt19937_64 random(20261127);
  std::uniform_real_distribution<double> stretch(1.0, 2.0);
  std::vector<double> independent(100'000);
  for (double& x : independent) x = stretch(random);
  const auto iid = integrated_autocorrelation(independent);
  std::cout << "independent: tau " << iid.tau << " over " << iid.lags << " lags\n";
  EXPECT_GE(iid.tau, 1);
  EXPECT_LT(iid.tau, 1.1);
  EXPECT_FALSE(iid.bounded);
  // Runs of L equal values (a state held L quanta): rho(lag) = 1 - lag / L, tau = L.
  for (int run : {10, 50}) {
    std::vector<double> runs;
    while (runs.size() < 100'000) runs.insert(runs.end(), static_cast<size_t>(run), stretch(random));
    const auto a = integrated_autocorrelation(runs);
    std::cout << "runs of " << run << ": tau " << a.tau << " over " << a.lags << " lags\n";
    EXPECT_NEAR(a.tau, run, 0.1 * run);
    EXPECT_FALSE(a.bounded);
    EXPECT_LT(a.lags, static_cast<size_t>(run)) << "rho reaches 0 at a run's length";
  }
  // Runs longer than a tenth of the series: the sum stops there, still
  // correlated, and says its tau is only a lower bound.
  std::vector<double> long_runs;
  while (long_runs.size() < 20'000) long_runs.insert(long_runs.end(), 5'000, stretch(random));
  const auto bounded = integrated_autocorrelation(long_runs);
  EXPECT_TRUE(bounded.bounded);
  EXPECT_EQ(bounded.lags, 2'000u);
  EXPECT_LT(bounded.tau, 5'000);
  EXPECT_GT(bounded.tau, 1'000);
  // A constant series (an undisturbed core) has nothing that persists.
  const auto flat = integrated_autocorrelation(std::vector<double>(1'000, 1.0));
  EXPECT_EQ(flat.tau, 1);
  EXPECT_FALSE(flat.bounded);
}

// The sentence calibrate prints says what the spell is and where the probe's length bounds it.
TEST(Noise, TheSpellSummarySaysWhenTheProbeBoundsIt) {
  NoiseResult noise;
  noise.samples = 1000;
  noise.threads = 16;
  noise.spell_s = 0.12;
  noise.spell_quanta = 2400;
  EXPECT_EQ(spell_summary(noise),
            "states last 120 ms (autocorrelation time 2400 of the probe's quanta, median of 16 cores)");
  noise.spell_bounded_cores = 8;
  EXPECT_NE(spell_summary(noise).find("on 8 of 16 cores"), std::string::npos) << spell_summary(noise);
  EXPECT_NE(spell_summary(noise).find("the probe's length bounds it"), std::string::npos);
  noise.spell_s = 0;
  EXPECT_NE(spell_summary(noise).find("no core timed enough quanta"), std::string::npos);
}

}  // namespace
}  // namespace perfcast::calibrate
