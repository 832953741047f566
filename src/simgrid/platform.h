// A perfcast machine as SimGrid sees it: the platform file and the SMPI
// options under which SimGrid 3.32's SMPI prices messages as perfcast's
// engine does (latency + bytes / bandwidth per message, eager below the
// machine's threshold, no contention). The one derivation: `perfcast trace
// export --simgrid` writes it beside a trace, `perfcast machine simgrid`
// for bench/smpi/compare.py.
#pragma once

#include <string>
#include <vector>

#include "machine/machine.h"

namespace perfcast::simgrid {

// Throws UserError naming the machine key to change when SMPI cannot price
// the machine as perfcast does: a topology other than crossbar, a
// per-message overhead (SMPI's os/or factors are not mapped), or two of the
// `ranks` ranks on one node (within-node figures are not mapped either).
void check_machine_for_smpi(const machine::Machine& machine, int ranks);

// The platform of `ranks` hosts, h0..h{ranks-1}, rank r on host hr with the
// flop rate of its node's cores, each host with its own FATPIPE link of
// latency L/2 (a message crosses the sender's and the receiver's: L + n/B),
// FATPIPE because perfcast's crossbar gives every flow the whole bandwidth.
std::string platform_xml(const machine::Machine& machine, int ranks);

// Where the options are used: a program smpicc built (its computation counts
// only through smpi_execute, at the machine's flop rate), or SMPI's replay of
// a time-independent trace (whose compute actions SMPI runs only while
// smpi/simulate-computation is on, its default).
enum class SmpiUse { Program, Replay };

// The `--cfg=` options for smpirun: CM02 with every correction factor at 1,
// eager up to the machine's threshold, no cost for MPI_Wtime, MPI_Test and
// MPI_Iprobe; for a program, computation only as smpi_execute'd. Without an
// allreduce algorithm: see allreduce_algorithm.
std::vector<std::string> smpi_options(const machine::Machine& machine, SmpiUse use);

// SMPI's allreduce algorithm that runs the schedule perfcast's engine chooses
// for `bytes` over `ranks` (sim::choose_collective_algorithm): "rdb" for
// recursive doubling, "lr" for the ring reduce-scatter then allgather.
std::string allreduce_algorithm(int ranks, double bytes);

}  // namespace perfcast::simgrid
