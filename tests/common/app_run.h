// Running an MPI application from a test: launch it with the pinned Open MPI at
// a given rank count and read the JSON result its rank 0 prints as the last
// line beginning with '{' on stdout. Every app prints "ranks" there, and every
// app test asserts it equals the rank count asked for (a binary launched by the
// wrong MPI runs as N one-rank jobs without any error).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/launcher.h"

namespace perfcast::testing {

struct AppRun {
  measure::ProcessResult process;
  nlohmann::json result;  // the app's last JSON line; null if none
};

// `app` is a name under the build tree's apps/ folder (e.g. "wave3d").
AppRun run_app(const std::string& app, int ranks, const std::vector<std::string>& args,
               double timeout_s = 120);

std::string app_path(const std::string& app);

}  // namespace perfcast::testing
