// A sweep submitted to Slurm as one job array (`perfcast sweep --slurm`,
// docs/learn.md "Sweeps on Slurm"): the points still missing from the dataset
// become the array's tasks, each running its point with `perfcast run --label`,
// which appends the point's record under flock, so tasks ending together are
// safe. Everything lives in a work directory: `submission.json` (the job and
// every point of the sweep), `sweep.sbatch` (the script given to sbatch) and
// `logs/` (each task's output and exit status). The dataset and the work
// directory must be on a filesystem every node sees.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace perfcast::learn {

struct SlurmOptions {
  std::string partition;                    // empty: the cluster's default
  std::string time_limit;                   // sbatch --time per task; empty: the partition's
  std::optional<size_t> max_parallel;       // the array's %N: at most N tasks at once
  std::vector<std::string> sbatch_options;  // given to sbatch as they are, before the script
};

struct SlurmSweepPoint {
  std::string label;                 // the sweep point, as its record's `label`
  std::vector<std::string> command;  // the point's command (the template filled in)
  bool done = false;                 // its record is already in the dataset: not submitted
};

struct SlurmSubmission {
  std::filesystem::path work_dir;       // absolute
  std::filesystem::path dataset;        // absolute
  std::filesystem::path perfcast;       // the perfcast the tasks run, absolute
  std::filesystem::path run_dir;        // the tasks' working directory (the submitter's)
  std::vector<SlurmSweepPoint> points;  // every point of the sweep, in the sweep's order
  SlurmOptions options;
};

// Words quoted for bash: 'word', a ' inside written '\''.
std::string shell_quote(const std::string& word);

// The sbatch script: `#SBATCH --array=0-K[%N]` over the points not done, in
// order, and a `case` on SLURM_ARRAY_TASK_ID giving each task its label and
// command. Each task writes its exit status to logs/JOB_INDEX.status.
std::string slurm_array_script(const SlurmSubmission& submission);

// How many of an earlier array's queued tasks (index -> state) run a point not
// yet recorded: a task missing from label_of_task counts, one whose label is
// in recorded (still completing after it wrote its record) does not.
size_t queued_tasks_not_recorded(const std::map<size_t, std::string>& queue,
                                 const std::map<size_t, std::string>& label_of_task,
                                 const std::set<std::string>& recorded);

// Writes the work directory and submits the script with `sbatch --parsable`;
// returns the job id. UserError when no point is left to run, when sbatch is
// not on PATH or refuses (its stderr quoted), or when an array this work
// directory submitted earlier still has tasks in the queue for points not yet in the dataset.
std::string submit_slurm_array(const SlurmSubmission& submission);

// Where a point stands.
enum class SlurmPointState { done, pending, running, failed, unknown };
const char* to_string(SlurmPointState state);

struct SlurmPointStatus {
  std::string label;
  std::optional<size_t> task;  // its array index; none when it was done before submission
  SlurmPointState state = SlurmPointState::unknown;
  std::string detail;         // why failed, the queue's state, ...
  std::filesystem::path log;  // the task's output, when it ran
};

struct SlurmArrayStatus {
  std::string job_id;
  std::filesystem::path dataset;
  std::vector<SlurmPointStatus> points;
  std::vector<std::string> notes;  // what could not be asked (no squeue, no accounting)
  size_t count(SlurmPointState state) const;
};

// What the status is made of, gathered apart so the rule is one pure function.
struct SlurmObservations {
  std::set<std::string> recorded_labels;               // labels the dataset holds
  std::optional<std::map<size_t, std::string>> queue;  // task -> squeue state; none: squeue unusable
  std::map<size_t, std::string> accounting;            // task -> sacct state (empty without accounting)
  std::map<size_t, int> exit_statuses;                 // task -> the status its script wrote
};

// A point is pending or running while the queue holds its task (a task that
// recorded its point and is completing is still running); else done once its
// label is recorded; else failed when its task wrote a status or accounting
// saw it end (a status 0 with no record is a failure too); else failed as
// ended without a status (time limit, cancelled, node failure) when the queue
// was asked, unknown when it could not be.
std::vector<SlurmPointStatus> classify_slurm_points(const std::vector<SlurmSweepPoint>& points,
                                                    const std::string& job_id, const std::filesystem::path& work_dir,
                                                    const SlurmObservations& seen);

// `squeue -h -r -j JOB -o "%i %T"` lines ("12_3 PENDING") -> task -> state.
std::map<size_t, std::string> parse_squeue_tasks(const std::string& text, const std::string& job_id);
// `sacct -n -P -X -j JOB -o JobID,State` lines ("12_3|FAILED") -> task -> state.
std::map<size_t, std::string> parse_sacct_tasks(const std::string& text, const std::string& job_id);

// Reads the work directory, the dataset, squeue and sacct (when they answer).
SlurmArrayStatus slurm_array_status(const std::filesystem::path& work_dir);

}  // namespace perfcast::learn
