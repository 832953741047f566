// `perfcast run --dataset FILE -- COMMAND...`: runs a program built with
// `perfcast cc --features` (usually under mpirun.openmpi) with its feature
// runtime told where to append (PERFCAST_FEATURES_DATASET), then reads back
// and reports the record the run appended. A run that appends nothing was not
// instrumented (or never reached MPI_Finalize), and that is an error.
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/feature_launch.h"
#include "learn/feature_records.h"
#include "report/table.h"
#include "support/error.h"

extern char** environ;

namespace perfcast::cli {

namespace {

namespace fs = std::filesystem;

struct RunArgs {
  std::string dataset;
  std::string label;
  std::vector<std::string> command;
  bool json = false;
};

int run_with_streams(const std::vector<std::string>& argv) {
  std::vector<char*> words;
  for (const auto& w : argv) words.push_back(const_cast<char*>(w.c_str()));
  words.push_back(nullptr);
  pid_t pid = 0;
  int err = posix_spawnp(&pid, words[0], nullptr, nullptr, words.data(), environ);
  if (err != 0) throw UserError(fmt::format("cannot run {}: {}", argv[0], std::strerror(err)), {}, "check the command after --");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw UserError(fmt::format("cannot wait for {}: {}", argv[0], std::strerror(errno)));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::pair<std::string, int> tail_of(const fs::path& path, std::uintmax_t from) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {"", 1};
  std::ostringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  // Lines before `from`, to number the new ones as the file does.
  int line = 1;
  for (std::uintmax_t i = 0; i < from && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return {from < text.size() ? text.substr(from) : "", line};
}

}  // namespace

learn::FeatureRecord run_and_read_record(const std::vector<std::string>& command, const std::string& dataset_file,
                                         const std::string& label, bool every_rank) {
  const fs::path dataset = fs::absolute(dataset_file);
  std::error_code ec;
  const std::uintmax_t before = fs::exists(dataset, ec) ? fs::file_size(dataset, ec) : 0;
  setenv(kFeaturesDatasetVariable, dataset.c_str(), 1);
  std::vector<std::string> passed = {kFeaturesDatasetVariable};
  if (!label.empty()) {
    setenv(kFeaturesLabelVariable, label.c_str(), 1);
    passed.push_back(kFeaturesLabelVariable);
  }
  if (every_rank) {
    setenv(kFeaturesPerRankVariable, "1", 1);
    passed.push_back(kFeaturesPerRankVariable);
  }
  std::cout.flush();
  int rc = run_with_streams(feature_launch(command, passed));
  if (rc != 0)
    throw UserError(fmt::format("{} exited with status {}", command.front(), rc), {},
                    "a failed run records nothing; its own messages are above");
  auto [text, first_line] = tail_of(dataset, before);
  learn::RecordFile found = learn::parse_feature_records(text, dataset.string(), first_line);
  for (const auto& w : found.warnings) std::cerr << "warning: " << w << "\n";
  if (found.records.empty())
    throw UserError(fmt::format("the run appended no record to {}", dataset.string()), {},
                    "build the program with `perfcast cc --features` (e.g. CC=perfcast-mpicc), and let it reach "
                    "MPI_Finalize");
  // Concurrent runs may append beside ours; the last record is the latest run's.
  return found.records.back();
}

namespace {

void run_run(const RunArgs& a) {
  if (a.command.empty())
    throw UserError("no command to run", {"", {}, "--"}, "perfcast run --dataset runs.jsonl -- mpirun.openmpi -n 4 ./app");
  if (a.dataset.empty()) throw UserError("no dataset file", {"", {}, "--dataset"}, "name the file records go to");
  const fs::path dataset = fs::absolute(a.dataset);
  const learn::FeatureRecord r = run_and_read_record(a.command, a.dataset, a.label);
  if (a.json) {
    std::cout << r.text << "\n";
    return;
  }
  std::cout << fmt::format("{}:{}: {} features, {} ranks, {:.6g} s from MPI_Init to MPI_Finalize\n",
                           dataset.string(), r.line, r.features.size(), r.ranks, r.time_s);
  report::Table table({"feature", "value", "epoch"});
  for (const auto& [name, v] : r.features)
    table.add_row({name, fmt::format("{:.10g}", v.value), fmt::format("{:.3f}", v.epoch)});
  std::cout << table.render();
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto a = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run a program built with `perfcast cc --features` and report the feature record it appends to the dataset");
  cmd->add_option("--dataset", a->dataset, "record file the run appends to (JSON Lines; docs/learn.md)")->required();
  cmd->add_option("--label", a->label, "label the record carries (a sweep's point, e.g. \"np=4 n=64\")");
  cmd->add_flag("--json", a->json, "print the appended record as JSON");
  cmd->add_option("command", a->command, "the command, after --")->required();
  cmd->callback([a] { run_run(*a); });
}

}  // namespace perfcast::cli
