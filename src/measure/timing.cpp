#include "measure/timing.h"

#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "support/error.h"

namespace perfcast::measure {

namespace {

std::string tail(const std::string& text, size_t max_chars) {
  return text.size() <= max_chars ? text : "..." + text.substr(text.size() - max_chars);
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The time a pattern finds in one timed run's stdout or the file it wrote; a
// run that reports none is an error, since a median over the runs that did
// would hide it.
// Without a file, stdout is searched, then stderr: Fortran's unit 0 (where
// CloverLeaf writes its wall clock) is stderr, and the two streams' order
// relative to each other is lost, so they are not searched as one text.
double pattern_time(const AppTimePattern& pattern, const std::optional<std::string>& time_file,
                    const ProcessResult& process, std::filesystem::file_time_type started, int run) {
  if (!time_file) {
    auto seconds = pattern.find_seconds(process.stdout_text, fmt::format("stdout of run {}", run));
    if (!seconds) seconds = pattern.find_seconds(process.stderr_text, fmt::format("stderr of run {}", run));
    if (!seconds)
      throw UserError(fmt::format("run {} printed nothing the time pattern '{}' matches; its stdout ends with:\n{}\n"
                                  "and its stderr with:\n{}",
                                  run, pattern.regex(), tail(process.stdout_text, 1000),
                                  tail(process.stderr_text, 1000)),
                      {}, "check --time-pattern against the program's output");
    return *seconds;
  }
  auto file = newest_file_written_since(*time_file, started);
  if (!file)
    throw UserError(fmt::format("run {} wrote no file matching '{}' (relative to {})", run, *time_file,
                                std::filesystem::current_path().string()),
                    {}, "check --time-file, or run measure in the directory the program writes to");
  auto seconds = pattern.find_seconds(read_text_file(*file), file->string());
  if (!seconds)
    throw UserError(fmt::format("the time pattern '{}' matches nothing in '{}', written by run {}", pattern.regex(),
                                file->string(), run),
                    {.file = file->string()}, "check --time-pattern against that file");
  return *seconds;
}

}  // namespace

nlohmann::json last_json_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  nlohmann::json last;
  while (std::getline(lines, line)) {
    if (line.empty() || line.front() != '{') continue;
    auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (parsed.is_object()) last = std::move(parsed);
  }
  return last;
}

TimingResult time_mpi_runs(const MpiLaunch& launch, const TimingOptions& options, const TimingProgress& progress) {
  if (options.repeats < 1) throw UserError("the number of repeats must be at least 1", {}, "set --repeats");
  if (options.warmups < 0) throw UserError("the number of warm-up runs cannot be negative", {}, "set --warmup");

  TimingResult result;
  result.command = mpirun_command(launch);
  result.ranks = launch.ranks;
  result.cores = online_cores();
  result.oversubscribed = is_oversubscribed(launch.ranks);
  result.pinned = launch_pins(launch);
  result.busy_poll = launch_busy_polls(launch);

  if (options.time_file && !options.time_pattern)
    throw UserError("a time file was given without a time pattern to find the time in it", {},
                    "add --time-pattern REGEX");
  std::optional<AppTimePattern> pattern;
  if (options.time_pattern) pattern.emplace(*options.time_pattern);
  result.app_time_source = !pattern ? "the last JSON line's \"time_s\" in stdout"
                           : options.time_file
                               ? fmt::format("'{}' in the newest file '{}' each run wrote", pattern->regex(),
                                             *options.time_file)
                               : fmt::format("'{}' in stdout (else stderr)", pattern->regex());

  const int total = options.warmups + options.repeats;
  bool every_run_reported_time = true;
  for (int run = 1; run <= total; ++run) {
    const bool warmup = run <= options.warmups;
    if (progress) progress(run, total, warmup);
    const auto started = std::filesystem::file_time_type::clock::now();
    ProcessResult p = run_mpi(launch, std::chrono::duration<double>(options.timeout_s));
    if (p.timed_out)
      throw UserError(fmt::format("run {} of '{}' did not finish within {} s", run, join(result.command),
                                  options.timeout_s),
                      {}, "raise --timeout or use a smaller input");
    if (p.exit_code != 0)
      throw UserError(fmt::format("run {} of '{}' failed with exit code {}; its stderr ends with:\n{}", run,
                                  join(result.command), p.exit_code, tail(p.stderr_text, 2000)));
    if (warmup) continue;
    RunSample sample;
    sample.wall_s = p.wall_s;
    nlohmann::json app = last_json_line(p.stdout_text);
    if (pattern) {
      sample.app_time_s = pattern_time(*pattern, options.time_file, p, started, run);
    } else if (app.is_object() && app.contains("time_s") && app["time_s"].is_number()) {
      sample.app_time_s = app["time_s"].get<double>();
    } else {
      every_run_reported_time = false;
    }
    if (!app.is_null()) result.last_app_result = std::move(app);
    result.samples.push_back(sample);
  }

  std::vector<double> wall, app;
  for (const auto& s : result.samples) {
    wall.push_back(s.wall_s);
    if (s.app_time_s) app.push_back(*s.app_time_s);
  }
  result.wall = summarize(wall);
  if (every_run_reported_time) result.app_time = summarize(app);
  return result;
}

nlohmann::json to_json(const Summary& s) {
  return {{"count", s.count}, {"median", s.median}, {"q1", s.q1}, {"q3", s.q3},
          {"iqr", s.iqr()},   {"min", s.min},       {"max", s.max}};
}

nlohmann::json to_json(const TimingResult& r) {
  nlohmann::json wall_samples = nlohmann::json::array(), app_samples = nlohmann::json::array();
  for (const auto& s : r.samples) {
    wall_samples.push_back(s.wall_s);
    if (s.app_time_s) app_samples.push_back(*s.app_time_s);
  }
  nlohmann::json j = {{"command", r.command},
                      {"ranks", r.ranks},
                      {"cores", r.cores},
                      {"oversubscribed", r.oversubscribed},
                      {"pinned", r.pinned},
                      {"busy_poll", r.busy_poll},
                      {"repeats", r.samples.size()},
                      {"wall_s", to_json(r.wall)},
                      {"app_time_s", nullptr},
                      {"app_time_source", r.app_time_source},
                      {"app_result", r.last_app_result}};
  j["wall_s"]["samples"] = wall_samples;
  if (r.app_time) {
    j["app_time_s"] = to_json(*r.app_time);
    j["app_time_s"]["samples"] = app_samples;
  }
  return j;
}

}  // namespace perfcast::measure
