// The one pricing of messages, exchanges, collectives and bursts, on small
// machines whose answers are worked by hand.
#include <gtest/gtest.h>

#include "machine/pricing.h"
#include "machine/test_util.h"

namespace perfcast::machine {
namespace {

TEST(PricingMessage, MeasuredOneWayTimesPriceMessagesWithinANode) {
  // Two nodes of 2 cores; within a node the measured curve, which a line
  // through its ends would miss (the jump at the eager threshold).
  Machine m =
      testing::minimal({"node.count=2", "node.cores=2", "network.latency=\"2 us\"", "network.bandwidth=\"1 GB/s\"",
                        "network.intra_node_bandwidth=\"10 GB/s\"", "network.eager_threshold=\"2 KiB\"",
                        "network.rendezvous_handshakes=1",
                        "network.intra_node_one_way={ bytes = [8, 2048, 4096], time_s = [4e-7, 6e-7, 3.2e-6] }"});
  EXPECT_DOUBLE_EQ(Pricing(m, 4).message_s(0, 1, 8), 4e-7);
  EXPECT_DOUBLE_EQ(Pricing(m, 4).message_s(0, 1, 1), 4e-7) << "below the first size: the first time";
  EXPECT_DOUBLE_EQ(Pricing(m, 4).message_s(0, 1, 3072), 1.9e-6) << "linear between measured sizes";
  EXPECT_DOUBLE_EQ(Pricing(m, 4).message_s(0, 1, 4096 + 10000), 3.2e-6 + 10000 / 10e9)
      << "beyond the last: the rest at the intra-node bandwidth";
  // Between nodes (ranks 0 and 2 under block mapping): latency + size /
  // bandwidth, and a rendezvous message waits one handshake more.
  EXPECT_DOUBLE_EQ(Pricing(m, 4).message_s(0, 2, 1000), 2e-6 + 1000 / 1e9);
  EXPECT_DOUBLE_EQ(Pricing(m, 4).message_s(0, 2, 4096), 2 * 2e-6 + 4096 / 1e9);
  // Without a table the same node is priced as a line too.
  Machine plain = testing::minimal({"node.count=2", "node.cores=2", "network.intra_node_latency=\"1 us\"",
                                    "network.intra_node_bandwidth=\"10 GB/s\""});
  EXPECT_DOUBLE_EQ(Pricing(plain, 4).message_s(0, 1, 1000), 1e-6 + 1000 / 10e9);
}

TEST(PricingMessage, AnExchangeStepIsMeasuredWithinANodeOnly) {
  Machine m = testing::minimal(
      {"node.count=2", "node.cores=2", "network.intra_node_exchange={ bytes = [8, 4096], time_s = [6e-7, 4.6e-6] }"});
  Pricing p(m, 4);
  EXPECT_DOUBLE_EQ(*p.exchange_s(0, 1, 8), 6e-7);
  EXPECT_DOUBLE_EQ(*p.exchange_s(0, 1, 2052), 2.6e-6) << "linear between measured sizes";
  EXPECT_FALSE(p.exchange_s(0, 2, 8)) << "between nodes a message stays one-way";
}

TEST(PricingCollective, CommunicatorCreationIsAnAllreduceOfTheContextId) {
  Machine m = testing::minimal({"node.count=1", "node.cores=8"});
  m.collectives.push_back({CollectiveOp::Allreduce, {2, 8}, {8, 1024}, {{1e-6, 3e-6}, {2e-6, 6e-6}}});
  Pricing p(m, 8);
  EXPECT_DOUBLE_EQ(*p.collective_s(mpi::Op::Allreduce, 2, 1024), 3e-6);
  // Split, dup and cart_create agree on an 8-byte context id, whatever the
  // bytes the call names.
  for (auto op : {mpi::Op::CommSplit, mpi::Op::CommDup, mpi::Op::CartCreate})
    EXPECT_DOUBLE_EQ(*p.collective_s(op, 8, 1024), 2e-6) << mpi::name(op);
  EXPECT_FALSE(p.collective_s(mpi::Op::Bcast, 8, 8)) << "no table for it";
  EXPECT_FALSE(p.collective_s(mpi::Op::Scan, 8, 8)) << "no table prices a scan";
  EXPECT_FALSE(p.collective_s(mpi::Op::CommFree, 8, 8));
  EXPECT_DOUBLE_EQ(*p.collective_s(mpi::Op::Allreduce, 1, 8), 0) << "a communicator of one moves nothing";
}

TEST(PricingBurst, TheLongerOfFlopsAndTrafficSharedOnTheNode) {
  // polus: Power8 nodes; the outermost level's bandwidth is shared by the
  // ranks a node holds.
  Machine m = testing::bundled("polus");
  const NodeGroup& g = m.groups[0];
  const MemoryLevel& dram = g.outermost_level();
  Pricing alone(m, 1), full(m, g.cores);
  double flops = 1e9, bytes = 1e9;
  EXPECT_DOUBLE_EQ(alone.burst_s(0, flops, 0), flops / g.flops_per_core);
  EXPECT_DOUBLE_EQ(alone.burst_s(0, 0, bytes), bytes / dram.bandwidth_per_core_Bps(1));
  EXPECT_DOUBLE_EQ(full.burst_s(0, 0, bytes), bytes / dram.bandwidth_per_core_Bps(g.cores));
  EXPECT_DOUBLE_EQ(full.burst_s(0, flops, bytes),
                   std::max(flops / g.flops_per_core, bytes / dram.bandwidth_per_core_Bps(g.cores)));
  EXPECT_DOUBLE_EQ(Pricing::flops_s(g, 2e9, 1e9), 2e9 / g.flops_per_core + 1e9 / g.flops_per_core_single);
}

}  // namespace
}  // namespace perfcast::machine
