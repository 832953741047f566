// The perfcast command as the CLI tests run it: this build's binary, as a
// process of its own, with a time limit (a hung command fails its test).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "measure/launcher.h"

namespace perfcast::testing {

inline measure::ProcessResult perfcast_run(std::vector<std::string> args,
                                           std::chrono::seconds limit = std::chrono::seconds(60)) {
  args.insert(args.begin(), std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast");
  return measure::run_process(args, limit);
}

}  // namespace perfcast::testing
