// What every run of an app in a test must satisfy: exit 0 in time, a JSON
// result line for the communicator size asked (a binary launched by the wrong
// MPI runs as N one-rank jobs), and a passed check. Each app's test adds the
// figures of its own check.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/app_run.h"

namespace perfcast::testing {

// The app's JSON result when the run is sound, else an empty object (the
// failures are recorded).
inline nlohmann::json run_app_passing(const std::string& app, int ranks, const std::vector<std::string>& args) {
  AppRun run = run_app(app, ranks, args);
  EXPECT_EQ(run.process.exit_code, 0) << run.process.stderr_text << run.process.stdout_text;
  EXPECT_FALSE(run.process.timed_out);
  if (!run.result.is_object()) {
    ADD_FAILURE() << "no JSON result line; stdout:\n" << run.process.stdout_text << run.process.stderr_text;
    return nlohmann::json::object();
  }
  const nlohmann::json& j = run.result;
  EXPECT_EQ(j.value("app", ""), app);
  EXPECT_EQ(j.value("ranks", -1), ranks) << "launched by the wrong MPI?";
  EXPECT_EQ(j.value("check", ""), "passed") << run.process.stdout_text;
  return j;
}

}  // namespace perfcast::testing
