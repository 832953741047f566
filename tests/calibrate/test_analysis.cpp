// Ping-pong analysis, cache plausibility and the atomic writer.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "machine/calibrate/mpi_bench.h"
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

TEST(Writer, ReplacesTheFileWholeAndLeavesNoTemporary) {
  auto dir = std::filesystem::temp_directory_path() / ("perfcast_writer_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / "m.toml";
  write_file_atomically(file, "old = 1\n");
  write_file_atomically(file, "new = 2\n");
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "new = 2\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);
  std::filesystem::remove_all(dir);
}

TEST(Writer, UnwritableDirectoryIsAUserErrorAndCreatesNothing) {
  EXPECT_THROW(write_file_atomically("/nonexistent-dir-perfcast/m.toml", "x = 1\n"), UserError);
}

}  // namespace
}  // namespace perfcast::calibrate

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
