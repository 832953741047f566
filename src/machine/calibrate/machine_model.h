// A calibration's figures as the machine model engines price work with: what
// `perfcast calibrate` writes into a machine file (machine_io.h writes it).
//
// Each figure is rounded to the digits the file keeps (3 for rates, sizes and
// costs, 4 for measured times), so the model returned is the model the file
// loads to; everything the calibration does not measure (hops, handshakes,
// mapping) is the format's default.
#pragma once

#include <vector>

#include "machine/calibrate/mpi_bench.h"
#include "machine/collective_table.h"
#include "machine/machine.h"

namespace perfcast::calibrate {

struct Calibration;

// This node alone: one node group, a crossbar network within it.
machine::Machine machine_model(const Calibration& cal);

// The MPI measurement alone: the within-node network it measured (on one node
// also its latency and bandwidth) and its collective tables.
struct NetworkModel {
  machine::Network network;
  std::vector<machine::CollectiveTable> collectives;
};
NetworkModel network_model(const MpiResult& mpi);

}  // namespace perfcast::calibrate
