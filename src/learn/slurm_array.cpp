#include "learn/slurm_array.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "learn/feature_records.h"
#include "support/error.h"
#include "support/output_file.h"
#include "support/process.h"
#include "support/file_text.h"

namespace perfcast::learn {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kSubmissionFile = "submission.json";
constexpr const char* kScriptFile = "sweep.sbatch";
constexpr auto kQueryTimeout = std::chrono::seconds(60);

// The full path of a program PATH finds, or none.
std::optional<fs::path> on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  return std::nullopt;
}

// A value on an #SBATCH line: sbatch reads double-quoted arguments whole, but
// has no escape for a " inside one.
std::string sbatch_quote(const std::string& value, const std::string& what) {
  if (value.find_first_of("\"\n") != std::string::npos)
    throw UserError(
        fmt::format("{} '{}' holds a double quote or a newline, which an #SBATCH line cannot carry", what, value), {},
        "choose a path without them");
  return "\"" + value + "\"";
}

fs::path log_path(const fs::path& work_dir, const std::string& job_id, size_t task, const char* extension) {
  return work_dir / "logs" / fmt::format("{}_{}.{}", job_id, task, extension);
}

std::string task_id(const std::string& job_id, const std::string& field) {
  // "12_3" for one task; squeue also prints "12_[4-7%2]" for pending ranges without -r.
  if (field.size() <= job_id.size() + 1 || field.compare(0, job_id.size(), job_id) != 0 || field[job_id.size()] != '_')
    return "";
  return field.substr(job_id.size() + 1);
}

std::optional<size_t> task_number(const std::string& text) {
  size_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::map<size_t, std::string> parse_task_lines(const std::string& text, const std::string& job_id, char separator) {
  std::map<size_t, std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    size_t cut = line.find(separator);
    if (cut == std::string::npos) continue;
    auto task = task_number(task_id(job_id, line.substr(0, cut)));
    std::string state = line.substr(cut + 1);
    while (!state.empty() && std::isspace(static_cast<unsigned char>(state.back()))) state.pop_back();
    // sacct writes "CANCELLED by 0"; the first word is the state.
    state = state.substr(0, state.find(' '));
    if (task && !state.empty()) out[*task] = state;
  }
  return out;
}

// The queue's tasks of a job, or none when squeue is missing or fails.
std::optional<std::map<size_t, std::string>> queued_tasks(const std::string& job_id, std::string& why_not) {
  if (!on_path("squeue")) {
    why_not = "squeue is not on PATH: queued points show as unknown";
    return std::nullopt;
  }
  ProcessResult r = run_process({"squeue", "-h", "-r", "-j", job_id, "-o", "%i %T"}, kQueryTimeout);
  // A job that has left the queue is "Invalid job id" with status 1 on some releases.
  if (r.exit_code != 0 && r.stderr_text.find("Invalid job id") == std::string::npos) {
    why_not = fmt::format("squeue failed (status {}): {}", r.exit_code, r.stderr_text);
    while (!why_not.empty() && why_not.back() == '\n') why_not.pop_back();
    return std::nullopt;
  }
  return parse_squeue_tasks(r.exit_code == 0 ? r.stdout_text : "", job_id);
}

std::vector<std::string> command_of(const json& words) {
  std::vector<std::string> out;
  for (const auto& w : words) out.push_back(w.get<std::string>());
  return out;
}

}  // namespace

std::string shell_quote(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string slurm_array_script(const SlurmSubmission& s) {
  std::vector<const SlurmSweepPoint*> tasks;
  for (const auto& p : s.points)
    if (!p.done) tasks.push_back(&p);
  if (tasks.empty()) throw UserError("every point of the sweep is in the dataset; nothing to submit");
  std::string array = fmt::format("0-{}", tasks.size() - 1);
  if (s.options.max_parallel) array += fmt::format("%{}", *s.options.max_parallel);

  std::string out = "#!/bin/bash\n";
  out += "# Written by `perfcast sweep --slurm`: one array task per sweep point missing from the dataset.\n";
  out += "# Each task runs its point with `perfcast run --label`, which appends the point's record to the\n";
  out += "# dataset under flock; the dataset and this directory must be on a filesystem every node sees.\n";
  out += "#SBATCH --job-name=perfcast-sweep\n";
  out += fmt::format("#SBATCH --array={}\n", array);
  out += fmt::format("#SBATCH --output={}\n",
                     sbatch_quote((s.work_dir / "logs" / "%A_%a.out").string(), "the work directory"));
  out += fmt::format("#SBATCH --chdir={}\n", sbatch_quote(s.run_dir.string(), "the working directory"));
  if (!s.options.partition.empty())
    out += fmt::format("#SBATCH --partition={}\n", sbatch_quote(s.options.partition, "the partition"));
  if (!s.options.time_limit.empty())
    out += fmt::format("#SBATCH --time={}\n", sbatch_quote(s.options.time_limit, "the time limit"));
  out += "\ncase \"${SLURM_ARRAY_TASK_ID:?submit this script with sbatch}\" in\n";
  for (size_t i = 0; i < tasks.size(); ++i) {
    out += fmt::format("  {}) label={}; command=(", i, shell_quote(tasks[i]->label));
    for (size_t w = 0; w < tasks[i]->command.size(); ++w) out += (w ? " " : "") + shell_quote(tasks[i]->command[w]);
    out += ") ;;\n";
  }
  out += "  *) echo \"perfcast sweep: no point for task $SLURM_ARRAY_TASK_ID\" >&2; exit 2 ;;\n";
  out += "esac\n\n";
  out += fmt::format("{} run --dataset {} --label \"$label\" -- \"${{command[@]}}\"\n",
                     shell_quote(s.perfcast.string()), shell_quote(s.dataset.string()));
  out += "status=$?\n";
  out += fmt::format("echo \"$status\" > {}\"/${{SLURM_ARRAY_JOB_ID}}_${{SLURM_ARRAY_TASK_ID}}.status\"\n",
                     shell_quote((s.work_dir / "logs").string()));
  out += "exit \"$status\"\n";
  return out;
}

size_t queued_tasks_not_recorded(const std::map<size_t, std::string>& queue,
                                 const std::map<size_t, std::string>& label_of_task,
                                 const std::set<std::string>& recorded) {
  size_t out = 0;
  for (const auto& entry : queue) {
    auto label = label_of_task.find(entry.first);
    if (label == label_of_task.end() || !recorded.count(label->second)) ++out;
  }
  return out;
}

std::string submit_slurm_array(const SlurmSubmission& s) {
  const std::string script = slurm_array_script(s);  // refuses an empty array first
  std::optional<fs::path> sbatch = on_path("sbatch");
  if (!sbatch)
    throw UserError("sbatch is not on PATH", {"", std::nullopt, "--slurm"},
                    "run on a Slurm login node (Debian: slurm-client), or drop --slurm to run the sweep here");

  // An array this directory submitted before may still be running points that
  // are not recorded yet: submitting them again would run them twice.
  const fs::path record = s.work_dir / kSubmissionFile;
  if (fs::exists(record)) {
    std::string earlier;
    std::map<size_t, std::string> label_of_task;
    try {
      json j = json::parse(read_file_or_empty(record));
      earlier = j.at("job_id").get<std::string>();
      for (const auto& p : j.value("points", json::array()))
        if (p.contains("task") && p.at("task").is_number_unsigned())
          label_of_task[p.at("task").get<size_t>()] = p.at("label").get<std::string>();
    } catch (const json::exception& e) {
      throw UserError(fmt::format("{}: not a submission record: {}", record.string(), e.what()), {},
                      "remove the work directory, or name another with --slurm-dir");
    }
    // A task whose point is already in the dataset may still be in the queue
    // (completing after it recorded): it cannot run its point twice. The
    // dataset was read before the queue, so a task recording in between is
    // still counted.
    std::set<std::string> recorded;
    for (const auto& p : s.points)
      if (p.done) recorded.insert(p.label);
    std::string why_not;
    auto queued = queued_tasks(earlier, why_not);
    const size_t unrecorded = queued ? queued_tasks_not_recorded(*queued, label_of_task, recorded) : 0;
    if (unrecorded)
      throw UserError(fmt::format("job {}, submitted from {}, still has {} tasks in the queue", earlier,
                                  s.work_dir.string(), unrecorded),
                      {"", std::nullopt, "--slurm"},
                      fmt::format("wait for it (perfcast sweep --slurm-status {}) or cancel it (scancel {})",
                                  s.work_dir.string(), earlier));
  }

  std::error_code ec;
  fs::create_directories(s.work_dir / "logs", ec);
  if (ec)
    throw UserError(fmt::format("cannot create {}: {}", (s.work_dir / "logs").string(), ec.message()),
                    {"", std::nullopt, "--slurm-dir"});
  write_file_atomically(s.work_dir / kScriptFile, script);

  std::vector<std::string> argv = {sbatch->string(), "--parsable"};
  argv.insert(argv.end(), s.options.sbatch_options.begin(), s.options.sbatch_options.end());
  argv.push_back((s.work_dir / kScriptFile).string());
  ProcessResult r = run_process(argv, kQueryTimeout);
  std::string answer = r.stdout_text;
  while (!answer.empty() && std::isspace(static_cast<unsigned char>(answer.back()))) answer.pop_back();
  // --parsable prints "JOBID" or "JOBID;CLUSTER".
  std::string job_id = answer.substr(0, answer.find(';'));
  if (r.exit_code != 0 || job_id.empty() || !task_number(job_id))
    throw UserError(fmt::format("sbatch refused {} (status {}): {}", (s.work_dir / kScriptFile).string(),
                                r.timed_out ? "timed out" : std::to_string(r.exit_code),
                                r.stderr_text.empty() ? answer : r.stderr_text),
                    {"", std::nullopt, "--slurm"}, "check the --slurm-* options against the cluster (sinfo)");

  json points = json::array();
  size_t task = 0;
  for (const auto& p : s.points) {
    json point = {{"label", p.label}, {"command", p.command}};
    point["task"] = p.done ? json(nullptr) : json(task++);
    points.push_back(point);
  }
  json submission = {{"format", "perfcast-slurm-sweep"}, {"version", 1},          {"job_id", job_id},
                     {"dataset", s.dataset.string()},    {"script", kScriptFile}, {"points", points}};
  write_file_atomically(record, submission.dump(1) + "\n");
  return job_id;
}

const char* to_string(SlurmPointState state) {
  switch (state) {
    case SlurmPointState::done:
      return "done";
    case SlurmPointState::pending:
      return "pending";
    case SlurmPointState::running:
      return "running";
    case SlurmPointState::failed:
      return "failed";
    case SlurmPointState::unknown:
      return "unknown";
  }
  return "unknown";
}

size_t SlurmArrayStatus::count(SlurmPointState state) const {
  return static_cast<size_t>(
      std::count_if(points.begin(), points.end(), [&](const auto& p) { return p.state == state; }));
}

std::map<size_t, std::string> parse_squeue_tasks(const std::string& text, const std::string& job_id) {
  return parse_task_lines(text, job_id, ' ');
}

std::map<size_t, std::string> parse_sacct_tasks(const std::string& text, const std::string& job_id) {
  return parse_task_lines(text, job_id, '|');
}

std::vector<SlurmPointStatus> classify_slurm_points(const std::vector<SlurmSweepPoint>& points,
                                                    const std::string& job_id, const fs::path& work_dir,
                                                    const SlurmObservations& seen) {
  std::vector<SlurmPointStatus> out;
  size_t next_task = 0;
  for (const auto& p : points) {
    SlurmPointStatus st;
    st.label = p.label;
    if (!p.done) {
      st.task = next_task++;
      st.log = log_path(work_dir, job_id, *st.task, "out");
    }
    // A task still in the queue is running, even once its record is in
    // (completing): the array is not over until the queue lets it go.
    if (st.task && seen.queue && seen.queue->count(*st.task)) {
      const std::string& q = seen.queue->at(*st.task);
      st.state = q == "PENDING" ? SlurmPointState::pending : SlurmPointState::running;
      st.detail = q;
    } else if (seen.recorded_labels.count(p.label)) {
      st.state = SlurmPointState::done;
    } else if (!st.task) {
      st.state = SlurmPointState::failed;
      st.detail = "recorded before the submission, but its record is no longer in the dataset";
    } else if (seen.exit_statuses.count(*st.task)) {
      int status = seen.exit_statuses.at(*st.task);
      st.state = SlurmPointState::failed;
      st.detail = status == 0 ? "exited with status 0 but its record is not in the dataset"
                              : fmt::format("perfcast run exited with status {}", status);
    } else if (seen.accounting.count(*st.task) && seen.accounting.at(*st.task) != "PENDING" &&
               seen.accounting.at(*st.task) != "RUNNING") {
      st.state = SlurmPointState::failed;
      st.detail = fmt::format("ended {} without recording", seen.accounting.at(*st.task));
    } else if (seen.queue) {
      st.state = SlurmPointState::failed;
      st.detail = "left the queue without writing its status (time limit, cancelled, or node failure)";
    } else {
      st.state = SlurmPointState::unknown;
    }
    out.push_back(std::move(st));
  }
  return out;
}

SlurmArrayStatus slurm_array_status(const fs::path& work_dir) {
  const fs::path record = work_dir / kSubmissionFile;
  if (!fs::exists(record))
    throw UserError(fmt::format("{} does not exist", record.string()), {"", std::nullopt, "--slurm-status"},
                    "name the work directory `perfcast sweep --slurm` printed");
  SlurmArrayStatus status;
  std::vector<SlurmSweepPoint> points;
  try {
    json j = json::parse(read_file_or_empty(record));
    if (j.value("format", "") != "perfcast-slurm-sweep")
      throw UserError(fmt::format("{}: 'format': expected \"perfcast-slurm-sweep\"", record.string()));
    status.job_id = j.at("job_id").get<std::string>();
    status.dataset = j.at("dataset").get<std::string>();
    for (const auto& p : j.at("points"))
      points.push_back({p.at("label").get<std::string>(), command_of(p.at("command")), p.at("task").is_null()});
  } catch (const json::exception& e) {
    throw UserError(fmt::format("{}: not a submission record: {}", record.string(), e.what()), {},
                    "it is written by `perfcast sweep --slurm`; submit again to rewrite it");
  }

  // The queue first, the dataset last: a task that ends in between is seen
  // recorded rather than lost.
  SlurmObservations seen;
  std::string why_not;
  seen.queue = queued_tasks(status.job_id, why_not);
  if (!why_not.empty()) status.notes.push_back(why_not);
  if (on_path("sacct")) {
    ProcessResult r = run_process({"sacct", "-n", "-P", "-X", "-j", status.job_id, "-o", "JobID,State"}, kQueryTimeout);
    if (r.exit_code == 0) seen.accounting = parse_sacct_tasks(r.stdout_text, status.job_id);
  }
  size_t task = 0;
  for (const auto& p : points) {
    if (p.done) continue;
    fs::path file = log_path(work_dir, status.job_id, task, "status");
    std::ifstream in(file);
    int code = 0;
    if (in >> code) seen.exit_statuses[task] = code;
    ++task;
  }
  if (fs::exists(status.dataset)) {
    RecordFile file = parse_feature_records(read_file_or_empty(status.dataset), status.dataset.string());
    for (const auto& r : file.records) seen.recorded_labels.insert(r.label);
  }
  status.points = classify_slurm_points(points, status.job_id, work_dir, seen);
  return status;
}

}  // namespace perfcast::learn
