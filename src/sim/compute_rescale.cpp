#include "sim/compute_rescale.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "support/error.h"

namespace perfcast::sim {

RescaleBy parse_rescale_by(const std::string& text, const std::string& option) {
  if (text == "auto") return RescaleBy::Auto;
  if (text == "clock") return RescaleBy::Clock;
  if (text == "flops") return RescaleBy::Flops;
  if (text == "memory") return RescaleBy::Memory;
  if (text == "none") return RescaleBy::None;
  throw UserError(fmt::format("'{}' is not a figure to rescale compute by", text), {"", std::nullopt, option},
                  "one of auto, clock, flops, memory, none");
}

const char* rescale_by_name(RescaleBy by) {
  switch (by) {
    case RescaleBy::Auto: return "auto";
    case RescaleBy::None: return "none";
    case RescaleBy::Clock: return "clock";
    case RescaleBy::Flops: return "flops";
    case RescaleBy::Memory: return "memory";
  }
  return "none";
}

double ComputeRescale::min_factor() const {
  return factor.empty() ? 1.0 : *std::min_element(factor.begin(), factor.end());
}
double ComputeRescale::max_factor() const {
  return factor.empty() ? 1.0 : *std::max_element(factor.begin(), factor.end());
}

namespace {

// The core speed figure of the node `rank` sits on; larger is faster.
double core_speed(const machine::Machine& m, int rank, int ranks, RescaleBy by) {
  const machine::NodeGroup& group = m.group_of_node(m.node_of_rank(rank, ranks));
  auto missing = [&](const char* key) {
    return UserError(fmt::format("machine '{}' gives no {}, so compute cannot be rescaled by {}", m.name, key,
                                 rescale_by_name(by)),
                     {"", std::nullopt, "--rescale-by"}, "choose another figure with --rescale-by, or none");
  };
  switch (by) {
    case RescaleBy::Clock:
      if (!group.clock_Hz || *group.clock_Hz <= 0) throw missing("node.clock");
      return *group.clock_Hz;
    case RescaleBy::Flops:
      if (group.flops_per_core <= 0) throw missing("node.flops_per_core");
      return group.flops_per_core;
    case RescaleBy::Memory:
      if (group.memory.empty() || group.outermost_level().bandwidth_Bps <= 0) throw missing("a memory level's bandwidth");
      return group.outermost_level().bandwidth_Bps;
    case RescaleBy::Auto:
    case RescaleBy::None: break;
  }
  return 1.0;
}

class RescaledRank : public events::RankSource {
 public:
  RescaledRank(std::unique_ptr<events::RankSource> inner, double factor) : inner_(std::move(inner)), factor_(factor) {}
  bool next(events::Event& out, double now_s) override {
    if (!inner_->next(out, now_s)) return false;
    if (out.kind == events::Kind::Compute && out.seconds > 0) out.seconds *= factor_;
    return true;
  }
  void prefetch() const override { inner_->prefetch(); }

 private:
  std::unique_ptr<events::RankSource> inner_;
  double factor_;
};

class RescaledJob : public events::JobSource {
 public:
  RescaledJob(events::JobSource& job, std::vector<double> factor) : job_(job), factor_(std::move(factor)) {}
  int size() const override { return job_.size(); }
  std::unique_ptr<events::RankSource> open_rank(int rank) override {
    return std::make_unique<RescaledRank>(job_.open_rank(rank), factor_.at(static_cast<std::size_t>(rank)));
  }

 private:
  events::JobSource& job_;
  std::vector<double> factor_;
};

}  // namespace

ComputeRescale compute_rescale(const machine::Machine& host, const machine::Machine& target, int ranks,
                               RescaleBy by) {
  if (by == RescaleBy::Auto) {
    auto clocked = [&](const machine::Machine& m) {
      for (int r = 0; r < ranks; ++r) {
        const auto& clock = m.group_of_node(m.node_of_rank(r, ranks)).clock_Hz;
        if (!clock || *clock <= 0) return false;
      }
      return true;
    };
    by = clocked(host) && clocked(target) ? RescaleBy::Clock : RescaleBy::Flops;
  }
  ComputeRescale out;
  out.by = by;
  out.host = host.name;
  out.target = target.name;
  out.factor.assign(static_cast<std::size_t>(std::max(ranks, 0)), 1.0);
  if (by == RescaleBy::None) return out;
  for (int r = 0; r < ranks; ++r)
    out.factor[static_cast<std::size_t>(r)] = core_speed(host, r, ranks, by) / core_speed(target, r, ranks, by);
  return out;
}

std::unique_ptr<events::JobSource> with_compute_rescaled(events::JobSource& job, const ComputeRescale& rescale) {
  if (static_cast<int>(rescale.factor.size()) != job.size())
    throw std::logic_error(fmt::format("a compute rescaling of {} ranks for a job of {}", rescale.factor.size(), job.size()));
  return std::make_unique<RescaledJob>(job, rescale.factor);
}

}  // namespace perfcast::sim
