// The analytic predictor: a program model's counts per rank priced on a machine
// model. The plain formula of Kleymenov & Popova (2021):
//   T_i = max(flops_i / peak, bytes_i / bandwidth) + messages_i * latency + sent_i / net_bandwidth
//   T   = max_i T_i
// with each rank priced with the figures of the node it runs on, math calls
// priced in flops per precision, memory bandwidth shared by the ranks on a node,
// and, where the model gives a loop's working set, the memory level chosen by it
// (the plain formula assumes one level for everything; its all-L1 and all-DRAM
// times are reported beside the prediction as the baselines to beat).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "machine/machine.h"
#include "model/costs.h"

namespace perfcast::model {

struct PredictOptions {
  // "auto": by working set where the model gives one, else the outermost level;
  // or the name of one level for everything (the paper's all-L1 / all-DRAM).
  std::string memory_level = "auto";
  bool simd = true;  // price flops at the SIMD rate (else scalar)
};

struct RankPrediction {
  RankCounts counts;
  int node = 0;
  int ranks_on_node = 1;
  double math_flops = 0;  // math calls priced in flops
  double flops = 0;       // double + single + math
  double compute_s = 0;
  double memory_s = 0;
  std::map<std::string, double> memory_s_if_all_in;  // level name -> time if every byte came from it
  double latency_s = 0;    // messages x latency (+ per-message overhead)
  double transfer_s = 0;   // bytes / network bandwidth
  double time_s = 0;
  bool memory_bound = false;
};

struct Prediction {
  int np = 0;
  std::vector<RankPrediction> ranks;
  double predicted_time_s = 0;
  int slowest_rank = 0;
  // The plain formula with every byte from one level: level name -> max over ranks.
  std::map<std::string, double> time_s_if_all_in;
  std::vector<std::string> level_names;  // of the slowest rank's node, inner to outer
};

Prediction predict(const ProgramModel& model, const SymbolicCosts& costs, const machine::Machine& machine, int np,
                   const std::map<std::string, expr::Value>& parameters, const PredictOptions& options = {});

}  // namespace perfcast::model
