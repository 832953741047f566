// The command a test launches a real MPI program with: the configured
// launcher (MPIRUN), its flags (MPIRUN_FLAGS, space-separated), `-n RANKS`,
// then the program and its arguments. A test target that includes this
// defines both macros (tests/*/CMakeLists.txt).
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace perfcast::testing {

inline std::vector<std::string> mpirun_command(int ranks, const std::vector<std::string>& program) {
  std::vector<std::string> command = {MPIRUN};
  std::istringstream flags(MPIRUN_FLAGS);
  for (std::string flag; flags >> flag;) command.push_back(flag);
  command.insert(command.end(), {"-n", std::to_string(ranks)});
  command.insert(command.end(), program.begin(), program.end());
  return command;
}

}  // namespace perfcast::testing
