// What the engine pays for a compute burst. Messages, exchanges and
// collectives are priced by machine::Pricing (machine/pricing.h), the rules
// `perfcast predict` prices with too.
#pragma once

#include <cstdint>
#include <iterator>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "events/event.h"
#include "machine/pricing.h"

namespace perfcast::sim {

// Work a source gives by its own counts, priced by the source's rules: a
// compute event with no seconds (< 0) whose `live` points at the work (a
// program model's counts: a live skeleton's BSIM_Add_model_work, a model's
// bursts in `predict --simulate`). The engine asks
// for its seconds when the burst starts, with the node's load of that moment,
// as it prices flops and bytes; so node sharing and a machine's --set
// overrides apply to it as to any priced burst.
class WorkPricer {
 public:
  virtual ~WorkPricer() = default;
  // The seconds of `work` on `world_rank`, whose node has `computing` of its
  // ranks at work (this one included) and pricing.ranks_on_node placed.
  // `burst` numbers the rank's compute bursts in its program order (0, 1, ...):
  // a burst priced again as others join its start keeps its number, so a
  // pricer that draws per burst (modelsim's noise) draws once for it, and the
  // same job gives the same draws however the engine interleaves the ranks.
  virtual double work_s(const void* work, int world_rank, std::uint64_t burst, const machine::Pricing& pricing,
                        int computing) const = 0;
};

// A compute burst: its `seconds` when given, else its work's price (WorkPricer), else the roofline of its counts
// on the rank's node (Pricing::burst_s) with k of the node's ranks computing.
//
// k, on a node whose group measured what its cores share (bandwidth_by_cores,
// busy_slowdown): the node's ranks inside a compute burst when this one
// starts, itself included, and every burst that starts at that same moment
// (the engine meets those one after another, so the ones it met first are
// priced again as each joins: bulk-synchronous ranks leaving a collective
// together all see the same k). The approximation: a burst keeps the k of
// its start, though ranks start or stop computing while it runs (one that
// starts later sees this one; this one does not see it). Every burst holds
// its core, a priced one or one whose seconds a trace or skeleton gives; only
// priced ones change with k. On other nodes k is every rank the job places
// there, as predict assumes (and as before the sharing keys existed). On
// both, k is capped at the node's cores and a node holding more ranks than
// cores has each priced burst take ranks / cores as long (machine::NodeLoad:
// the ranks time-share the cores whether they compute or poll in MPI), so
// ranks sharing a core never compute faster than the core.
class ComputeModel {
 public:
  ComputeModel(const machine::Pricing& pricing, const WorkPricer* work) : pricing_(pricing), work_(work) {}

  // A burst that ran longer or shorter than first priced: its rank's clock
  // and calc move by `delta_s`.
  struct Repriced {
    int rank;
    double delta_s;
  };

  // The burst's duration when rank `world_rank` starts it at `start_s`;
  // records it as running until then. repriced() then lists the bursts that
  // started at the same moment on the node, priced again with this one.
  double start(const events::Event& burst, int world_rank, double start_s) {
    repriced_.clear();
    const std::uint64_t number = bursts_of_rank_[world_rank]++;
    const int node = pricing_.node(world_rank);
    if (!pricing_.machine().group_of_node(node).sharing_measured()) {
      if (burst.seconds >= 0) return burst.seconds;
      if (burst.live) return work_->work_s(burst.live, world_rank, number, pricing_, pricing_.ranks_on_node(node));
      return pricing_.burst_s(world_rank, burst.flops, burst.bytes_moved);
    }
    Node& n = nodes_[node];
    while (!n.running_ends.empty() && *n.running_ends.begin() <= start_s) n.running_ends.erase(n.running_ends.begin());
    if (start_s != n.cohort_start_s) {
      n.cohort.clear();
      n.cohort_start_s = start_s;
    }
    const int computing = static_cast<int>(n.running_ends.size()) + 1;
    auto price = [&](const Started& s) {
      if (s.seconds >= 0) return s.seconds;
      if (s.work) return work_->work_s(s.work, s.rank, s.number, pricing_, computing);
      return pricing_.burst_s(s.rank, s.flops, s.bytes, computing);
    };
    for (Started& s : n.cohort) {
      const double seconds = price(s);
      if (seconds == s.priced_s) continue;
      if (auto it = n.running_ends.find(start_s + s.priced_s); it != n.running_ends.end()) n.running_ends.erase(it);
      n.running_ends.insert(start_s + seconds);
      repriced_.push_back({s.rank, seconds - s.priced_s});
      s.priced_s = seconds;
    }
    Started self{world_rank, number, burst.seconds, burst.flops, burst.bytes_moved, burst.live, 0};
    self.priced_s = price(self);
    if (self.priced_s > 0) {
      n.running_ends.insert(start_s + self.priced_s);
      n.cohort.push_back(self);
    }
    return self.priced_s;
  }
  const std::vector<Repriced>& repriced() const { return repriced_; }

 private:
  struct Started {
    int rank;
    std::uint64_t number;          // of the rank's bursts
    double seconds, flops, bytes;  // the event's
    const void* work;              // the event's live: work for work_ to price
    double priced_s;
  };
  struct Node {
    std::multiset<double> running_ends;  // the bursts running there: when each ends
    double cohort_start_s = -1;
    std::vector<Started> cohort;  // those that started at cohort_start_s
  };
  const machine::Pricing& pricing_;
  const WorkPricer* work_;               // null: no burst carries work (the engine refuses one that does)
  std::unordered_map<int, Node> nodes_;  // nodes in use
  std::unordered_map<int, std::uint64_t> bursts_of_rank_;  // bursts each rank has started
  std::vector<Repriced> repriced_;
};

}  // namespace perfcast::sim
