// A sweep's Slurm job array without a cluster: the script (its array range,
// its words quoted as bash reads them back, only the points not yet
// recorded), squeue's and sacct's lines read, and the rule that says where a
// point stands. tests/features/test_sweep_slurm.cpp submits to a real Slurm.
#include <gtest/gtest.h>

#include "learn/slurm_array.h"
#include "support/error.h"
#include "support/process.h"

namespace perfcast::learn {
namespace {

namespace fs = std::filesystem;

SlurmSubmission three_points() {
  SlurmSubmission s;
  s.work_dir = "/shared/sweep dir";
  s.dataset = "/shared/runs.jsonl";
  s.perfcast = "/opt/perfcast/bin/perfcast";
  s.run_dir = "/shared/app";
  s.points = {{"np=1 n=8", {"mpirun.openmpi", "-n", "1", "./app", "8"}, false},
              {"np=2 n=8", {"mpirun.openmpi", "-n", "2", "./app", "8"}, true},
              {"np=1 n=16", {"mpirun.openmpi", "-n", "1", "./app", "it's 16"}, false},
              {"np=2 n=16", {"mpirun.openmpi", "-n", "2", "./app", "16"}, false}};
  return s;
}

TEST(SlurmArray, BashReadsQuotedWordsBack) {
  const std::vector<std::string> words = {"plain", "two words", "it's", "$HOME", "`date`", "a\\b", "\"q\"", ""};
  std::string line = "printf '<%s>\\n'";
  std::string expected;
  for (const auto& w : words) {
    line += " " + shell_quote(w);
    expected += "<" + w + ">\n";
  }
  ProcessResult r = run_process({"bash", "-c", line}, std::chrono::seconds(30));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_EQ(r.stdout_text, expected);
}

TEST(SlurmArray, ScriptHasOneTaskPerPointNotRecorded) {
  SlurmSubmission s = three_points();
  s.options.max_parallel = 2;
  s.options.time_limit = "5";
  s.options.partition = "debug";
  std::string script = slurm_array_script(s);
  EXPECT_NE(script.find("#SBATCH --array=0-2%2\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --output=\"/shared/sweep dir/logs/%A_%a.out\"\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --chdir=\"/shared/app\"\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --time=\"5\"\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --partition=\"debug\"\n"), std::string::npos) << script;
  EXPECT_NE(script.find("  0) label='np=1 n=8';"), std::string::npos) << script;
  EXPECT_NE(script.find("  1) label='np=1 n=16'; command=('mpirun.openmpi' '-n' '1' './app' 'it'\\''s 16') ;;"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("  2) label='np=2 n=16';"), std::string::npos) << script;
  EXPECT_EQ(script.find("np=2 n=8"), std::string::npos) << "a recorded point is not submitted\n" << script;
  EXPECT_NE(script.find("'/opt/perfcast/bin/perfcast' run --dataset '/shared/runs.jsonl' --label \"$label\""),
            std::string::npos)
      << script;
  ProcessResult syntax = run_process({"bash", "-n", "-c", script}, std::chrono::seconds(30));
  EXPECT_EQ(syntax.exit_code, 0) << syntax.stderr_text;
}

TEST(SlurmArray, NothingToSubmitAndUnquotablePathsAreErrors) {
  SlurmSubmission s = three_points();
  for (auto& p : s.points) p.done = true;
  EXPECT_THROW(slurm_array_script(s), UserError);
  s = three_points();
  s.work_dir = "/shared/a\"b";
  try {
    slurm_array_script(s);
    FAIL() << "a double quote in an #SBATCH path was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("double quote"), std::string::npos) << e.what();
  }
}

TEST(SlurmArray, ReadsSqueueAndSacctLines) {
  auto queue = parse_squeue_tasks("12_0 RUNNING\n12_3 PENDING\n120_1 RUNNING\n12_[4-5] PENDING\n", "12");
  EXPECT_EQ(queue, (std::map<size_t, std::string>{{0, "RUNNING"}, {3, "PENDING"}}));
  auto accounting = parse_sacct_tasks("12_0|COMPLETED\n12_1|CANCELLED by 0\n12_2|TIMEOUT\n13_2|FAILED\n", "12");
  EXPECT_EQ(accounting, (std::map<size_t, std::string>{{0, "COMPLETED"}, {1, "CANCELLED"}, {2, "TIMEOUT"}}));
}

TEST(SlurmArray, AQueuedTaskWhosePointIsRecordedDoesNotBlockASubmission) {
  const std::map<size_t, std::string> label_of_task = {{0, "np=1"}, {1, "np=2"}};
  // Task 0 recorded its point and is completing: nothing of it can run twice.
  EXPECT_EQ(queued_tasks_not_recorded({{0, "COMPLETING"}}, label_of_task, {"np=1"}), 0u);
  EXPECT_EQ(queued_tasks_not_recorded({{0, "COMPLETING"}, {1, "PENDING"}}, label_of_task, {"np=1"}), 1u);
  // A task the record does not name is counted: it may run anything.
  EXPECT_EQ(queued_tasks_not_recorded({{5, "RUNNING"}}, label_of_task, {"np=1", "np=2"}), 1u);
  EXPECT_EQ(queued_tasks_not_recorded({}, label_of_task, {}), 0u);
}

TEST(SlurmArray, PointStatesFollowDatasetQueueStatusAndAccounting) {
  SlurmSubmission s = three_points();
  s.points.push_back({"np=4 n=16", {"x"}, false});  // task 3
  s.points.push_back({"np=4 n=32", {"x"}, false});  // task 4
  SlurmObservations seen;
  seen.recorded_labels = {"np=2 n=8", "np=1 n=8"};
  seen.queue = std::map<size_t, std::string>{{1, "PENDING"}, {2, "RUNNING"}};
  seen.exit_statuses = {{3, 1}};
  auto st = classify_slurm_points(s.points, "7", s.work_dir, seen);
  ASSERT_EQ(st.size(), 6u);
  EXPECT_EQ(st[0].state, SlurmPointState::done);
  EXPECT_EQ(st[0].task, 0u);
  EXPECT_EQ(st[1].state, SlurmPointState::done);
  EXPECT_FALSE(st[1].task.has_value());
  EXPECT_EQ(st[2].state, SlurmPointState::pending);
  EXPECT_EQ(st[3].state, SlurmPointState::running);
  EXPECT_EQ(st[4].state, SlurmPointState::failed);
  EXPECT_EQ(st[4].detail, "perfcast run exited with status 1");
  EXPECT_EQ(st[4].log, fs::path("/shared/sweep dir/logs/7_3.out"));
  EXPECT_EQ(st[5].state, SlurmPointState::failed);
  EXPECT_NE(st[5].detail.find("without writing its status"), std::string::npos) << st[5].detail;

  // A task that recorded its point but is still completing in the queue is
  // running until the queue lets it go: the array is not over.
  seen.queue = std::map<size_t, std::string>{{0, "COMPLETING"}};
  auto completing = classify_slurm_points(s.points, "7", s.work_dir, seen);
  EXPECT_EQ(completing[0].state, SlurmPointState::running);
  EXPECT_EQ(completing[0].detail, "COMPLETING");
  EXPECT_EQ(completing[1].state, SlurmPointState::done);  // recorded before the submission
  seen.queue = std::map<size_t, std::string>{{1, "PENDING"}, {2, "RUNNING"}};

  // Accounting names the end when the task wrote nothing; without squeue the
  // rest is unknown rather than failed.
  seen.accounting = {{4, "TIMEOUT"}};
  EXPECT_EQ(classify_slurm_points(s.points, "7", s.work_dir, seen)[5].detail, "ended TIMEOUT without recording");
  seen.accounting.clear();
  seen.queue.reset();
  auto blind = classify_slurm_points(s.points, "7", s.work_dir, seen);
  EXPECT_EQ(blind[2].state, SlurmPointState::unknown);
  EXPECT_EQ(blind[5].state, SlurmPointState::unknown);
  EXPECT_EQ(blind[4].state, SlurmPointState::failed);
}

}  // namespace
}  // namespace perfcast::learn
