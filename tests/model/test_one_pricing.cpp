// `perfcast predict` and the simulator price with one machine::Pricing: the
// same message, exchange, collective and compute burst cost the same through
// predict's refined prediction (model::predict) and through the simulator
// reading the model's event streams (`perfcast model events` then
// `perfcast simulate`: ModelJobSource with unpriced bursts, sim::simulate).
//
// Each model isolates one priced thing, so both sides reduce to its price:
//  message  — rank 0 sends, the last rank receives: predict charges the send
//             o + message; the receiver in the simulator ends at message + o.
//  exchange — two ranks swap a message (irecv, isend, waitall): predict prices
//             the send at the exchange step; in the simulator both messages
//             cross and each rank ends at step + o (o = 0 on these machines:
//             predict also charges the irecv and the waitall o).
//  collective, communicator creation — all ranks call it at time 0: predict
//             charges the table's time + o; the simulator ends every member
//             at the table's time.
//  burst    — one compute item per rank, no MPI: predict's plain formula
//             (the roofline) against the simulator's burst.
#include <gtest/gtest.h>

#include <string>

#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/model_events.h"
#include "model/predict.h"
#include "model_text.h"
#include "sim/engine.h"

namespace perfcast::model {
namespace {

machine::Machine bundled(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return machine::load_machine_file(std::string(PERFCAST_SOURCE_DIR) + "/machines/" + name + ".toml", overrides);
}

struct BothPaths {
  Prediction predicted;
  sim::SimResult simulated;
};

BothPaths price_both_ways(const ProgramModel& m, const machine::Machine& machine, int np) {
  BothPaths out;
  out.predicted = predict(m, symbolic_costs(m), machine, np, {});
  ModelJobSource job(m, np, {}, EventOptions{});  // bursts carry flops and bytes: the engine prices them
  out.simulated = sim::simulate(job, machine);
  return out;
}

ProgramModel one_message(double bytes) {
  std::string b = std::to_string(static_cast<long long>(bytes));
  return testing::model_from(R"({"main": {"body": [
      {"kind": "branch", "condition": "rank == 0",
       "then": [{"kind": "mpi", "op": "send", "peer": "size - 1", "bytes": )" +
                             b + R"(}]},
      {"kind": "branch", "condition": "rank == size - 1",
       "then": [{"kind": "mpi", "op": "recv", "peer": "0", "bytes": )" +
                             b + R"(}]}]}})");
}

TEST(OnePricing, AMessageCostsTheSameInPredictAndInTheSimulator) {
  // Between nodes (polus: 20 cores a node, rank 39 on the second), eager and
  // rendezvous; within a node on the measured one-way curve.
  const auto between = bundled("polus");
  const auto within = bundled("polus", {"network.intra_node_one_way={ bytes = [8, 65536, 1048576], "
                                        "time_s = [2e-6, 1.5e-5, 2e-4] }"});
  for (double bytes : {8.0, 4096.0, 1048576.0}) {
    for (auto [machine, np] : {std::pair{&between, 40}, std::pair{&within, 4}}) {
      auto both = price_both_ways(one_message(bytes), *machine, np);
      const auto& sender = both.predicted.ranks[0];
      const auto& receiver = both.simulated.ranks[static_cast<size_t>(np - 1)];
      EXPECT_GT(sender.refined_comm_s, 0);
      EXPECT_DOUBLE_EQ(sender.refined_comm_s, receiver.end_s) << bytes << " bytes on " << np << " ranks";
    }
  }
}

TEST(OnePricing, AnExchangeStepCostsTheSameInPredictAndInTheSimulator) {
  // Measured within a node, longer than the one-way time (both copies contend).
  const auto machine = bundled("polus", {"network.intra_node_exchange={ bytes = [8, 65536], "
                                         "time_s = [2e-4, 9e-4] }"});
  ASSERT_EQ(machine.network.overhead_s, 0);
  auto m = testing::model_from(R"({"main": {"body": [
      {"kind": "mpi", "op": "irecv", "peer": "1 - rank", "bytes": 4096},
      {"kind": "mpi", "op": "isend", "peer": "1 - rank", "bytes": 4096},
      {"kind": "mpi", "op": "waitall"}]}})");
  auto both = price_both_ways(m, machine, 2);
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(both.predicted.ranks[static_cast<size_t>(r)].exchange_messages, 1);
    EXPECT_DOUBLE_EQ(both.predicted.ranks[static_cast<size_t>(r)].refined_comm_s,
                     both.simulated.ranks[static_cast<size_t>(r)].end_s)
        << "rank " << r;
  }
  EXPECT_GT(both.simulated.ranks[0].end_s, 2e-4);
}

TEST(OnePricing, CollectivesAndCommunicatorCreationCostTheSameInPredictAndInTheSimulator) {
  // hetero-example has an allreduce table; communicator creation is priced on
  // it as an allreduce of the 8-byte context id by both.
  const auto machine = bundled("hetero-example");
  for (const char* op : {"allreduce", "comm_split", "comm_dup", "cart_create"}) {
    auto m = testing::model_from(std::string(R"({"main": {"body": [{"kind": "mpi", "op": ")") + op +
                                 R"(", "bytes": 1024}]}})");
    const int np = 6;
    auto both = price_both_ways(m, machine, np);
    const double table_s =
        *machine.collective_time_s(machine::CollectiveOp::Allreduce, np, std::string(op) == "allreduce" ? 1024 : 8);
    for (int r = 0; r < np; ++r) {
      const auto& p = both.predicted.ranks[static_cast<size_t>(r)];
      EXPECT_DOUBLE_EQ(p.refined_comm_s - p.overhead_s, table_s) << op << ", rank " << r;
      EXPECT_DOUBLE_EQ(both.simulated.ranks[static_cast<size_t>(r)].end_s, table_s) << op << ", rank " << r;
    }
  }
}

// A collective with no [[collective]] table on a job that never leaves one node:
// its messages never cross the network, so both price it at the node's own
// figures (Pricing::job_latency_s; the simulator's algorithm sends each message
// at transfer_s within the node). Two ranks: recursive doubling is one exchange,
// the plain formula's one message. The inter-node figures, however slow, move
// neither.
TEST(OnePricing, AOneNodeCollectiveWithoutATableTakesTheNodesOwnFiguresInBoth) {
  const auto machine = bundled("generic-cluster");
  const auto slow_network = bundled("generic-cluster", {"network.latency=\"1 ms\"", "network.bandwidth=\"1 MB/s\""});
  ASSERT_TRUE(machine.collectives.empty());
  const auto& n = machine.network;
  ASSERT_NE(n.intra_node_latency_s, n.latency_s);
  const double bytes = 1024;
  auto m = testing::model_from(R"({"main": {"body": [{"kind": "mpi", "op": "allreduce", "bytes": 1024}]}})");
  for (const auto* on : {&machine, &slow_network}) {
    auto both = price_both_ways(m, *on, 2);
    const double intra_s = n.intra_node_latency_s + bytes / n.intra_node_bandwidth_Bps;
    for (int r = 0; r < 2; ++r) {
      const auto& p = both.predicted.ranks[static_cast<size_t>(r)];
      EXPECT_DOUBLE_EQ(p.latency_s + p.transfer_s, intra_s) << "plain formula, rank " << r;
      EXPECT_DOUBLE_EQ(p.refined_comm_s, intra_s + n.overhead_s) << "refined, rank " << r;
      EXPECT_DOUBLE_EQ(both.simulated.ranks[static_cast<size_t>(r)].end_s, p.refined_comm_s) << "rank " << r;
    }
  }
  // Spread over two nodes, the same collective crosses the network: the inter-node figures.
  auto spread = bundled("generic-cluster", {"mapping.policy=\"round_robin\""});
  auto both = price_both_ways(m, spread, 2);
  EXPECT_DOUBLE_EQ(both.predicted.ranks[0].latency_s + both.predicted.ranks[0].transfer_s,
                   n.latency_s + bytes / n.bandwidth_Bps);
}

TEST(OnePricing, AComputeBurstCostsTheSameInPredictAndInTheSimulator) {
  // Flop-bound and memory-bound bursts, with 1 and 20 ranks sharing a
  // polus node's bandwidth, and on both groups of hetero-example.
  for (const char* name : {"polus", "hetero-example"}) {
    const auto machine = bundled(name);
    for (const char* item : {R"({"kind": "compute", "flops_double": 1e9, "load_bytes": 1e6})",
                             R"({"kind": "compute", "flops_double": 1e6, "load_bytes": 4e9, "store_bytes": 1e9})"}) {
      auto m = testing::model_from(std::string(R"({"main": {"body": [)") + item + "]}}");
      for (int np : {1, 20, 80}) {
        auto both = price_both_ways(m, machine, np);
        for (int r = 0; r < np; ++r) {
          const auto& p = both.predicted.ranks[static_cast<size_t>(r)];
          EXPECT_GT(p.time_s, 0);
          EXPECT_DOUBLE_EQ(p.time_s, both.simulated.ranks[static_cast<size_t>(r)].end_s)
              << name << ", " << np << " ranks, rank " << r;
        }
      }
    }
  }
}

TEST(OnePricing, WithSharingMeasuredTheSameRanksComputingCostTheSame) {
  // polus with what its cores share: each core's DRAM bandwidth by how many
  // stream at once, and the busy clock. Predict takes k = the ranks on the
  // node; the simulator the ranks computing when a burst starts, which here
  // (every rank starts its one burst at time 0) is the same k.
  const auto machine = bundled("polus", {"node.busy_slowdown=1.1", "memory.DRAM.bandwidth_by_cores={ cores = [1, 4, 20], "
                                         "per_core = [\"9 GB/s\", \"5 GB/s\", \"2 GB/s\"] }"});
  for (const char* item : {R"({"kind": "compute", "flops_double": 1e9, "load_bytes": 1e6})",
                           R"({"kind": "compute", "flops_double": 1e6, "load_bytes": 4e9, "store_bytes": 1e9})"}) {
    auto m = testing::model_from(std::string(R"({"main": {"body": [)") + item + "]}}");
    double previous = 0;
    for (int np : {1, 4, 10, 20, 80}) {
      auto both = price_both_ways(m, machine, np);
      for (int r = 0; r < np; ++r) {
        const auto& p = both.predicted.ranks[static_cast<size_t>(r)];
        EXPECT_DOUBLE_EQ(p.time_s, both.simulated.ranks[static_cast<size_t>(r)].end_s)
            << item << ", " << np << " ranks, rank " << r;
      }
      if (np <= 20) {  // 80 ranks: 20 on each of 4 nodes, as 20 on one
        EXPECT_GT(both.predicted.ranks[0].time_s, previous) << np << " ranks on a node cost more than fewer";
        previous = both.predicted.ranks[0].time_s;
      }
    }
  }
}

TEST(OnePricing, OversubscribedRanksCostTheSameInPredictAndInTheSimulator) {
  // More ranks than cores: 160 on polus (40 a node, two a core), 100 (40, 40
  // and 20 on three nodes: the first two time-share, the third does not),
  // with and without what the cores share, and on hetero-example's two
  // groups of unequal cores. Each rank's burst costs the same both ways, and
  // a compute-bound one takes ranks / cores of its time on a core of its own.
  const std::vector<std::string> sharing = {"node.busy_slowdown=1.1", "memory.DRAM.bandwidth_by_cores={ cores = [1, 4, 20], "
                                            "per_core = [\"9 GB/s\", \"5 GB/s\", \"2 GB/s\"] }"};
  const std::vector<std::pair<machine::Machine, std::vector<int>>> cases = {
      {bundled("polus"), {100, 160}}, {bundled("polus", sharing), {100, 160}}, {bundled("hetero-example"), {0}}};
  for (const auto& [machine, sizes] : cases) {
    std::vector<int> nps = sizes;
    if (nps == std::vector<int>{0}) nps = {2 * machine.total_cores(), 3 * machine.total_cores() / 2};
    for (const char* item : {R"({"kind": "compute", "flops_double": 1e9, "load_bytes": 1e6})",
                             R"({"kind": "compute", "flops_double": 1e6, "load_bytes": 4e9, "store_bytes": 1e9})"}) {
      auto m = testing::model_from(std::string(R"({"main": {"body": [)") + item + "]}}");
      for (int np : nps) {
        auto both = price_both_ways(m, machine, np);
        EXPECT_TRUE(both.predicted.placement.oversubscribed()) << machine.name << ", " << np << " ranks";
        for (int r = 0; r < np; ++r) {
          const auto& p = both.predicted.ranks[static_cast<size_t>(r)];
          EXPECT_DOUBLE_EQ(p.time_s, both.simulated.ranks[static_cast<size_t>(r)].end_s)
              << machine.name << ", " << item << ", " << np << " ranks, rank " << r;
        }
      }
    }
  }
  // The compute-bound burst by hand on polus: 1e9 flops at 5.3 Gflop/s, two ranks a core at 160.
  auto m = testing::model_from(R"({"main": {"body": [{"kind": "compute", "flops_double": 1e9}]}})");
  auto both = price_both_ways(m, bundled("polus"), 160);
  EXPECT_DOUBLE_EQ(both.simulated.predicted_time_s, 2 * 1e9 / 5.3e9);
  EXPECT_DOUBLE_EQ(both.predicted.predicted_time_s, 2 * 1e9 / 5.3e9);
}

}  // namespace
}  // namespace perfcast::model
