// Internal: loops that poll for an MPI completion. A loop whose exit (or
// continuation) depends on what a test or probe call inside it writes (the
// completion flag of MPI_Test, MPI_Testall, MPI_Testany, MPI_Iprobe,
// MPI_Improbe; the count of MPI_Testsome; the request handles a completed test
// resets to MPI_REQUEST_NULL; the status of what completed or arrived), read
// back through memory, runs as many trips as it takes the message to arrive:
// timing, not a count the input decides. The dependence is through data (the
// exit tests the flag) or control (the exit's flag is stored, or chosen by a
// phi, under a branch on what the call wrote, as hypre_DataExchangeList sets
// `terminate`). The call may sit in a function the loop calls (a wrapper
// passed the flag or the request by address, Fortran's by reference, or one
// that copies the flag it tested into the caller's, as hypre's mpistubs do).
#pragma once

#include <optional>
#include <string>

namespace llvm {
class BranchInst;
class Loop;
}  // namespace llvm

namespace perfcast::analyze::detail {

// The MPI function (its C name, "MPI_Test") whose completion state decides
// whether `l` goes on, when `l` is such a polling loop; nullopt otherwise.
std::optional<std::string> polling_call(const llvm::Loop& l);

// For a branch inside the polling loop `l` that tests the completion state
// directly (`if (flag)`, `IF (req == MPI_REQUEST_NULL)`), as the pass's own
// test left it: the successor (0 or 1) the pass that finds the completion
// takes, the one pass the model prices. nullopt for a branch on anything
// else, or on the state an earlier pass left (a phase: `if (!sent)` before
// the pass tests).
std::optional<unsigned> completion_successor(const llvm::BranchInst& br, const llvm::Loop& l);

}  // namespace perfcast::analyze::detail
