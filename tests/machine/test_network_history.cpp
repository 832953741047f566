// Averaging within-node MPI measurements into a machine file's network
// (calibrate --network-only --accumulate). Expected values are worked by hand.
#include <gtest/gtest.h>

#include "machine/network_history.h"
#include "support/error.h"

namespace perfcast::machine {
namespace {

Network measured_network(double exchange_512_s, double bandwidth_Bps, int probes) {
  Network n;
  n.latency_s = 200e-9;
  n.bandwidth_Bps = bandwidth_Bps;
  n.intra_node_latency_s = 200e-9;
  n.intra_node_bandwidth_Bps = bandwidth_Bps;
  n.overhead_s = 10e-9;
  n.eager_threshold_bytes = 4096;
  n.intra_node_one_way = {{8, 512}, {200e-9, 300e-9}};
  n.intra_node_exchange = {{8, 512}, {250e-9, exchange_512_s}};
  n.probes = probes;
  return n;
}

TEST(NetworkHistory, AveragesTimesByTheirProbesAndBandwidthsAsTimePerByte) {
  Network history = measured_network(600e-9, 10e9, 3);
  history.topology.kind = TopologyKind::FatTree;  // not measured: stays
  Network probe = measured_network(1400e-9, 5e9, 1);
  probe.overhead_s = 30e-9;
  probe.eager_threshold_bytes = 8192;
  Network pooled = accumulate_network(history, probe, true);
  EXPECT_EQ(pooled.probes, 4);
  EXPECT_DOUBLE_EQ(pooled.intra_node_exchange.time_s[1], (3 * 600e-9 + 1400e-9) / 4);
  EXPECT_DOUBLE_EQ(pooled.intra_node_exchange.time_s[0], 250e-9);
  EXPECT_DOUBLE_EQ(pooled.overhead_s, (3 * 10e-9 + 30e-9) / 4);
  // 3 probes at 0.1 ns per byte and one at 0.2: 0.125 ns, 8 GB/s (not 8.75).
  EXPECT_DOUBLE_EQ(pooled.intra_node_bandwidth_Bps, 8e9);
  EXPECT_DOUBLE_EQ(pooled.bandwidth_Bps, 8e9) << "one node: its network is this node's";
  EXPECT_EQ(pooled.eager_threshold_bytes, 8192) << "a protocol switch is the measurement's, not an average";
  EXPECT_EQ(pooled.topology.kind, TopologyKind::FatTree);

  Network several_nodes = accumulate_network(history, probe, false);
  EXPECT_DOUBLE_EQ(several_nodes.bandwidth_Bps, 10e9) << "links between nodes were not measured";
  EXPECT_DOUBLE_EQ(several_nodes.intra_node_bandwidth_Bps, 8e9);
}

TEST(NetworkHistory, HandWrittenFiguresAreNoMeasurementToAverageWith) {
  Network by_hand;
  by_hand.latency_s = 1e-6;
  by_hand.bandwidth_Bps = 1e9;
  by_hand.hop_latency_s = 50e-9;
  Network probe = measured_network(600e-9, 10e9, 1);
  Network out = accumulate_network(by_hand, probe, true);
  EXPECT_EQ(out.probes, 1);
  EXPECT_EQ(out.intra_node_exchange, probe.intra_node_exchange);
  EXPECT_DOUBLE_EQ(out.latency_s, 200e-9);
  EXPECT_DOUBLE_EQ(out.hop_latency_s, 50e-9) << "not measured: the file's";
  // And what --network-only without --accumulate writes over a 5-probe history.
  Network history = measured_network(900e-9, 10e9, 5);
  EXPECT_EQ(with_measured_network(history, probe, true).probes, 1);
  EXPECT_EQ(with_measured_network(history, probe, true).intra_node_exchange, probe.intra_node_exchange);
}

TEST(NetworkHistory, CurvesOfOtherSizesDoNotPair) {
  Network history = measured_network(600e-9, 10e9, 2);
  Network probe = measured_network(600e-9, 10e9, 1);
  probe.intra_node_exchange = {{8, 512, 4096}, {250e-9, 600e-9, 2e-6}};
  try {
    accumulate_network(history, probe, true);
    FAIL() << "accumulated curves of 2 and 3 sizes";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("network.intra_node_exchange"), std::string::npos) << e.what();
  }
  probe.intra_node_exchange = {};
  EXPECT_THROW(accumulate_network(history, probe, true), UserError) << "a curve on one side only";
}

TEST(NetworkHistory, CollectiveTablesAverageWhereTheirGridsPair) {
  CollectiveTable barrier{CollectiveOp::Barrier, {2}, {0}, {{1e-6}}};
  CollectiveTable allreduce{CollectiveOp::Allreduce, {2}, {8, 64}, {{1e-6, 2e-6}}};
  CollectiveTable bcast_before{CollectiveOp::Bcast, {2}, {8}, {{5e-6}}};
  CollectiveTable barrier_now{CollectiveOp::Barrier, {2}, {0}, {{3e-6}}};
  CollectiveTable allreduce_new_grid{CollectiveOp::Allreduce, {2}, {8}, {{4e-6}}};
  auto out = accumulate_collectives({barrier, allreduce, bcast_before}, 3, {barrier_now, allreduce_new_grid}, 1);
  ASSERT_EQ(out.size(), 2u) << "the measurement's tables, averaged where they pair";
  EXPECT_DOUBLE_EQ(out[0].time_s[0][0], (3 * 1e-6 + 3e-6) / 4);
  EXPECT_EQ(out[1], allreduce_new_grid) << "another grid: taken as measured";
}

}  // namespace
}  // namespace perfcast::machine
