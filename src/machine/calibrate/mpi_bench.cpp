#include "machine/calibrate/mpi_bench.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "machine/calibrate/timing.h"
#include "measure/launcher.h"
#include "support/error.h"

namespace perfcast::calibrate {

namespace {

std::vector<double> collective_sizes(int max_procs, bool quick) {
  std::vector<double> all = quick ? std::vector<double>{8, 1024, 65536, 1048576}
                                  : std::vector<double>{8, 64, 512, 4096, 32768, 262144, 1048576};
  // alltoall and allgather hold procs x size per rank: keep that modest so a
  // many-core node does not run out of memory.
  std::vector<double> kept;
  for (double s : all)
    if (s == all.front() || s * max_procs <= 16.0 * 1024 * 1024) kept.push_back(s);
  return kept;
}

std::string tail(const std::string& text, std::size_t max_chars = 2000) {
  return text.size() <= max_chars ? text : "..." + text.substr(text.size() - max_chars);
}

nlohmann::json last_json_line(const std::string& out) {
  std::size_t end = out.size();
  while (end > 0) {
    std::size_t begin = out.rfind('\n', end - 1);
    begin = begin == std::string::npos ? 0 : begin + 1;
    std::string line = out.substr(begin, end - begin);
    if (!line.empty() && line[0] == '{') return nlohmann::json::parse(line, nullptr, false);
    if (begin == 0) break;
    end = begin - 1;
  }
  return nlohmann::json();
}

}  // namespace

MpiOptions calibration_mpi_options(const std::filesystem::path& bench, int max_procs, bool quick) {
  MpiOptions options;
  options.bench = bench;
  options.max_procs = max_procs;
  options.quick = quick;
  options.timeout_s = quick ? 60 : 900;
  return options;
}

std::vector<int> process_counts(int max_procs, bool quick) {
  std::vector<int> counts;
  if (max_procs < 2) return counts;
  if (quick) {
    counts.push_back(2);
    if (max_procs > 2) counts.push_back(max_procs);
    return counts;
  }
  for (int p = 2; p < max_procs; p *= 2) counts.push_back(p);
  counts.push_back(max_procs);
  return counts;
}

double pingpong_latency(const std::vector<PingPongPoint>& curve) {
  std::vector<double> small;
  for (const auto& p : curve)
    if (p.bytes <= 8) small.push_back(p.one_way_s);
  if (small.empty() && !curve.empty()) small.push_back(curve.front().one_way_s);
  return detail::median(small);
}

// The switch to rendezvous adds a handshake, about a round trip, on top of
// latency + size / bandwidth. It shows as the excess over that line rising by
// more than one latency from one size to the next and staying up at the size
// after (not a single disturbed point). MPI libraries may have more regimes
// below it (Open MPI's shared-memory fast boxes); their steps are smaller.
std::optional<double> eager_threshold(const std::vector<PingPongPoint>& curve) {
  double latency = pingpong_latency(curve);
  double bandwidth = pingpong_bandwidth(curve, std::nullopt);
  if (latency <= 0 || bandwidth <= 0) return std::nullopt;
  auto excess = [&](std::size_t i) { return curve[i].one_way_s - (latency + curve[i].bytes / bandwidth); };
  for (std::size_t i = 0; i + 1 < curve.size(); ++i) {
    if (curve[i].bytes > 1024 * 1024) break;
    bool jumps = excess(i + 1) - excess(i) > latency;
    bool stays = i + 2 >= curve.size() || excess(i + 2) - excess(i) > 0.5 * latency;
    if (jumps && stays) return curve[i].bytes;
  }
  return std::nullopt;
}

// Bandwidth of the large-message regime: the inverse of the median pairwise
// slope of time against size (Theil-Sen), robust to a disturbed size.
double pingpong_bandwidth(const std::vector<PingPongPoint>& curve, std::optional<double> eager_bytes) {
  double from = std::max(65536.0, 4 * eager_bytes.value_or(0));
  std::vector<PingPongPoint> large;
  for (const auto& p : curve)
    if (p.bytes >= from) large.push_back(p);
  std::vector<double> slopes;
  for (std::size_t i = 0; i < large.size(); ++i)
    for (std::size_t j = i + 1; j < large.size(); ++j)
      slopes.push_back((large[j].one_way_s - large[i].one_way_s) / (large[j].bytes - large[i].bytes));
  double slope = detail::median(slopes);
  if (slope > 0) return 1 / slope;
  double best = 0;
  for (const auto& p : curve) best = std::max(best, p.bytes / p.one_way_s);
  return best;
}

MpiResult measure_mpi(const MpiOptions& options, const std::function<void(int, int, int)>& progress) {
  if (!std::filesystem::exists(options.bench))
    throw UserError(fmt::format("the MPI benchmark '{}' is missing", options.bench.string()), {},
                    "build it with the perfcast target (it is built next to the perfcast executable)");
  if (options.max_procs < 2)
    throw UserError("the MPI measurements need at least 2 processes", {}, "set --max-procs 2 or more");
  if (measure::is_oversubscribed(options.max_procs))
    throw UserError(fmt::format("{} processes would oversubscribe the {} cores here; ranks sharing a core "
                                "measure the scheduler, not MPI",
                                options.max_procs, measure::online_cores()),
                    {}, fmt::format("set --max-procs {} or less", measure::online_cores()));

  MpiResult result;
  result.procs = process_counts(options.max_procs, options.quick);
  auto sizes = collective_sizes(options.max_procs, options.quick);
  std::string size_list;
  for (double s : sizes) size_list += (size_list.empty() ? "" : ",") + fmt::format("{}", s);

  // op -> (procs -> bytes -> time)
  std::map<std::string, std::map<int, std::map<double, double>>> times;
  std::vector<std::string> op_order;
  for (std::size_t k = 0; k < result.procs.size(); ++k) {
    int procs = result.procs[k];
    if (progress) progress(static_cast<int>(k), static_cast<int>(result.procs.size()), procs);
    measure::MpiLaunch launch;
    launch.ranks = procs;
    // As `perfcast measure` times a pinned job: waiting ranks poll, so the
    // figures are those of the messages, not of a yield and a reschedule.
    launch.busy_poll = true;
    launch.program = {options.bench.string(), "--sizes", size_list};
    if (options.quick) launch.program.push_back("--quick");
    if (k != 0) launch.program.push_back("--no-pingpong");
    auto command = measure::mpirun_command(launch);
    std::string command_text;
    for (const auto& a : command) command_text += (command_text.empty() ? "" : " ") + a;
    if (k == 0) result.launch_command = command_text;

    auto run = measure::run_mpi(launch, std::chrono::duration<double>(options.timeout_s));
    if (run.timed_out)
      throw UserError(fmt::format("the MPI benchmark did not finish within {} s: {}", options.timeout_s,
                                  command_text));
    if (run.exit_code != 0)
      throw UserError(fmt::format("the MPI benchmark failed (exit {}): {}\n{}", run.exit_code, command_text,
                                  tail(run.stderr_text)));
    auto doc = last_json_line(run.stdout_text);
    if (!doc.is_object())
      throw UserError(fmt::format("the MPI benchmark printed no JSON result: {}\n{}", command_text,
                                  tail(run.stdout_text + run.stderr_text)));
    int reported = doc.value("ranks", -1);
    if (reported != procs)
      throw UserError(fmt::format("the MPI benchmark reports {} ranks in MPI_COMM_WORLD but {} were launched",
                                  reported, procs),
                      {}, "the benchmark was built for another MPI than mpirun.openmpi; rebuild perfcast");
    if (doc.contains("call_overhead_s")) result.call_overhead_s = doc["call_overhead_s"].get<double>();
    if (doc.contains("pingpong")) {
      for (const auto& p : doc["pingpong"])
        result.pingpong.push_back({p.at("bytes").get<double>(), p.at("one_way_s").get<double>()});
    }
    if (doc.contains("exchange")) {
      for (const auto& p : doc["exchange"])
        result.exchange.push_back({p.at("bytes").get<double>(), p.at("step_s").get<double>()});
    }
    for (const auto& c : doc.value("collectives", nlohmann::json::array())) {
      auto op = c.at("op").get<std::string>();
      if (std::find(op_order.begin(), op_order.end(), op) == op_order.end()) op_order.push_back(op);
      times[op][procs][c.at("bytes").get<double>()] = c.at("time_s").get<double>();
    }
  }

  if (!result.pingpong.empty()) {
    result.one_way_s = pingpong_latency(result.pingpong);
    // The one-way time includes the send's and the receive's overhead (LogP:
    // o + L + o); the machine file keeps them apart, as the engine charges o
    // per call. A measured o too large to fit (noise) is not subtracted.
    result.latency_s = result.one_way_s - 2 * result.call_overhead_s > 0.25 * result.one_way_s
                           ? result.one_way_s - 2 * result.call_overhead_s
                           : result.one_way_s;
    result.eager_threshold_bytes = eager_threshold(result.pingpong);
    result.bandwidth = pingpong_bandwidth(result.pingpong, result.eager_threshold_bytes);
  }
  for (const auto& op : op_order) {
    CollectiveTable table;
    table.op = op;
    const auto& by_procs = times[op];
    for (const auto& [bytes, t] : by_procs.begin()->second) table.bytes.push_back(bytes);
    for (const auto& [procs, by_bytes] : by_procs) {
      table.procs.push_back(procs);
      std::vector<double> row;
      for (double b : table.bytes) row.push_back(by_bytes.count(b) ? by_bytes.at(b) : NAN);
      table.time_s.push_back(row);
    }
    result.collectives.push_back(table);
  }
  return result;
}

}  // namespace perfcast::calibrate
