// A trace replayed on another machine (sim/compute_rescale.h): each rank's
// measured bursts stretched by the host's core figure over the target's, on
// the node each rank sits on in each machine; bursts priced from counts left
// to the target's own pricing. Factors computed by hand from the figures.
#include <gtest/gtest.h>

#include "sim/compute_rescale.h"
#include "sim/sim_test_util.h"
#include "support/error.h"

namespace perfcast::sim::test {
namespace {

machine::Machine with_clock(const std::string& name, const std::string& clock, const std::string& flops,
                            const std::string& dram) {
  std::vector<std::string> overrides = {"name=" + name, "node.flops_per_core=" + flops,
                                        "memory.DRAM.bandwidth=" + dram};
  if (!clock.empty()) overrides.push_back("node.clock=" + clock);
  return flat_machine(overrides);
}

TEST(ComputeRescale, EachFigureGivesTheHostsOverTheTargets) {
  auto host = with_clock("host", "3 GHz", "12 Gflop/s", "10 GB/s");
  auto target = with_clock("target", "2 GHz", "16 Gflop/s", "4 GB/s");
  EXPECT_DOUBLE_EQ(compute_rescale(host, target, 4, RescaleBy::Clock).factor.at(3), 1.5);
  EXPECT_DOUBLE_EQ(compute_rescale(host, target, 4, RescaleBy::Flops).factor.at(0), 0.75);
  EXPECT_DOUBLE_EQ(compute_rescale(host, target, 4, RescaleBy::Memory).factor.at(2), 2.5);
  EXPECT_DOUBLE_EQ(compute_rescale(host, target, 4, RescaleBy::None).factor.at(1), 1.0);
  ComputeRescale automatic = compute_rescale(host, target, 4, RescaleBy::Auto);
  EXPECT_EQ(automatic.by, RescaleBy::Clock) << "both machines give a clock";
  EXPECT_DOUBLE_EQ(automatic.max_factor(), 1.5);
}

TEST(ComputeRescale, AutoTakesTheFlopsWhereAMachineGivesNoClock) {
  auto host = with_clock("host", "3 GHz", "12 Gflop/s", "10 GB/s");
  auto target = with_clock("target", "", "16 Gflop/s", "4 GB/s");
  ComputeRescale automatic = compute_rescale(host, target, 2, RescaleBy::Auto);
  EXPECT_EQ(automatic.by, RescaleBy::Flops);
  EXPECT_DOUBLE_EQ(automatic.min_factor(), 0.75);
  try {
    compute_rescale(host, target, 2, RescaleBy::Clock);
    FAIL() << "a target without a clock cannot rescale by clock";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("machine 'target' gives no node.clock"), std::string::npos) << e.what();
  }
}

TEST(ComputeRescale, OnlyMeasuredBurstsAreStretched) {
  auto host = with_clock("host", "3 GHz", "1 Gflop/s", "1 GB/s");
  auto target = with_clock("target", "1.5 GHz", "1 Gflop/s", "1 GB/s");
  Event counted;
  counted.kind = Kind::Compute;
  counted.flops = 2e9;  // priced by the target: 2 s at 1 Gflop/s
  events::VectorJobSource job({{compute(1.0), send(1, 100)}, {counted, recv(0, 100)}});
  ComputeRescale rescale = compute_rescale(host, target, 2, RescaleBy::Clock);
  auto rescaled = with_compute_rescaled(job, rescale);
  SimResult r = simulate(*rescaled, target);
  EXPECT_NEAR(r.ranks[0].calc_s, 2.0, 1e-9) << "1 s measured on a clock twice the target's";
  EXPECT_NEAR(r.ranks[1].calc_s, 2.0, 1e-9) << "counted work is the target's own price, not stretched";
}

TEST(ComputeRescale, AFigureThatIsNotOneIsAClearError) {
  try {
    parse_rescale_by("speed", "--rescale-by");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("'speed' is not a figure to rescale compute by"), std::string::npos);
    EXPECT_NE(e.hint().find("auto, clock, flops, memory, none"), std::string::npos);
  }
}

}  // namespace
}  // namespace perfcast::sim::test
