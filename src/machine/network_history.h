// A machine file's within-node MPI figures averaged over several measurements.
//
// On a VM the time of a message between two cores moves with where the host
// places the vCPUs (a 512 B exchange step can take 0.6 us in one probe and
// 1.3 us in the next, 20 s apart). A machine file
// calibrated once prices every run with whichever placement that moment had;
// `perfcast calibrate --network-only FILE --accumulate` averages one more
// measurement into the file instead, as --noise-only --accumulate does for the
// cores' noise (machine.h's accumulate_noise), so a file kept up to date (say
// from cron) prices a run at the host's mean over its placements.
#pragma once

#include <vector>

#include "machine/collective_table.h"
#include "machine/machine.h"

namespace perfcast::machine {

// Whether `network` holds measured within-node curves (calibrate writes them),
// not figures written by hand: only a measurement is averaged with.
bool has_measured_curves(const Network& network);

// `file`'s network with its within-node figures replaced by `measured`'s (and
// on one node its latency and bandwidth, which are this node's): what
// --network-only writes. The topology, hops and handshakes stay the file's.
Network with_measured_network(const Network& file, const Network& measured, bool one_node);

// `history` with `measured` averaged in, weighted by their `probes`: the
// within-node latency, bandwidth (as time per byte), call overhead and the
// one-way and exchange curves, time by time; latency and bandwidth between
// nodes too when `one_node` (a single-node machine's network is this node's,
// as --network-only writes it); the rest (eager threshold, topology) is the
// measurement's. A history without a measured curve (figures written by hand)
// is the measurement alone. Throws UserError when a curve does not pair (another set of
// sizes on each side, or a curve on one side only).
Network accumulate_network(const Network& history, const Network& measured, bool one_node);

// Collective tables averaged the same way: a measured table pairs with the
// history's table of the same operation, process counts and sizes, and is
// averaged into it with weights `history_probes` and `measured_probes`; one
// that pairs with none (a new operation, a new grid) is taken as measured,
// and a history table the measurement lacks is dropped, as a fresh
// --network-only measurement replaces them all.
std::vector<CollectiveTable> accumulate_collectives(const std::vector<CollectiveTable>& history, int history_probes,
                                                    const std::vector<CollectiveTable>& measured,
                                                    int measured_probes);

}  // namespace perfcast::machine
