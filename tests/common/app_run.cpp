#include "common/app_run.h"

#include <sstream>

namespace perfcast::testing {

std::string app_path(const std::string& app) { return std::string(PERFCAST_BINARY_DIR) + "/apps/" + app; }

AppRun run_app(const std::string& app, int ranks, const std::vector<std::string>& args, double timeout_s) {
  measure::MpiLaunch launch;
  launch.ranks = ranks;
  launch.program.push_back(app_path(app));
  launch.program.insert(launch.program.end(), args.begin(), args.end());
  AppRun run;
  run.process = measure::run_mpi(launch, std::chrono::duration<double>(timeout_s));
  std::istringstream lines(run.process.stdout_text);
  std::string line, last_json;
  while (std::getline(lines, line))
    if (!line.empty() && line.front() == '{') last_json = line;
  if (!last_json.empty()) run.result = nlohmann::json::parse(last_json, nullptr, /*allow_exceptions=*/false);
  return run;
}

}  // namespace perfcast::testing
