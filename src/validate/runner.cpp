// The methods of `perfcast validate`, run for each (case, sizes, ranks) in turn.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "machine/machine_io.h"
#include "measure/launcher.h"
#include "measure/timing.h"
#include "support/crc32.h"
#include "support/error.h"
#include "support/output_file.h"
#include "support/process.h"
#include "support/scratch_directory.h"
#include "validate/app_bindings.h"
#include "validate/validate.h"
#include "support/file_text.h"

namespace perfcast::validate {
namespace fs = std::filesystem;
using nlohmann::json;

std::set<std::string> parse_methods(const std::string& list) {
  std::set<std::string> out;
  std::stringstream in(list);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (name.empty()) continue;
    if (std::find(kMethodsNotBuilt.begin(), kMethodsNotBuilt.end(), name) != kMethodsNotBuilt.end())
      throw UserError(fmt::format("--methods: '{}' is not built yet", name));
    if (std::find(kMethods.begin(), kMethods.end(), name) == kMethods.end())
      throw UserError(fmt::format("--methods: unknown method '{}'", name), {},
                      "the methods: measured, naive, skeleton, trace-replay, static, signature, learned");
    out.insert(name);
  }
  out.insert("measured");
  return out;
}

namespace {

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

std::optional<double> number_field(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  if (!j[key].is_number()) throw UserError(fmt::format("row field '{}' is not a number", key));
  return j[key].get<double>();
}

// The first line of a message, shortened: a cell's note, not a log.
std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > 240) line = line.substr(0, 237) + "...";
  return line;
}

// The last line of a child's stderr that says something: where perfcast prints its error.
std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line.rfind("Run with --help", 0) != 0) last = line;  // CLI11's trailer
  return first_line(last);
}

std::string key_of(const std::string& app, const std::string& args, int ranks, const std::string& method) {
  return fmt::format("{}\x1f{}\x1f{}\x1f{}", app, args, ranks, method);
}

// A row done before is reused only for the same machine file, except measured and
// naive rows, which no machine file prices.
std::string done_key(const std::string& app, const std::string& args, int ranks, const std::string& method,
                     const std::string& machine) {
  bool priced = method != "measured" && method != "naive";
  return key_of(app, args, ranks, method) + "\x1f" + (priced ? machine : "");
}

// The per-rank times of `perfcast simulate --json` (docs/json.md, ranks[]).
std::vector<RankTimes> rank_times(const json& simulated) {
  std::vector<RankTimes> out;
  if (!simulated.contains("ranks") || !simulated["ranks"].is_array()) return out;
  for (const json& r : simulated["ranks"])
    out.push_back({r.at("rank").get<int>(), r.at("calc_s").get<double>(), r.at("wait_s").get<double>(),
                   r.at("comm_s").get<double>()});
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// An app's program model for the static methods: the file, or why there is
// none (`error`), and what a row priced with it must say (`note`: a kept model
// used for another CPU than the machine's).
struct AppModel {
  fs::path file;
  std::string error;
  std::string note;
};

// What the analysis takes from the cases' machine (Validation::analysis_machine).
struct AnalysisMachine {
  bool pass = false;        // analyze --machine: the file names a CPU or instruction cycles
  std::string record;       // the kept model's line naming them, ending in a newline
  std::string description;  // the same in words, for a row's note
};

class Validation {
 public:
  Validation(const CasesFile& file, const Tools& tools, const Options& options)
      : file_(file), tools_(tools), options_(options), scratch_("perfcast-validate") {}

  // Analyses each app of the cases once and keeps its model in the models
  // folder, running nothing else; an app that fails is named, the others go on.
  int keep_models() {
    std::set<std::string> apps;
    for (const Case& c : file_.cases) apps.insert(c.app);
    int failed = 0;
    for (const std::string& app : apps) {
      try {
        const AppBindings* b = app_bindings(app);
        if (!b) {
          progress(fmt::format("  {}: no [static] section in its validate.toml, nothing to analyse", app));
          continue;
        }
        double seconds = 0;
        const AppModel& kept = model(*b, app, seconds);
        progress(fmt::format("  {}: {}{}", app, kept.file.string(), kept.note.empty() ? "" : "; " + kept.note));
      } catch (const UserError& e) {
        ++failed;
        progress(fmt::format("  {}: {}", app, e.what()));
      }
    }
    return failed;
  }

  Outcome run() {
    Outcome out;
    out.machine = tools_.machine;
    read_resume(out);
    std::vector<Run> runs = expand(file_);
    int step = 0;
    for (const Run& run : runs) {
      ++step;
      for (const std::string& method : kMethods) {
        if (!options_.methods.count(method)) continue;
        std::string key = done_key(run.app, run.args, run.ranks, method, tools_.machine);
        if (auto it = done_.find(key); it != done_.end()) {
          out.rows.push_back(it->second);
          if (method == "signature") drop_trace(run);  // trace-replay's trace, kept for a row resumed instead
          continue;
        }
        progress(fmt::format("[{}/{}] {} {} ranks={}: {}", step, runs.size(), run.app, run.size, run.ranks, method));
        Row row = base_row(run, method);
        try {
          if (method == "measured")
            measured(run, row, out);
          else if (method == "naive")
            naive(run, row);
          else if (method == "skeleton")
            skeleton(run, row);
          else if (method == "trace-replay")
            trace_replay(run, row, out);
          else if (method == "static")
            static_model(run, row, "refined");
          else if (method == "static-noisy")
            static_model(run, row, "noisy");
          else if (method == "simulated-noisy")
            static_model(run, row, "simulated-noisy");
          else if (method == "signature")
            signature(run, row, out);
          else if (method == "learned")
            learned(run, row);
        } catch (const std::exception& e) {
          row.predicted_s.reset();
          row.per_rank.clear();
          row.basis.clear();
          row.note = "failed: " + first_line(e.what());
        }
        // A trace kept for the signature method is not kept past its run.
        if (method == "signature" || !options_.methods.count("signature")) drop_trace(run);
        if (method != "measured" && row.predicted_s) {
          if (row.measured_s && *row.measured_s > 0)
            row.error = *row.predicted_s / *row.measured_s - 1;
          else
            row.note += (row.note.empty() ? "" : "; ") + std::string("no measured time to compare with");
        }
        if (method == "measured") measured_[key_of(run.app, run.args, run.ranks, "")] = row;
        done_[key] = row;
        append(row);
        out.rows.push_back(row);
      }
    }
    return out;
  }

 private:
  void progress(const std::string& line) {
    if (options_.progress) options_.progress(line);
  }

  void read_resume(Outcome& out) {
    if (!options_.resume || !fs::exists(*options_.resume)) return;
    std::ifstream in(*options_.resume);
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.empty()) continue;
      Row row;
      try {
        row = row_from_json(json::parse(line));
      } catch (const std::exception& e) {
        throw UserError(fmt::format("not a row of perfcast validate: {}", first_line(e.what())),
                        {options_.resume->string(), number, ""}, "remove the line, or the file to start over");
      }
      // A row that failed is run again: its failure may have been passing.
      if (row.note.rfind("failed:", 0) == 0) continue;
      row.resumed = true;
      ++out.rows_resumed;
      done_[done_key(row.app, row.args, row.ranks, row.method, row.machine)] = row;
      if (row.method == "measured") measured_[key_of(row.app, row.args, row.ranks, "")] = row;
    }
  }

  void append(const Row& row) {
    if (!options_.resume) return;
    // One line per row, flushed as it is made: an interrupted validation keeps its rows.
    std::ofstream out(*options_.resume, std::ios::app);
    out << to_json(row).dump() << "\n";
    if (!out) throw UserError("cannot append to the results file", {options_.resume->string(), std::nullopt, ""});
  }

  Row base_row(const Run& run, const std::string& method) {
    Row row;
    row.app = run.app;
    row.size = run.size;
    row.args = run.args;
    row.ranks = run.ranks;
    row.method = method;
    if (method != "measured" && method != "naive") row.machine = tools_.machine;
    row.oversubscribed = measure::is_oversubscribed(run.ranks);
    if (auto it = measured_.find(key_of(run.app, run.args, run.ranks, "")); it != measured_.end()) {
      row.measured_s = it->second.measured_s;
      row.measured_q1_s = it->second.measured_q1_s;
      row.measured_q3_s = it->second.measured_q3_s;
    }
    return row;
  }

  fs::path app_binary(const Run& run) const { return tools_.build_dir / "apps" / run.app; }

  measure::MpiLaunch launch(const Run& run, const std::string& args) const {
    fs::path binary = app_binary(run);
    if (!fs::exists(binary))
      throw UserError(fmt::format("no app binary {} (build the project, or pass --build)", binary.string()));
    measure::MpiLaunch l;
    l.ranks = run.ranks;
    l.program = {binary.string()};
    for (const std::string& a : split_args(args)) l.program.push_back(a);
    l.pin = true;
    l.busy_poll = true;  // as `perfcast measure` times: pinned runs poll where they fit
    return l;
  }

  void measured(const Run& run, Row& row, Outcome& out) {
    measure::TimingOptions timing;
    timing.repeats = file_.settings.repeats;
    timing.warmups = file_.settings.warmup;
    timing.timeout_s = file_.settings.timeout_s;
    auto start = std::chrono::steady_clock::now();
    measure::TimingResult r = measure::time_mpi_runs(launch(run, run.args), timing, [&](int i, int total, bool warm) {
      progress(fmt::format("  run {}/{}{}", i, total, warm ? " (warm-up)" : ""));
      ++out.timed_runs;
    });
    row.cost_s = seconds_since(start);
    row.cost_runs = fmt::format("{} timed runs + {} warm-up", timing.repeats, timing.warmups);
    row.oversubscribed = r.oversubscribed;
    const measure::Summary& s = r.app_time ? *r.app_time : r.wall;
    row.measured_s = s.median;
    row.measured_q1_s = s.q1;
    row.measured_q3_s = s.q3;
    row.basis = r.app_time ? kTimedRegion : "launch wall time";
    row.note =
        fmt::format("median of {} runs of {}{}{}", s.count, r.app_time ? "the app's time_s" : "the launch's wall time",
                    r.pinned ? ", pinned" : ", not pinned", r.oversubscribed ? ", oversubscribed" : "");
  }

  void naive(const Run& run, Row& row) {
    row.cost_runs = "none";
    if (run.ranks == 1) {
      row.note = "not applicable at 1 rank (T1/1 is the measurement)";
      return;
    }
    auto it = measured_.find(key_of(run.app, run.args_one_rank, 1, ""));
    if (it == measured_.end() || !it->second.measured_s) {
      row.note = "no measured 1-rank row of this size (add 1 to the case's ranks)";
      return;
    }
    row.predicted_s = *it->second.measured_s / run.ranks;
    row.basis = kTimedRegion;
    row.note = fmt::format("T1/{} with T1 = {:.6g} s", run.ranks, *it->second.measured_s);
  }

  ProcessResult perfcast(std::vector<std::string> args) const {
    args.insert(args.begin(), tools_.perfcast.string());
    return run_process(args, std::chrono::duration<double>(file_.settings.timeout_s));
  }

  static void check(const ProcessResult& r, const std::string& what) {
    if (r.timed_out) throw UserError(fmt::format("{} timed out", what));
    if (r.exit_code != 0) throw UserError(fmt::format("{}: {}", what, last_line(r.stderr_text)));
  }

  static json parse_json(const ProcessResult& r, const std::string& what) {
    try {
      return json::parse(r.stdout_text);
    } catch (const std::exception&) {
      throw UserError(fmt::format("{} printed no JSON document", what));
    }
  }

  void skeleton(const Run& run, Row& row) {
    fs::path skel = tools_.build_dir / "apps" / (run.app + "_skel");
    if (!fs::exists(skel)) {
      row.cost_runs = "none";
      row.note = fmt::format("no skeleton ({} not built)", skel.string());
      return;
    }
    std::vector<std::string> args = {"simulate", "--machine", tools_.machine, "--np", std::to_string(run.ranks),
                                     "--json",   "--",        skel.string()};
    for (const std::string& a : split_args(run.skeleton_args)) args.push_back(a);
    auto start = std::chrono::steady_clock::now();
    ProcessResult r = perfcast(args);
    row.cost_s = seconds_since(start);
    row.cost_runs = "none (the skeleton runs simulated)";
    check(r, "perfcast simulate");
    json simulated = parse_json(r, "perfcast simulate");
    row.per_rank = rank_times(simulated);
    // The skeleton prints the app's JSON line, timed on the simulated clock, on stderr.
    json own = measure::last_json_line(r.stderr_text);
    if (own.is_object() && own.contains("time_s") && own["time_s"].is_number()) {
      row.predicted_s = own["time_s"].get<double>();
      row.note = "the skeleton's own time_s (the app's timed region, simulated)";
      row.basis = kTimedRegion;
    } else {
      row.predicted_s = simulated.at("predicted_time_s").get<double>();
      row.note = "the whole simulated job (the skeleton prints no time_s)";
      row.basis = kWholeRunVsTimedRegion;
    }
  }

  // The baseline of the app's timed region, when its validate.toml names one and the
  // case has the placeholders it overrides.
  std::optional<expr::Bindings> baseline_values(const Run& run, const AppBindings* b) const {
    if (!b || b->timed_region_baseline.empty()) return std::nullopt;
    expr::Bindings values = run.values;
    for (const auto& [name, value] : b->timed_region_baseline) {
      if (!values.count(name)) return std::nullopt;
      values[name] = value;
    }
    return values;
  }

  const AppBindings* app_bindings(const std::string& app) {
    auto it = bindings_.find(app);
    if (it == bindings_.end()) {
      std::optional<AppBindings> b;
      std::string error;
      try {
        b = load_app_bindings(tools_.apps_dir / app / "validate.toml");
      } catch (const UserError& e) {
        error = e.what();
      }
      it = bindings_.emplace(app, std::make_pair(std::move(b), error)).first;
    }
    if (!it->second.second.empty()) throw UserError(it->second.second);
    return it->second.first ? &*it->second.first : nullptr;
  }

  // `perfcast simulate --json` of one traced run of the app with `args`.
  json traced_replay(const Run& run, const std::string& args, const std::string& name, Outcome& out) {
    fs::path dir = scratch_.path() / fmt::format("trace-{}-{}", name, ++traces_);
    std::vector<std::string> cmd = {"trace", "-o", dir.string(), "--"};
    for (const std::string& a : measure::mpirun_command(launch(run, args))) cmd.push_back(a);
    ++out.traced_runs;
    check(perfcast(cmd), "perfcast trace");
    ProcessResult sim = perfcast({"simulate", "--machine", tools_.machine, "--json", dir.string()});
    check(sim, "perfcast simulate (replay)");
    // The run's own trace (not a baseline's) is the signature method's to build from,
    // when it runs: the same launch, so the signature is of the run it predicts.
    if (args == run.args && options_.methods.count("signature"))
      traces_kept_[key_of(run.app, run.args, run.ranks, "")] = dir;
    else
      fs::remove_all(dir);
    return parse_json(sim, "perfcast simulate");
  }

  void trace_replay(const Run& run, Row& row, Outcome& out) {
    auto start = std::chrono::steady_clock::now();
    const AppBindings* b = nullptr;
    try {
      b = app_bindings(run.app);
    } catch (const UserError&) {
      // a broken validate.toml is the static cell's to report; here it only means no baseline
    }
    std::optional<expr::Bindings> base = baseline_values(run, b);
    json replay = traced_replay(run, run.args, "run", out);
    double full = replay.at("predicted_time_s").get<double>();
    row.per_rank = rank_times(replay);
    // The app's MPI_Pcontrol marks, when the trace has them, give the timed region
    // from the one run; marks that make no region fall back as if there were none.
    const json& region = replay.contains("timed_region") ? replay.at("timed_region") : json();
    if (region.is_object() && region.at("time_s").is_number()) {
      row.predicted_s = region.at("time_s").get<double>();
      row.cost_runs = "1 traced run";
      row.note = fmt::format("the replayed region between the app's MPI_Pcontrol(1) and MPI_Pcontrol(0) (the whole "
                             "replayed program: {:.6g} s)",
                             full);
      row.basis = kTimedRegion;
      row.cost_s = seconds_since(start);
      return;
    }
    std::string no_marks = region.is_object() && region.at("problem").is_string()
                               ? "its MPI_Pcontrol marks make no region: " + region.at("problem").get<std::string>()
                               : std::string("no MPI_Pcontrol marks");
    if (base) {
      std::string base_args = render(file_.cases[run.case_index].args, *base, "args");
      double zero = traced_replay(run, base_args, "baseline", out).at("predicted_time_s").get<double>();
      row.predicted_s = full - zero;
      row.cost_runs = "2 traced runs";
      row.note = fmt::format("replayed run minus replayed baseline ({}): the timed region ({})", base_args, no_marks);
      row.basis = kTimedRegion;
    } else {
      row.predicted_s = full;
      row.cost_runs = "1 traced run";
      row.note = "the whole replayed program (" + no_marks + ", no timed-region baseline: apps/" + run.app +
                 "/validate.toml)";
      row.basis = kWholeRunVsTimedRegion;
    }
    row.cost_s = seconds_since(start);
  }

  // The app's program model, analysed once per validation; the error repeats on
  // every row of the app when the analysis failed. With a models folder, a model
  // kept there from the same source text and flags, priced for the same CPU and
  // instruction cycles, is used as it is (a machine without clang validates with
  // models analysed elsewhere), and a new analysis is kept there. A kept model of
  // the same code priced for another CPU is analysed again; where that analysis
  // fails (no clang here), it is used, and every row's note says for what it was priced.
  const AppModel& model(const AppBindings& b, const std::string& app, double& analysis_s) {
    auto it = models_.find(app);
    if (it == models_.end()) {
      const AnalysisMachine& machine = analysis_machine();
      std::string origin = analysed_from(b);
      fs::path out = scratch_.path() / (app + ".model.json");
      fs::path kept, kept_origin;
      std::string kept_record;
      if (!tools_.models_dir.empty()) {
        kept = tools_.models_dir / (app + ".model.json");
        kept_origin = tools_.models_dir / (app + ".model.source");
        if (fs::exists(kept)) kept_record = read_file_or_empty(kept_origin);
        if (fs::exists(kept) && kept_record == origin + machine.record) {
          progress(fmt::format("  {}: the model kept in {}", app, tools_.models_dir.string()));
          analysis_s = 0;
          return models_.emplace(app, AppModel{kept, "", ""}).first->second;
        }
      }
      // The flags go last: a list option such as --branch-probability would swallow a
      // source that followed it.
      std::vector<std::string> args = {"analyze", b.source.string(), "-o", out.string()};
      if (machine.pass) {
        args.push_back("--machine");
        args.push_back(tools_.machine);
      }
      for (const std::string& f : b.analyze_flags) args.push_back(f);
      progress(fmt::format("  analysing {} (once per validation)", b.source.string()));
      auto start = std::chrono::steady_clock::now();
      ProcessResult r = perfcast(args);
      analysis_s = seconds_since(start);
      std::string error;
      if (r.timed_out)
        error = "perfcast analyze timed out";
      else if (r.exit_code != 0)
        error = "perfcast analyze: " + last_line(r.stderr_text);
      AppModel made{out, "", ""};
      if (!kept.empty()) {
        const bool same_code = kept_record.rfind(origin, 0) == 0;
        if (!error.empty() && same_code) {
          // The same code priced for another CPU or cycles: better than no model, and said.
          std::string priced = kept_record.substr(origin.size());
          if (!priced.empty() && priced.back() == '\n') priced.pop_back();
          progress(fmt::format("  {}: {}; the model kept in {} ({}) is used", app, error, tools_.models_dir.string(),
                               priced.empty() ? "priced for an unrecorded CPU" : priced));
          made = {kept, "", fmt::format("the kept model's in-core cycles are {}, not this machine's ({}): {}",
                                        priced.empty() ? "priced for an unrecorded CPU" : priced,
                                        machine.description, error)};
          error.clear();
        } else if (!error.empty() && fs::exists(kept)) {
          error += fmt::format(" (the model kept in {} was analysed from another source text or flags)",
                               tools_.models_dir.string());
        } else if (error.empty()) {
          fs::create_directories(tools_.models_dir);
          write_file_atomically(kept, read_file_or_empty(out));
          write_file_atomically(kept_origin, origin + machine.record);
          made.file = kept;
        }
      }
      made.error = error;
      it = models_.emplace(app, made).first;
    }
    if (!it->second.error.empty()) throw UserError(it->second.error);
    return it->second;
  }

  // What a kept model must have been analysed from: the source's CRC-32 and
  // size, and the analyse flags (headers the source includes are not covered).
  static std::string analysed_from(const AppBindings& b) {
    std::string text = read_file_or_empty(b.source);
    std::string flags;
    for (const std::string& f : b.analyze_flags) flags += " " + f;
    return fmt::format("{} crc32 {:08x} bytes {} flags{}\n", b.source.filename().string(),
                       perfcast_crc32(text.data(), text.size()), text.size(), flags);
  }

  // What the analysis takes from the machine file: the CPU its in-core work is
  // priced on (node.cpu) and the measured cycles put into that CPU's scheduling
  // model (node.instruction_cycles), passed as analyze --machine where its one
  // node group gives either. `record` is the kept model's second line, naming
  // both; a machine giving neither leaves the analysing host's CPU. Read once.
  const AnalysisMachine& analysis_machine() {
    if (analysis_machine_) return *analysis_machine_;
    AnalysisMachine a;
    std::string cpu, cycles;
    if (!tools_.machine.empty()) {
      const machine::Machine m = machine::load_machine_file(machine::find_machine_file(tools_.machine));
      if (m.groups.size() == 1) {
        const machine::NodeGroup& g = m.groups.front();
        cpu = g.cpu;
        for (const auto& field : machine::instruction_cycle_fields())
          if (g.instruction_cycles.*field.value > 0)
            cycles += fmt::format("{}{}={}", cycles.empty() ? "" : " ", field.key, g.instruction_cycles.*field.value);
        a.pass = !cpu.empty() || !cycles.empty();
      }
    }
    a.record = fmt::format("priced for cpu {} instruction_cycles {}\n", cpu.empty() ? "(the analysing host's)" : cpu,
                           cycles.empty() ? "(the CPU's own)" : cycles);
    a.description = fmt::format("{}{}", cpu.empty() ? "the analysing host's CPU" : cpu,
                                cycles.empty() ? "" : " with its measured instruction cycles");
    analysis_machine_ = a;
    return *analysis_machine_;
  }

  // predict's estimate `name` of the run (docs/json.md, "estimates"): "refined";
  // "noisy", the refined time under the machine file's measured noise; or
  // "simulated-noisy", the model's calls simulated under that noise (predict
  // --simulate). The noisy ones are absent where the file has no noise.
  double estimate(const fs::path& model_file, int ranks,
                  const std::vector<std::pair<std::string, std::string>>& params, const std::string& name) {
    std::vector<std::string> args = {"predict", model_file.string(),   "--machine", tools_.machine,
                                     "--np",    std::to_string(ranks), "--json"};
    if (name.rfind("simulated", 0) == 0) args.push_back("--simulate");
    for (const auto& [k, v] : params) {
      args.push_back("--param");
      args.push_back(k + "=" + v);
    }
    ProcessResult r = perfcast(args);
    check(r, "perfcast predict");
    const nlohmann::json j = parse_json(r, "perfcast predict");
    for (const nlohmann::json& e : j.value("estimates", nlohmann::json::array())) {
      if (e.value("name", "") != name) continue;
      if (e.contains("time_s") && e.at("time_s").is_number()) return e.at("time_s").get<double>();
      const std::string why = e.contains("unavailable") && e.at("unavailable").is_string()
                                  ? e.at("unavailable").get<std::string>()
                                  : "no reason given";
      if (why.find("no node.noise") != std::string::npos)
        throw UserError(fmt::format("{} has no `noise` (perfcast calibrate measures it): predict gives no {}",
                                    tools_.machine, name));
      throw UserError(fmt::format("predict gives no {}: {}", name, why));
    }
    throw UserError(fmt::format("perfcast predict --json lists no estimate named {}", name));
  }

  // The static methods: `estimate` is predict's refined time ("static"), its noisy
  // time ("static-noisy", the same model under the machine's measured noise) or the
  // model's calls simulated under that noise ("simulated-noisy"): the same cached
  // model and bindings, the run minus the baseline where the app has one.
  void static_model(const Run& run, Row& row, const std::string& key) {
    auto refined = [&](const fs::path& model_file, int ranks,
                       const std::vector<std::pair<std::string, std::string>>& params) {
      return estimate(model_file, ranks, params, key);
    };
    const std::string& label = key;
    const AppBindings* b = app_bindings(run.app);
    row.cost_runs = "none";
    if (!b) {
      row.note = fmt::format("no bindings (apps/{}/validate.toml)", run.app);
      return;
    }
    double analysis_s = 0;
    const AppModel& app_model = model(*b, run.app, analysis_s);
    const fs::path& model_file = app_model.file;
    auto start = std::chrono::steady_clock::now();
    std::vector<std::string> names, required;
    model_parameters(model_file, names, required);
    auto params = bind_parameters(*b, run.values);
    std::vector<std::string> missing;
    std::set<std::string> bound;
    for (const auto& [k, v] : params) {
      bound.insert(k);
      if (std::find(names.begin(), names.end(), k) == names.end()) missing.push_back(k);
    }
    if (!missing.empty()) {
      std::string list, have;
      for (const auto& m : missing) list += (list.empty() ? "" : ", ") + m;
      for (const auto& n : names) have += (have.empty() ? "" : ", ") + n;
      throw UserError(fmt::format("{} binds {} the model lacks; the model's parameters: {}",
                                  b->file.filename().string(), list, have));
    }
    // A recursion's invocations per call multiply all its work: a placeholder of 1 would
    // price one level of a V-cycle and drop the rest silently, so it must be bound.
    for (const std::string& n : recursion_counts(model_file))
      if (!bound.count(n))
        throw UserError(fmt::format("{} leaves {} unbound: the invocations of a recursive function per call from "
                                    "outside its recursion (docs/program-model.md, \"Recursion\"); bind it in "
                                    "[static.bind]",
                                    b->file.filename().string(), n),
                        {b->file.string(), std::nullopt, "static.bind"});
    // A required parameter left unbound is given 1 and named in the note, as the static
    // bench does: it should not matter to the timed region, and the note lets a reader
    // check. Parameters with a default (neighbours from MPI_Cart_shift) keep it.
    std::string unbound;
    for (const auto& n : required)
      if (!bound.count(n)) {
        params.emplace_back(n, "1");
        unbound += (unbound.empty() ? "" : ", ") + n;
      }
    double full = refined(model_file, run.ranks, params);
    std::optional<expr::Bindings> base = baseline_values(run, b);
    if (base) {
      auto base_params = bind_parameters(*b, *base);
      for (const auto& n : required)
        if (!bound.count(n)) base_params.emplace_back(n, "1");
      row.predicted_s = full - refined(model_file, run.ranks, base_params);
      row.note = label + ", run minus baseline (the timed region)";
      row.basis = kTimedRegion;
    } else {
      row.predicted_s = full;
      row.note = label + ", the whole program";
      row.basis = kWholeRunVsTimedRegion;
    }
    if (!app_model.note.empty()) row.note += "; " + app_model.note;
    int predicts = base ? 2 : 1;
    if (!unbound.empty()) {
      // Whether the placeholders matter: the run priced again with them at 2. A
      // prediction that moves is one the bindings do not determine.
      auto twos = params;
      for (auto& [k, v] : twos)
        if (!bound.count(k)) v = "2";
      double moved = full > 0 ? refined(model_file, run.ranks, twos) / full - 1 : 0;
      ++predicts;
      row.note +=
          fmt::format("; unbound, set to 1 (at 2 the run's prediction moves {:+.1f} %): {}", moved * 100, unbound);
    }
    row.cost_s = seconds_since(start);
    row.cost_runs = fmt::format("{} predict{}{}", predicts, predicts > 1 ? "s" : "",
                                analysis_s > 0 ? fmt::format(" + the app's one analysis ({:.1f} s)", analysis_s) : "");
  }

  void drop_trace(const Run& run) {
    auto it = traces_kept_.find(key_of(run.app, run.args, run.ranks, ""));
    if (it == traces_kept_.end()) return;
    fs::remove_all(it->second);
    traces_kept_.erase(it);
  }

  // The signature method (docs/signature.md): a signature built from one traced run,
  // then `perfcast signature run --compare` on the same launch. A signature predicts
  // the whole run (MPI_Init's return to MPI_Finalize, the slowest rank), not the app's
  // timed region, so the row compares it with the whole run that --compare measures
  // after it, and says so in `basis`; the cost is the signature run's alone.
  void signature(const Run& run, Row& row, Outcome& out) {
    auto start = std::chrono::steady_clock::now();
    std::string traced_by = "trace-replay's traced run";
    bool traced_here = false;
    fs::path trace;
    if (auto it = traces_kept_.find(key_of(run.app, run.args, run.ranks, "")); it != traces_kept_.end()) {
      trace = it->second;
    } else {
      trace = scratch_.path() / fmt::format("trace-signature-{}", ++traces_);
      std::vector<std::string> cmd = {"trace", "-o", trace.string(), "--"};
      for (const std::string& a : measure::mpirun_command(launch(run, run.args))) cmd.push_back(a);
      ++out.traced_runs;
      check(perfcast(cmd), "perfcast trace");
      traces_kept_[key_of(run.app, run.args, run.ranks, "")] = trace;
      traced_by = "1 traced run";
      traced_here = true;
    }
    double trace_s = seconds_since(start);
    fs::path sig = scratch_.path() / fmt::format("signature-{}.sig", traces_);
    auto build_start = std::chrono::steady_clock::now();
    check(perfcast({"signature", "build", trace.string(), "-o", sig.string()}), "perfcast signature build");
    double build_s = seconds_since(build_start);
    fs::path dir = scratch_.path() / fmt::format("signature-run-{}", traces_);
    std::vector<std::string> cmd = {"signature",
                                    "run",
                                    sig.string(),
                                    "-o",
                                    dir.string(),
                                    "--warmup",
                                    file_.settings.signature_warmup,
                                    "--measure",
                                    std::to_string(file_.settings.signature_measure),
                                    "--compare",
                                    "--json",
                                    "--"};
    for (const std::string& a : measure::mpirun_command(launch(run, run.args))) cmd.push_back(a);
    ProcessResult r = perfcast(cmd);
    check(r, "perfcast signature run");
    json result = parse_json(r, "perfcast signature run");
    fs::remove_all(dir);
    fs::remove(sig);
    const json& prediction = result.at("prediction");
    const json& compare = result.at("compare");
    bool stopped = result.value("stopped_early", false);
    double run_s = stopped ? result.at("reported_s").get<double>() : result.at("wall_s").get<double>();
    row.predicted_s = prediction.at("predicted_s").get<double>();
    row.measured_s = compare.at("measured_s").get<double>();
    row.measured_q1_s.reset();
    row.measured_q3_s.reset();
    row.basis = kWholeRun;
    // What a user pays: the trace (when this method made it), the build, the run up to
    // every rank's report. The --compare run is the validation's, not the method's.
    row.cost_s = (traced_here ? trace_s : 0) + build_s + run_s;
    row.cost_runs =
        fmt::format("{} + a signature run {} at {:.0f} % of a full run's wall time ({:.0f} % of the run executed)",
                    traced_by, stopped ? "stopped" : "that ran to its end", compare.at("cost").get<double>() * 100,
                    compare.at("executed_share").get<double>() * 100);
    row.note =
        fmt::format("the whole run (MPI_Init to MPI_Finalize), against one full run after it; warm-up {}, {} measured",
                    file_.settings.signature_warmup, file_.settings.signature_measure);
    if (!prediction.value("complete", true)) row.note += "; incomplete: some phases untimed on some ranks";
  }

  // The dataset the learned method predicts with: the case's, else the app's
  // validate.toml [learned] dataset; empty for none.
  fs::path learned_dataset(const Run& run) {
    if (!run.dataset.empty()) return run.dataset;
    const AppBindings* b = nullptr;
    b = app_bindings(run.app);  // a broken validate.toml fails the cell, naming it
    return b ? b->learned_dataset : fs::path();
  }

  // A learned model file from `perfcast learn -o`, or nullopt for feature records.
  static bool is_learned_model(const fs::path& file) {
    std::ifstream in(file);
    try {
      json j = json::parse(in);
      return j.is_object() && j.value("format", "") == "perfcast-learned-model";
    } catch (const std::exception&) {
      return false;  // JSON Lines records are not one document
    }
  }

  // The model of a dataset, trained once per validation (`perfcast learn`); the
  // error repeats on every row of the dataset when training failed.
  fs::path learned_model(const fs::path& dataset, double& train_s) {
    if (is_learned_model(dataset)) return dataset;
    auto it = learned_models_.find(dataset.string());
    if (it == learned_models_.end()) {
      fs::path out = scratch_.path() / fmt::format("learned-{}.json", learned_models_.size());
      progress(fmt::format("  learning from {} (once per validation)", dataset.string()));
      auto start = std::chrono::steady_clock::now();
      std::string error;
      fs::path records = dataset;
      if (dataset.extension() == ".gz") {
        // Record files are committed compressed; perfcast learn reads them plain.
        records = scratch_.path() / fmt::format("records-{}.jsonl", learned_models_.size());
        ProcessResult unzip = run_process({"gzip", "-dc", dataset.string()},
                                          std::chrono::duration<double>(file_.settings.timeout_s));
        if (unzip.exit_code != 0)
          error = "gzip -dc " + dataset.string() + ": " + last_line(unzip.stderr_text);
        else
          std::ofstream(records, std::ios::binary) << unzip.stdout_text;
      }
      if (error.empty()) {
        ProcessResult r = perfcast({"learn", records.string(), "-o", out.string()});
        if (r.timed_out)
          error = "perfcast learn timed out";
        else if (r.exit_code != 0)
          error = "perfcast learn " + dataset.string() + ": " + last_line(r.stderr_text);
      }
      train_s = seconds_since(start);
      it = learned_models_.emplace(dataset.string(), std::make_pair(out, error)).first;
    }
    if (!it->second.second.empty()) throw UserError(it->second.second);
    return it->second.first;
  }

  // The app built with the feature probes (perfcast-mpicc), once per validation.
  fs::path instrumented_app(const Run& run, double& build_s) {
    auto it = instrumented_.find(run.app);
    if (it == instrumented_.end()) {
      fs::path wrapper = tools_.build_dir / "bin" / "perfcast-mpicc";
      std::string error;
      fs::path out = scratch_.path() / (run.app + "_features");
      const AppBindings* b = app_bindings(run.app);
      if (!fs::exists(wrapper)) {
        error = fmt::format("no {} to build the app with feature probes (build the project)", wrapper.string());
      } else if (!b) {
        error = fmt::format("no source to build with feature probes (apps/{}/validate.toml [static] source)", run.app);
      } else {
        progress(fmt::format("  building {} with feature probes (once per validation)", run.app));
        auto start = std::chrono::steady_clock::now();
        std::vector<std::string> argv = {wrapper.string(), "-O2", b->source.string(), "-o", out.string(), "-lm"};
        argv.insert(argv.end(), b->learned_link.begin(), b->learned_link.end());
        ProcessResult r = run_process(argv, std::chrono::duration<double>(file_.settings.timeout_s));
        build_s = seconds_since(start);
        if (r.timed_out || r.exit_code != 0)
          error = fmt::format("perfcast-mpicc {}: {}", b->source.filename().string(),
                              r.timed_out ? "timed out" : last_line(r.stderr_text));
      }
      it = instrumented_.emplace(run.app, std::make_pair(out, error)).first;
    }
    if (!it->second.second.empty()) throw UserError(it->second.second);
    return it->second.first;
  }

  // The learned method (docs/learn.md): the case's run of the app built with feature
  // probes gives its features (`perfcast run`), and `perfcast learn predict` prices
  // them with the model learned from the dataset. Its time is the whole run's
  // (MPI_Init to MPI_Finalize, the records' time_s), compared with that run's own.
  void learned(const Run& run, Row& row) {
    row.cost_runs = "none";
    fs::path dataset = learned_dataset(run);
    if (dataset.empty()) {
      row.note = "no dataset (perfcast sweep builds one; name it as dataset in the case or apps/" + run.app +
                 "/validate.toml [learned])";
      return;
    }
    if (!fs::exists(dataset)) throw UserError(fmt::format("no dataset file {}", dataset.string()));
    double train_s = 0, build_s = 0;
    fs::path model_file = learned_model(dataset, train_s);
    fs::path app = instrumented_app(run, build_s);
    auto start = std::chrono::steady_clock::now();
    fs::path records = scratch_.path() / fmt::format("features-{}.jsonl", ++feature_runs_);
    measure::MpiLaunch l = launch(run, run.args);
    l.program.front() = app.string();
    std::vector<std::string> cmd = {"run", "--dataset", records.string(), "--"};
    for (const std::string& a : measure::mpirun_command(l)) cmd.push_back(a);
    check(perfcast(cmd), "perfcast run (features)");
    ProcessResult r = perfcast({"learn", "predict", model_file.string(), "--features", records.string(), "--json"});
    fs::remove(records);
    check(r, "perfcast learn predict");
    json predictions = parse_json(r, "perfcast learn predict").at("predictions");
    if (!predictions.is_array() || predictions.size() != 1)
      throw UserError("perfcast learn predict gave no single prediction for the run's record");
    row.predicted_s = predictions[0].at("time_s").get<double>();
    if (predictions[0].contains("measured_s") && predictions[0]["measured_s"].is_number()) {
      row.measured_s = predictions[0]["measured_s"].get<double>();
      row.measured_q1_s.reset();
      row.measured_q3_s.reset();
      row.basis = kWholeRun;
    } else {
      row.basis = kWholeRunVsTimedRegion;
    }
    row.cost_s = seconds_since(start);
    std::string once;
    if (train_s > 0) once += fmt::format(" + the dataset's one training ({:.1f} s)", train_s);
    if (build_s > 0) once += fmt::format(" + the app's one instrumented build ({:.1f} s)", build_s);
    row.cost_runs = "1 instrumented run (the features) + 1 predict" + once;
    row.note = fmt::format("the whole run (MPI_Init to MPI_Finalize) of the instrumented app, model from {}",
                           dataset.filename().string());
  }

  // The parameters that count a recursive function's invocations per call from outside
  // its recursion: the coverage's unknown loops marked `recursion` (docs/json.md).
  static std::vector<std::string> recursion_counts(const fs::path& model_file) {
    std::vector<std::string> out;
    json model = json::parse(read_file_or_empty(model_file), nullptr, false);
    if (!model.is_object() || !model.contains("coverage")) return out;
    for (const json& l : model["coverage"].value("unknown_loops", json::array()))
      if (l.value("recursion", false) && l.contains("trip_count")) out.push_back(l["trip_count"].get<std::string>());
    return out;
  }

  // Every parameter of the model, and those without a default.
  void model_parameters(const fs::path& model_file, std::vector<std::string>& names,
                        std::vector<std::string>& required) {
    ProcessResult r = perfcast({"model", "params", model_file.string(), "--json"});
    check(r, "perfcast model params");
    for (const json& p : parse_json(r, "perfcast model params")) {
      names.push_back(p.at("name").get<std::string>());
      if (!p.contains("default")) required.push_back(names.back());
    }
  }

  const CasesFile& file_;
  const Tools& tools_;
  const Options& options_;
  ScratchDirectory scratch_;
  int traces_ = 0;
  std::map<std::string, fs::path> traces_kept_;  // key_of(app, args, ranks, ""): trace-replay's trace of the run
  std::map<std::string, Row> done_;              // key_of(app, args, ranks, method)
  std::map<std::string, Row> measured_;          // key_of(app, args, ranks, "")
  std::map<std::string, std::pair<std::optional<AppBindings>, std::string>> bindings_;  // app -> file, error
  std::map<std::string, AppModel> models_;                                              // app -> its model
  std::optional<AnalysisMachine> analysis_machine_;
  std::map<std::string, std::pair<fs::path, std::string>> learned_models_;              // dataset -> model, error
  std::map<std::string, std::pair<fs::path, std::string>> instrumented_;                // app -> binary, error
  int feature_runs_ = 0;
};

}  // namespace

json to_json(const Row& r) {
  json per_rank = json::array();
  for (const RankTimes& t : r.per_rank)
    per_rank.push_back({{"rank", t.rank}, {"calc_s", t.calc_s}, {"wait_s", t.wait_s}, {"comm_s", t.comm_s}});
  return {{"app", r.app},
          {"size", r.size},
          {"args", r.args},
          {"ranks", r.ranks},
          {"method", r.method},
          {"machine", r.machine},
          {"measured_s", optional_number(r.measured_s)},
          {"measured_q1_s", optional_number(r.measured_q1_s)},
          {"measured_q3_s", optional_number(r.measured_q3_s)},
          {"predicted_s", optional_number(r.predicted_s)},
          {"error", optional_number(r.error)},
          {"cost_s", r.cost_s},
          {"cost_runs", r.cost_runs},
          {"oversubscribed", r.oversubscribed},
          {"note", r.note},
          {"basis", r.basis},
          {"resumed", r.resumed},
          {"per_rank", per_rank}};
}

Row row_from_json(const json& j) {
  if (!j.is_object()) throw UserError("expected a JSON object");
  Row r;
  try {
    r.app = j.at("app").get<std::string>();
    r.size = j.value("size", "");
    r.args = j.at("args").get<std::string>();
    r.ranks = j.at("ranks").get<int>();
    r.method = j.at("method").get<std::string>();
    r.machine = j.value("machine", "");
    r.cost_s = j.value("cost_s", 0.0);
    r.cost_runs = j.value("cost_runs", "");
    r.oversubscribed = j.value("oversubscribed", false);
    r.note = j.value("note", "");
    r.basis = j.value("basis", "");  // "" in rows written before the field existed
    // Results files written before rows carried per-rank times have none.
    if (j.contains("per_rank"))
      for (const json& t : j.at("per_rank"))
        r.per_rank.push_back({t.at("rank").get<int>(), t.at("calc_s").get<double>(), t.at("wait_s").get<double>(),
                              t.at("comm_s").get<double>()});
  } catch (const json::exception& e) {
    throw UserError(e.what());
  }
  r.measured_s = number_field(j, "measured_s");
  r.measured_q1_s = number_field(j, "measured_q1_s");
  r.measured_q3_s = number_field(j, "measured_q3_s");
  r.predicted_s = number_field(j, "predicted_s");
  r.error = number_field(j, "error");
  return r;
}

Outcome run_validation(const CasesFile& file, const Tools& tools, const Options& options) {
  return Validation(file, tools, options).run();
}

int keep_models(const CasesFile& file, const Tools& tools, const Options& options) {
  if (tools.models_dir.empty()) throw std::logic_error("keep_models needs Tools::models_dir");
  return Validation(file, tools, options).keep_models();
}

}  // namespace perfcast::validate
