// `perfcast sweep --slurm` against a real Slurm: each test starts its own
// one-node cluster (slurmctld and slurmd from Debian's slurm-wlm, as children
// of the test, with a slurm.conf, state and spool in the test's scratch
// directory, free ports, auth/none so no munge daemon is needed), submits a
// sweep of probe.c built with the feature probes, waits for the job array and
// checks that the dataset holds each point's record exactly once (and, one
// record lost, that only its point is submitted again); then the
// failures: a held array that must not be submitted twice, a point that
// fails, a partition sbatch refuses, no sbatch at all.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/mpirun_command.h"
#include "learn/feature_records.h"
#include "scratch.h"
#include "support/process.h"

extern char** environ;

namespace perfcast {
namespace {

namespace fs = std::filesystem;
using testing::scratch;

const std::string kBin = std::string(PERFCAST_BINARY_DIR) + "/bin";
constexpr auto kClusterWait = std::chrono::seconds(60);
constexpr auto kArrayWait = std::chrono::seconds(240);

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool on_path(const std::string& program) {
  return run_process({"sh", "-c", "command -v " + program}, std::chrono::seconds(10)).exit_code == 0;
}

// A TCP port nobody listens on now (the kernel's pick).
int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (fd >= 0) ::close(fd);
    return 0;
  }
  int port = ntohs(address.sin_port);
  ::close(fd);
  return port;
}

std::string short_hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  std::string host = name;
  return host.substr(0, host.find('.'));
}

std::string user_name() {
  ProcessResult r = run_process({"id", "-un"}, std::chrono::seconds(10));
  std::string name = r.stdout_text;
  while (!name.empty() && name.back() == '\n') name.pop_back();
  return name;
}

// A one-node Slurm cluster whose daemons are this test's children, stopped
// (by their pids) when it goes.
class SlurmCluster {
 public:
  SlurmCluster() : dir_(scratch() / ("slurm" + std::to_string(clusters_made_++))) {
    for (const char* sub : {"state", "spool", "log"}) fs::create_directories(dir_ / sub);
    const std::string host = short_hostname(), user = user_name();
    std::ofstream conf(conf_path());
    conf << "ClusterName=perfcasttest\n"
         << "SlurmctldHost=" << host << "(127.0.0.1)\n"
         << "SlurmctldPort=" << free_port() << "\nSlurmdPort=" << free_port() << "\n"
         << "SlurmUser=" << user << "\nSlurmdUser=" << user << "\n"
         << "AuthType=auth/none\nCredType=cred/none\n"
         << "StateSaveLocation=" << (dir_ / "state").string() << "\n"
         << "SlurmdSpoolDir=" << (dir_ / "spool").string() << "\n"
         << "SlurmctldPidFile=" << (dir_ / "slurmctld.pid").string() << "\n"
         << "SlurmdPidFile=" << (dir_ / "slurmd.pid").string() << "\n"
         << "SlurmctldLogFile=" << (dir_ / "log" / "slurmctld.log").string() << "\n"
         << "SlurmdLogFile=" << (dir_ / "log" / "slurmd.log").string() << "\n"
         << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
         << "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
         << "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n"
         << "JobAcctGatherType=jobacct_gather/none\nMpiDefault=none\nReturnToService=2\n"
         << "NodeName=" << host << " NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN\n"
         << "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
    conf.close();
    controller_ = start({"slurmctld", "-D", "-f", conf_path().string()}, "slurmctld.out");
    node_ = start({"slurmd", "-D", "-f", conf_path().string()}, "slurmd.out");
  }

  ~SlurmCluster() {
    for (const auto& job : jobs_) run_process({"scancel", job}, std::chrono::seconds(30), environment());
    stop(node_);
    stop(controller_);
  }

  fs::path conf_path() const { return dir_ / "slurm.conf"; }
  EnvironmentOverrides environment() const { return {{"SLURM_CONF", conf_path().string()}}; }
  void cancel_at_end(const std::string& job) { jobs_.push_back(job); }

  // Waits for the node to be idle; false (with why) when the daemons died or it never was.
  bool ready(std::string& why) const {
    const auto deadline = std::chrono::steady_clock::now() + kClusterWait;
    std::string last;
    while (std::chrono::steady_clock::now() < deadline) {
      for (pid_t pid : {controller_, node_})
        if (pid <= 0 || ::waitpid(pid, nullptr, WNOHANG) != 0) {
          why = "a daemon exited\n" + logs();
          return false;
        }
      ProcessResult r = run_process({"sinfo", "-h", "-o", "%T"}, std::chrono::seconds(10), environment());
      last = r.stdout_text + r.stderr_text;
      if (r.exit_code == 0 && r.stdout_text.find("idle") != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    why = "the node never became idle; sinfo said: " + last + "\n" + logs();
    return false;
  }

  std::string logs() const {
    std::string out;
    for (const char* name : {"slurmctld.out", "slurmd.out"})
      out += std::string(name) + ":\n" + read_file(dir_ / "log" / name);
    return out;
  }

 private:
  pid_t start(const std::vector<std::string>& argv, const std::string& log) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string out = (dir_ / "log" / log).string();
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<std::string> env_text;
    for (char** e = environ; *e; ++e)
      if (std::string(*e).rfind("SLURM_CONF=", 0) != 0) env_text.push_back(*e);
    env_text.push_back("SLURM_CONF=" + conf_path().string());
    std::vector<char*> env, words;
    for (auto& e : env_text) env.push_back(e.data());
    env.push_back(nullptr);
    std::vector<std::string> copy = argv;
    for (auto& w : copy) words.push_back(w.data());
    words.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawnp(&pid, words[0], &actions, nullptr, words.data(), env.data()) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&actions);
    return pid;
  }

  static void stop(pid_t pid) {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (::waitpid(pid, nullptr, WNOHANG) != 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }

  static inline int clusters_made_ = 0;  // each cluster its own state, when tests share a process
  fs::path dir_;
  pid_t controller_ = -1, node_ = -1;
  std::vector<std::string> jobs_;
};

#define REQUIRE_SLURM()                                                                                \
  do {                                                                                                 \
    for (const char* p : {"slurmctld", "slurmd", "sbatch", "squeue", "sinfo"})                         \
      if (!on_path(p)) GTEST_SKIP() << p << " is not on PATH: install slurm-wlm (scripts/setup does)"; \
  } while (0)

ProcessResult perfcast(const SlurmCluster& cluster, std::vector<std::string> args) {
  args.insert(args.begin(), kBin + "/perfcast");
  return run_process(args, std::chrono::seconds(120), cluster.environment());
}

std::string job_of(const std::string& submitted) {
  const std::string key = "submitted job ";
  size_t at = submitted.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  return submitted.substr(at, submitted.find(':', at) - at);
}

// Polls --slurm-status until nothing is pending or running; the last report.
std::string wait_for_array(const SlurmCluster& cluster, const fs::path& work_dir) {
  const auto deadline = std::chrono::steady_clock::now() + kArrayWait;
  std::string report;
  while (std::chrono::steady_clock::now() < deadline) {
    ProcessResult r = perfcast(cluster, {"sweep", "--slurm-status", work_dir.string()});
    report = r.stdout_text + r.stderr_text;
    if (r.exit_code == 0 && report.find(" 0 pending, 0 running,") != std::string::npos) return report;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  ADD_FAILURE() << "the array did not finish in time; last status:\n" << report;
  return report;
}

fs::path build_probe() {
  fs::path program = scratch() / "probe";
  ProcessResult r =
      run_process({kBin + "/perfcast-mpicc", "-O1", PROBE_SOURCE, "-o", program.string()}, std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  return program;
}

TEST(SweepSlurm, JobArrayRecordsEachPointOnceAndResumes) {
  REQUIRE_SLURM();
  SlurmCluster cluster;
  std::string why;
  ASSERT_TRUE(cluster.ready(why)) << why;
  fs::path program = build_probe();
  fs::path dataset = scratch() / "runs.jsonl", work_dir = scratch() / "array";
  std::vector<std::string> args = {"sweep",
                                   "--dataset",
                                   dataset.string(),
                                   "--param",
                                   "np=1,2",
                                   "--param",
                                   "steps=3:5:2",
                                   "--slurm",
                                   "--slurm-dir",
                                   work_dir.string(),
                                   "--slurm-max-parallel",
                                   "2",
                                   "--slurm-time",
                                   "5",
                                   "--"};
  for (auto& w : testing::mpirun_command(0, {program.string(), "{steps}"})) args.push_back(w == "0" ? "{np}" : w);

  ProcessResult submitted = perfcast(cluster, args);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.stderr_text << cluster.logs();
  const std::string job = job_of(submitted.stdout_text);
  ASSERT_FALSE(job.empty()) << submitted.stdout_text;
  cluster.cancel_at_end(job);
  EXPECT_NE(submitted.stdout_text.find("4 points as array tasks 0-3"), std::string::npos) << submitted.stdout_text;
  EXPECT_NE(read_file(work_dir / "sweep.sbatch").find("#SBATCH --array=0-3%2"), std::string::npos);

  std::string report = wait_for_array(cluster, work_dir);
  EXPECT_NE(report.find("4 done, 0 pending, 0 running, 0 failed, 0 unknown"), std::string::npos)
      << report << "\nlogs:\n"
      << read_file(work_dir / "logs" / (job + "_0.out")) << cluster.logs();

  learn::RecordFile file = learn::parse_feature_records(read_file(dataset), dataset.string());
  EXPECT_TRUE(file.warnings.empty());
  std::map<std::string, int> seen;
  for (const auto& r : file.records) {
    ++seen[r.label];
    EXPECT_EQ(r.ranks, r.label.find("np=2") != std::string::npos ? 2 : 1) << r.label;
  }
  EXPECT_EQ(seen, (std::map<std::string, int>{
                      {"np=1 steps=3", 1}, {"np=1 steps=5", 1}, {"np=2 steps=3", 1}, {"np=2 steps=5", 1}}));

  // Every point recorded: a second submission has nothing to send.
  ProcessResult again = perfcast(cluster, args);
  ASSERT_EQ(again.exit_code, 0) << again.stderr_text;
  EXPECT_NE(again.stdout_text.find("all 4 points already there; nothing to submit"), std::string::npos)
      << again.stdout_text;

  // One record lost: only its point is submitted again, and recorded once.
  std::istringstream lines(read_file(dataset));
  std::string kept;
  for (std::string line; std::getline(lines, line);)
    if (line.find("\"np=2 steps=5\"") == std::string::npos) kept += line + "\n";
  std::ofstream(dataset, std::ios::trunc) << kept;
  ProcessResult resumed = perfcast(cluster, args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.stderr_text;
  EXPECT_NE(resumed.stdout_text.find("1 point as array tasks 0-0 (3 already in"), std::string::npos)
      << resumed.stdout_text;
  const std::string second = job_of(resumed.stdout_text);
  cluster.cancel_at_end(second);
  report = wait_for_array(cluster, work_dir);
  EXPECT_NE(report.find("job " + second + " into"), std::string::npos) << report;
  EXPECT_NE(report.find("4 done, 0 pending, 0 running, 0 failed"), std::string::npos) << report;
  seen.clear();
  for (const auto& r : learn::parse_feature_records(read_file(dataset), dataset.string()).records) ++seen[r.label];
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen["np=2 steps=5"], 1);
}

TEST(SweepSlurm, HeldArrayFailedPointAndRefusedPartition) {
  REQUIRE_SLURM();
  SlurmCluster cluster;
  std::string why;
  ASSERT_TRUE(cluster.ready(why)) << why;
  fs::path dataset = scratch() / "fails.jsonl", work_dir = scratch() / "fails";
  auto sweep = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"sweep",    "--dataset", dataset.string(), "--param",
                                     "code=0,3", "--slurm",   "--slurm-dir",    work_dir.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    // Not instrumented: status 0 appends no record, status 3 fails.
    args.insert(args.end(), {"--", "sh", "-c", "exit {code}"});
    return perfcast(cluster, args);
  };

  // A held array stays pending, and the same points are not submitted twice.
  ProcessResult held = sweep({"--slurm-option=--hold"});
  ASSERT_EQ(held.exit_code, 0) << held.stderr_text << cluster.logs();
  const std::string job = job_of(held.stdout_text);
  ASSERT_FALSE(job.empty()) << held.stdout_text;
  cluster.cancel_at_end(job);
  ProcessResult status = perfcast(cluster, {"sweep", "--slurm-status", work_dir.string()});
  EXPECT_NE(status.stdout_text.find("0 done, 2 pending"), std::string::npos)
      << status.stdout_text << status.stderr_text;
  ProcessResult twice = sweep({});
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.stderr_text.find("job " + job + ", submitted from " + work_dir.string() + ", still has 2 tasks"),
            std::string::npos)
      << twice.stderr_text;
  EXPECT_NE(twice.stderr_text.find("scancel " + job), std::string::npos) << twice.stderr_text;

  // Released, both points end without a record: failed, each with its cause.
  ProcessResult release = run_process({"scontrol", "release", job}, std::chrono::seconds(30), cluster.environment());
  ASSERT_EQ(release.exit_code, 0) << release.stderr_text;
  std::string report = wait_for_array(cluster, work_dir);
  EXPECT_NE(report.find("0 done, 0 pending, 0 running, 2 failed"), std::string::npos) << report;
  EXPECT_NE(report.find("perfcast run exited with status 1"), std::string::npos) << report;
  EXPECT_NE(report.find("logs/" + job + "_"), std::string::npos) << report;

  // sbatch's refusal is the error, in its own words.
  ProcessResult refused = sweep({"--slurm-partition", "nosuchpartition"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.stderr_text.find("sbatch refused"), std::string::npos) << refused.stderr_text;
  EXPECT_NE(refused.stderr_text.find("nvalid partition"), std::string::npos) << refused.stderr_text;
}

TEST(SweepSlurm, NoSbatchIsAnError) {
  fs::path empty = scratch() / "no-slurm-here";
  fs::create_directories(empty);
  ProcessResult r = run_process({kBin + "/perfcast", "sweep", "--dataset", (scratch() / "none.jsonl").string(),
                                 "--param", "n=1,2", "--slurm", "--", "/bin/echo", "{n}"},
                                std::chrono::seconds(60), {{"PATH", empty.string()}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("sbatch is not on PATH"), std::string::npos) << r.stderr_text;
  EXPECT_FALSE(fs::exists(scratch() / "none.jsonl.slurm" / "submission.json"));
}

}  // namespace
}  // namespace perfcast
