// What the engine pays for a compute burst. Messages, exchanges and
// collectives are priced by machine::Pricing (machine/pricing.h), the rules
// `perfcast predict` prices with too.
#pragma once

#include "events/event.h"
#include "machine/pricing.h"

namespace perfcast::sim {

// A compute burst: its `seconds` when given, else the roofline of its counts
// on the rank's node (Pricing::burst_s).
class ComputeModel {
 public:
  explicit ComputeModel(const machine::Pricing& pricing) : pricing_(pricing) {}
  double seconds(const events::Event& burst, int world_rank) const {
    return burst.seconds >= 0 ? burst.seconds : pricing_.burst_s(world_rank, burst.flops, burst.bytes_moved);
  }

 private:
  const machine::Pricing& pricing_;
};

}  // namespace perfcast::sim
