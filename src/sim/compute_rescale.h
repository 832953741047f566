// Replaying a trace recorded on one machine as if it ran on another: every
// measured compute burst is stretched by the ratio of the two machines' core
// speeds, as Dimemas does with its relative CPU speed (`perfcast simulate
// TRACE --machine TARGET`, with the traced host's machine file recorded by
// `perfcast trace --machine HOST` or given with --traced-machine;
// docs/trace.md#replay-on-another-machine).
//
// One figure per core stands for everything a burst did, so the rescaling
// cannot know what the burst was bound by: a memory-bound burst follows the
// memory bandwidth, not the clock; a working set that fits one machine's cache
// and not the other's, code vectorised for one instruction set, another
// compiler, and what the ranks sharing a node take from each other all move
// a burst's time in ways a ratio of two figures does not see.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "events/source.h"
#include "machine/machine.h"

namespace perfcast::sim {

// Which figure of a core stands for its speed.
enum class RescaleBy {
  Auto,    // Clock where both machines give every rank's node a clock, else Flops
  None,    // compute as traced
  Clock,   // node.clock: in-core work at the same cycles per instruction
  Flops,   // node.flops_per_core: vectorised floating point at peak
  Memory,  // the last memory level's bandwidth per core: streaming from DRAM
};

// "auto", "clock", "flops", "memory", "none"; a UserError naming `option` otherwise.
RescaleBy parse_rescale_by(const std::string& text, const std::string& option);
const char* rescale_by_name(RescaleBy by);

// The factor of each rank's bursts: the host's figure over the target's, for
// the node each rank sits on in each machine (their own mappings, at the
// trace's rank count). A figure a machine does not give is a UserError naming
// the machine and the key. Auto is resolved: `by` says which figure was used.
struct ComputeRescale {
  RescaleBy by = RescaleBy::None;
  std::string host;            // the traced host's machine name
  std::string target;          // the replay's machine name
  std::vector<double> factor;  // factor[r]: rank r's bursts take factor[r] x their traced seconds
  double min_factor() const;
  double max_factor() const;
};
ComputeRescale compute_rescale(const machine::Machine& host, const machine::Machine& target, int ranks,
                               RescaleBy by);

// The job with every compute burst that gives its seconds (a traced gap)
// multiplied by its rank's factor; bursts priced from counts are left alone
// (the target's own pricing applies to them already). `job` must outlive the
// result; rescale.factor holds one entry per rank of `job`.
std::unique_ptr<events::JobSource> with_compute_rescaled(events::JobSource& job, const ComputeRescale& rescale);

}  // namespace perfcast::sim
