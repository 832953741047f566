// What the engines ask of a machine: hops, latencies, rank placement, memory
// levels under sharing, collective tables. Expected values are worked by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "machine/machine_io.h"
#include "machine/test_util.h"
#include "support/error.h"

namespace perfcast::machine {
namespace {

using testing::bundled;

TEST(Topology, CrossbarIsOneHopApart) {
  Topology t;
  EXPECT_EQ(t.hops(0, 0), 0);
  EXPECT_EQ(t.hops(0, 3), 1);
  EXPECT_EQ(t.diameter(4), 1);
  EXPECT_EQ(t.diameter(1), 0);
}

TEST(Topology, FatTreeClimbsToTheCommonSwitch) {
  Topology t{TopologyKind::FatTree, {}, 4, 3};  // 64 leaves
  EXPECT_EQ(t.hops(0, 3), 2);    // same leaf switch
  EXPECT_EQ(t.hops(0, 4), 4);    // level-2 switch over nodes 0..15
  EXPECT_EQ(t.hops(15, 16), 6);  // only the top joins them
  EXPECT_EQ(t.hops(5, 5), 0);
  EXPECT_EQ(t.diameter(64), 6);
  EXPECT_EQ(t.diameter(16), 4);
  EXPECT_EQ(fat_tree_levels_needed(4, 64), 3);
  EXPECT_EQ(fat_tree_levels_needed(4, 65), 4);
  EXPECT_EQ(fat_tree_levels_needed(8, 8), 1);
}

TEST(Topology, TorusGoesTheShortWayRound) {
  Topology t{TopologyKind::Torus3D, {16, 16, 16}, 0, 0};
  auto node = [](int x, int y, int z) { return x + 16 * y + 256 * z; };
  EXPECT_EQ(torus_coordinates(t.torus, node(3, 5, 7)), (std::array<int, 3>{3, 5, 7}));
  EXPECT_EQ(t.hops(0, node(15, 15, 15)), 3);  // one step back round each dimension
  EXPECT_EQ(t.hops(0, node(8, 8, 8)), 24);    // halfway round each: the farthest
  EXPECT_EQ(t.hops(0, node(1, 0, 0)), 1);
  EXPECT_EQ(t.hops(node(2, 14, 9), node(13, 1, 9)), 5 + 3);
  EXPECT_EQ(t.diameter(4096), 24);
  Topology odd{TopologyKind::Torus3D, {5, 3, 1}, 0, 0};
  EXPECT_EQ(odd.hops(0, 4), 1);
  EXPECT_EQ(odd.diameter(15), 2 + 1);
}

TEST(MachineNetwork, LatencyGrowsWithHops) {
  Machine p = bundled("petascale");
  EXPECT_DOUBLE_EQ(p.node_latency_s(0, 1), 1e-6);
  EXPECT_DOUBLE_EQ(p.node_latency_s(0, 4095), 1e-6 + 2 * 100e-9);
  EXPECT_DOUBLE_EQ(p.node_latency_s(7, 7), 0.5e-6);
  EXPECT_EQ(p.diameter_hops(), 24);
  // Ranks 0..7 share node 0 under block mapping.
  EXPECT_DOUBLE_EQ(p.latency_s(0, 7, 4096 * 8), 0.5e-6);
  EXPECT_DOUBLE_EQ(p.bandwidth_Bps(0, 7, 4096 * 8), 32e9);
  EXPECT_DOUBLE_EQ(p.latency_s(0, 8, 4096 * 8), 1e-6);
  EXPECT_DOUBLE_EQ(p.bandwidth_Bps(0, 8, 4096 * 8), 10e9);

  Machine g = bundled("generic-cluster");  // fat tree of arity 8: neighbours are 2 hops apart
  EXPECT_DOUBLE_EQ(g.node_latency_s(0, 7), 1.5e-6);
  EXPECT_DOUBLE_EQ(g.node_latency_s(0, 8), 1.5e-6 + 2 * 0.1e-6);
  EXPECT_EQ(g.diameter_hops(), 4);
}

TEST(MachineNoise, TheSlowestOfIndependentRanksIsExpectedSlowerThanOne) {
  // Half the quanta run at full speed, half at half speed (a co-tenant on the
  // core half the time): one rank's mean is 1.5; the slowest of R is 2 unless
  // all R are fast, 1 - 0.5^R of the time.
  Noise half{20e-6, {1.0, 1.0, 2.0, 2.0}};
  EXPECT_DOUBLE_EQ(half.mean(), 1.5);
  EXPECT_DOUBLE_EQ(expected_slowest_stretch({&half}), 1.5);
  EXPECT_DOUBLE_EQ(expected_slowest_stretch({&half, &half}), 1.75);
  EXPECT_DOUBLE_EQ(expected_slowest_stretch({&half, &half, &half}), 1.875);
  // Ranks count by their quantiles, not by object (predict builds each rank its own).
  Noise same_as_half = half;
  EXPECT_DOUBLE_EQ(expected_slowest_stretch({&half, &same_as_half}), 1.75);
  // An unmeasured node is never slowed: with it, the measured rank decides.
  Noise none;
  EXPECT_DOUBLE_EQ(none.mean(), 1);
  EXPECT_DOUBLE_EQ(expected_slowest_stretch({&none}), 1);
  EXPECT_DOUBLE_EQ(expected_slowest_stretch({&half, &none}), 1.5);
  EXPECT_DOUBLE_EQ(expected_slowest_stretch({}), 1);
  // Two different noises: P(max <= 1.2) = 0.5 * 1 (the other is always 1.2).
  Noise steady{20e-6, {1.2}};
  EXPECT_DOUBLE_EQ(expected_slowest_stretch({&half, &steady}), 0.5 * 1.2 + 0.5 * 2.0);
}

// A span of k quanta takes the mean of k independent quanta's stretches: the
// same mean, the spread over sqrt(k), so the slowest of several ranks' spans
// is expected nearer the mean than the slowest of their single quanta.
TEST(MachineNoise, ASpanOfManyQuantaSpreadsLessThanOneQuantum) {
  Noise half{20e-6, {1.0, 1.0, 2.0, 2.0}, {1.0, 1.0, 1.0, 1.4}};
  Noise four = noise_over_span(half, 80e-6);  // 4 quanta: spread halved
  EXPECT_EQ(four.stretch, (std::vector<double>{1.25, 1.25, 1.75, 1.75}));
  ASSERT_EQ(four.divider_stretch.size(), 4u);
  for (size_t q = 0; q < 3; ++q) EXPECT_NEAR(four.divider_stretch[q], 1.05, 1e-12);
  EXPECT_NEAR(four.divider_stretch[3], 1.25, 1e-12);
  EXPECT_DOUBLE_EQ(four.mean(), half.mean());
  EXPECT_DOUBLE_EQ(four.divider_mean(), half.divider_mean());
  // Two ranks: slow unless both are fast (1 - 0.5^2), now at 1.75, not 2.
  EXPECT_DOUBLE_EQ(expected_slowest_stretch({&four, &four}), 0.25 * 1.25 + 0.75 * 1.75);
  EXPECT_LT(expected_slowest_stretch({&four, &four}), expected_slowest_stretch({&half, &half}));
  // Longer spans draw nearer the mean, and the order of the quantiles holds.
  Noise long_span = noise_over_span(half, 2e-3);
  EXPECT_NEAR(long_span.stretch.back(), 1.5 + 0.5 / 10, 1e-12);
  EXPECT_TRUE(std::is_sorted(long_span.stretch.begin(), long_span.stretch.end()));
  // A span of one quantum or less is one quantum; an unmeasured node stays so.
  EXPECT_EQ(noise_over_span(half, 20e-6), half);
  EXPECT_EQ(noise_over_span(half, 1e-6), half);
  EXPECT_TRUE(noise_over_span(Noise{}, 1.0).empty());
}

// A core whose state lasts a spell of 1 ms: a span holds span / spell
// independent samples, not span / quantum, so it narrows less.
TEST(MachineNoise, ASpanNarrowsByTheSpellsItHoldsWhenStatesPersist) {
  Noise spelled{20e-6, {1.0, 1.0, 2.0, 2.0}, {1.0, 1.0, 1.0, 1.4}};
  spelled.spell_s = 1e-3;
  // 4 ms: 4 spells, spread halved (200 independent quanta would narrow it to 1/sqrt(200)).
  Noise four = noise_over_span(spelled, 4e-3);
  EXPECT_EQ(four.stretch, (std::vector<double>{1.25, 1.25, 1.75, 1.75}));
  EXPECT_NEAR(four.divider_stretch[3], 1.25, 1e-12);
  EXPECT_DOUBLE_EQ(noise_narrowing(spelled, 4e-3), 0.5);
  Noise independent = spelled;
  independent.spell_s = 0;
  EXPECT_NEAR(noise_over_span(independent, 4e-3).stretch.back(), 1.5 + 0.5 / std::sqrt(200.0), 1e-12);
  EXPECT_GT(four.stretch.back(), noise_over_span(independent, 4e-3).stretch.back());
  // A span within one spell keeps one quantum's spread, however many quanta it runs.
  EXPECT_EQ(noise_over_span(spelled, 1e-3), spelled);
  EXPECT_EQ(noise_over_span(spelled, 0.5e-3), spelled);
  EXPECT_DOUBLE_EQ(noise_narrowing(spelled, 0.5e-3), 1);
  // A spell shorter than the quantum says nothing more: the quanta are the samples.
  Noise brief = independent;
  brief.spell_s = 5e-6;
  EXPECT_EQ(noise_over_span(brief, 80e-6).stretch, noise_over_span(independent, 80e-6).stretch);
  EXPECT_EQ(noise_over_span(brief, 80e-6).stretch, (std::vector<double>{1.25, 1.25, 1.75, 1.75}));
}

// Work that is partly the divider's takes the longer of its port work at the
// ports' noise and the whole at the divider's, quantile by quantile.
TEST(MachineNoise, WorkBoundByTheDividerTakesTheLongerOfItsTwoStretches) {
  Noise n{20e-6, {1.0, 1.0, 2.0, 3.0}, {1.0, 1.0, 1.1, 1.2}};
  EXPECT_EQ(n.stretch_of(0), n.stretch) << "no divides: the ports' noise";
  // 60 % the divider's: the ports' 40 % at 2x and 3x stays under the divider's.
  auto mostly = n.stretch_of(0.6);
  ASSERT_EQ(mostly.size(), 4u);
  EXPECT_DOUBLE_EQ(mostly[2], 1.1);
  EXPECT_DOUBLE_EQ(mostly[3], 1.2);
  // 20 %: the ports' 80 % decides when the co-tenant is there.
  auto little = n.stretch_of(0.2);
  EXPECT_DOUBLE_EQ(little[2], 1.6);
  EXPECT_DOUBLE_EQ(little[3], 2.4);
  EXPECT_DOUBLE_EQ(little[0], 1.0) << "the divider's undisturbed 1, not 0.8";
  // Without a measured divider noise there is nothing to tell them apart by.
  Noise ports_only{20e-6, {1.0, 2.0}, {}};
  EXPECT_EQ(ports_only.stretch_of(0.9), ports_only.stretch);
}

// Accumulating averages the quantile functions, weighted by the probes each holds.
TEST(MachineNoise, AccumulatingAveragesTheQuantilesByTheirProbes) {
  Noise history{20e-6, {1.0, 2.0}, {1.0, 1.2}, 3};
  Noise probe{40e-6, {1.0, 4.0}, {1.0, 1.0}};
  Noise pooled = accumulate_noise(history, probe);
  EXPECT_EQ(pooled.probes, 4);
  EXPECT_DOUBLE_EQ(pooled.stretch[1], (3 * 2.0 + 4.0) / 4);
  EXPECT_DOUBLE_EQ(pooled.divider_stretch[1], (3 * 1.2 + 1.0) / 4);
  EXPECT_DOUBLE_EQ(pooled.quantum_s, 25e-6);
  EXPECT_EQ(accumulate_noise(Noise{}, probe), probe) << "nothing to average with";
  EXPECT_THROW(accumulate_noise(history, Noise{20e-6, {1.0, 1.5, 2.0}, {1.0, 1.0, 1.0}}), UserError);
  EXPECT_THROW(accumulate_noise(history, Noise{20e-6, {1.0, 2.0}, {}}), UserError) << "divider on one side only";
  // Spells average as the quanta do; one unknown (0) leaves the known one.
  EXPECT_EQ(pooled.spell_s, 0) << "neither measured";
  Noise spelled_history = history, spelled_probe = probe;
  spelled_history.spell_s = 0.1;
  spelled_probe.spell_s = 0.5;
  EXPECT_DOUBLE_EQ(accumulate_noise(spelled_history, spelled_probe).spell_s, (3 * 0.1 + 0.5) / 4);
  EXPECT_DOUBLE_EQ(accumulate_noise(history, spelled_probe).spell_s, 0.5);
  EXPECT_DOUBLE_EQ(accumulate_noise(spelled_history, probe).spell_s, 0.1);
}

TEST(MachineMapping, BlockFillsEachNodeInTurn) {
  Machine m = bundled("polus");  // 4 nodes x 20 cores
  EXPECT_EQ(m.node_of_rank(0, 80), 0);
  EXPECT_EQ(m.node_of_rank(19, 80), 0);
  EXPECT_EQ(m.node_of_rank(20, 80), 1);
  EXPECT_EQ(m.node_of_rank(79, 80), 3);
  EXPECT_EQ(m.node_of_rank(21, 22), 1);  // a small job fills node 0 first
  // 160 ranks on 80 cores: 40 per node.
  EXPECT_EQ(m.node_of_rank(39, 160), 0);
  EXPECT_EQ(m.node_of_rank(40, 160), 1);
  EXPECT_EQ(m.node_of_rank(159, 160), 3);
  EXPECT_THROW(m.node_of_rank(80, 80), UserError);
  EXPECT_THROW(m.node_of_rank(-1, 80), UserError);

  Machine two = testing::minimal({"mapping.ranks_per_node=2"});
  EXPECT_EQ(two.node_of_rank(1, 8), 0);
  EXPECT_EQ(two.node_of_rank(2, 8), 1);
  EXPECT_EQ(two.node_of_rank(7, 8), 3);
  // 12 ranks on 8 slots: the slots double, 4 ranks per node.
  EXPECT_EQ(two.node_of_rank(7, 12), 1);
  EXPECT_EQ(two.node_of_rank(8, 12), 2);
}

TEST(MachineMapping, BlockOnHeterogeneousGroups) {
  Machine m = bundled("hetero-example");  // 2 x 32 cores, then 8 x 16
  EXPECT_EQ(m.node_of_rank(31, 192), 0);
  EXPECT_EQ(m.node_of_rank(32, 192), 1);
  EXPECT_EQ(m.node_of_rank(64, 192), 2);
  EXPECT_EQ(m.node_of_rank(80, 192), 3);
  EXPECT_EQ(m.node_of_rank(191, 192), 9);
}

TEST(MachineMapping, RoundRobinAndFile) {
  Machine rr = testing::minimal({"mapping.policy=round_robin"});
  EXPECT_EQ(rr.node_of_rank(0, 10), 0);
  EXPECT_EQ(rr.node_of_rank(5, 10), 1);
  EXPECT_EQ(rr.node_of_rank(7, 10), 3);

  Machine file = testing::minimal({"mapping.policy=file", "mapping.file=reverse.map"});
  EXPECT_EQ(file.node_of_rank(0, 4), 3);
  EXPECT_EQ(file.node_of_rank(3, 4), 0);
  EXPECT_DOUBLE_EQ(file.latency_s(1, 2, 4), 60e-6);
  try {
    file.node_of_rank(0, 5);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("places 4 ranks but the job has 5"), std::string::npos);
  }
}

TEST(MachineMemory, WorkingSetFindsItsLevel) {
  Machine m = bundled("generic-cluster");  // 64 cores; L3 512 MiB shared
  const NodeGroup& g = m.groups[0];
  EXPECT_EQ(g.memory_level_for(16 * 1024, 64).level->name, "L1");
  EXPECT_EQ(g.memory_level_for(32 * 1024, 64).level->name, "L1");  // fits exactly
  EXPECT_EQ(g.memory_level_for(300 * 1024, 64).level->name, "L2");
  // All 64 cores busy: 8 MiB of L3 each.
  auto busy = g.memory_level_for(4 << 20, 64);
  EXPECT_EQ(busy.level->name, "L3");
  EXPECT_DOUBLE_EQ(*busy.capacity_per_core_bytes, 8 << 20);
  EXPECT_DOUBLE_EQ(busy.bandwidth_per_core_Bps, 2e12 / 64);
  EXPECT_EQ(g.memory_level_for(16 << 20, 64).level->name, "DRAM");
  // Eight cores busy: 64 MiB each, and each gets its full single-core bandwidth.
  auto few = g.memory_level_for(16 << 20, 8);
  EXPECT_EQ(few.level->name, "L3");
  EXPECT_DOUBLE_EQ(few.bandwidth_per_core_Bps, 50e9);
  auto dram = g.memory_level_for(1e12, 64);
  EXPECT_EQ(dram.level->name, "DRAM");
  EXPECT_FALSE(dram.capacity_per_core_bytes);
  EXPECT_DOUBLE_EQ(dram.bandwidth_per_core_Bps, 350e9 / 64);
  EXPECT_DOUBLE_EQ(g.memory_level_for(1e12, 1).bandwidth_per_core_Bps, 22e9);
  EXPECT_DOUBLE_EQ(g.memory_level_for(1e12, 1000).bandwidth_per_core_Bps, 350e9 / 64);  // clamped to the cores
}

TEST(MachineMemory, PrivateLevelsDoNotShrink) {
  Machine m = bundled("polus");
  const NodeGroup& g = m.groups[0];
  EXPECT_EQ(g.memory_level_for(64 * 1024, 20).level->name, "L1");
  EXPECT_DOUBLE_EQ(g.memory_level_for(1 << 20, 20).bandwidth_per_core_Bps, 9e9);  // no node limit given
  EXPECT_DOUBLE_EQ(g.memory_bandwidth_per_node_Bps(), 20 * 9e9);
  EXPECT_DOUBLE_EQ(g.balance_bytes_per_flop(), 20 * 9e9 / 106e9);
}

TEST(MachineMemory, LastSizedLevelTakesWhatDoesNotFit) {
  Machine m = testing::minimal({"memory.DRAM.size=\"1 GiB\""});
  EXPECT_EQ(m.groups[0].memory_level_for(1e12, 1).level->name, "DRAM");
}

TEST(MachineCollectives, InterpolatesOnTheGrid) {
  Machine m = bundled("hetero-example");
  using Op = CollectiveOp;
  EXPECT_FALSE(m.collective_time_s(Op::Bcast, 4, 8));
  // At grid points: the table's values.
  EXPECT_DOUBLE_EQ(*m.collective_time_s(Op::Allreduce, 2, 8), 1.1e-6);
  EXPECT_DOUBLE_EQ(*m.collective_time_s(Op::Allreduce, 4, 1024), 3.9e-6);
  EXPECT_DOUBLE_EQ(*m.collective_time_s(Op::Allreduce, 8, 1048576), 9.2e-4);
  // Between bytes: linear.
  EXPECT_NEAR(*m.collective_time_s(Op::Allreduce, 2, 516), (1.1e-6 + 2.0e-6) / 2, 1e-15);
  // Between process counts: linear in log2(procs); 3 is log2(3) - 1 of the way from 2 to 4.
  double t = std::log2(3.0) - 1;
  EXPECT_NEAR(*m.collective_time_s(Op::Allreduce, 3, 8), 1.1e-6 + t * (2.2e-6 - 1.1e-6), 1e-15);
  // Both at once: 4..8 procs (t = log2(6) - 2), 8..1024 bytes (halfway).
  double tp = std::log2(6.0) - 2;
  double low = (2.2e-6 + 3.9e-6) / 2, high = (3.3e-6 + 6.1e-6) / 2;
  EXPECT_NEAR(*m.collective_time_s(Op::Allreduce, 6, 516), low + tp * (high - low), 1e-15);
}

TEST(MachineCollectives, ExtrapolatesFromTheLastTwoPoints) {
  Machine m = bundled("hetero-example");
  using Op = CollectiveOp;
  // 16 procs is one log2 step past 8: 3.3 + (3.3 - 2.2).
  EXPECT_NEAR(*m.collective_time_s(Op::Allreduce, 16, 8), 4.4e-6, 1e-15);
  double slope = (3.1e-4 - 2.0e-6) / (1048576 - 1024);
  EXPECT_NEAR(*m.collective_time_s(Op::Allreduce, 2, 2097152), 3.1e-4 + slope * 1048576, 1e-12);
  // Below the grid: from the first two points.
  EXPECT_NEAR(*m.collective_time_s(Op::Allreduce, 2, 0), 1.1e-6 - 8 * (0.9e-6 / 1016), 1e-15);

  CollectiveTable falling{Op::Bcast, {2, 4}, {0, 100}, {{1e-6, 1e-6}, {0.5e-6, 0.5e-6}}};
  EXPECT_DOUBLE_EQ(falling.time_at(1024, 50), 0.0);  // clamped at zero
  CollectiveTable single{Op::Barrier, {8}, {0}, {{2e-6}}};
  EXPECT_DOUBLE_EQ(single.time_at(64, 4096), 2e-6);
}

TEST(MachineDerived, Figures) {
  Machine m = bundled("generic-cluster");
  EXPECT_EQ(m.total_cores(), 1024);
  EXPECT_DOUBLE_EQ(m.groups[0].peak_flops_per_node(), 64 * 40e9);
  EXPECT_DOUBLE_EQ(m.peak_flops(), 16 * 64 * 40e9);
  EXPECT_DOUBLE_EQ(m.groups[0].balance_bytes_per_flop(), 350e9 / (64 * 40e9));
  EXPECT_DOUBLE_EQ(m.groups[0].flops_per_core_for(Precision::Double, false), 11.2e9);
  EXPECT_DOUBLE_EQ(m.groups[0].flops_per_core_for(Precision::Single, true), 80e9);
  EXPECT_DOUBLE_EQ(m.groups[0].math.flops("pow", Precision::Double), 50);
  EXPECT_DOUBLE_EQ(m.groups[0].math.flops("atan", Precision::Double), 20);
}

}  // namespace
}  // namespace perfcast::machine
