// `perfcast signature run` on real runs of phase_steps.c: the job is stopped
// once every rank has timed the relevant phases, the prediction is the sum
// the measurement files give, a run that ends before a phase occurs names
// that phase, and bad input is refused with the file and field named.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "perfcast_cli.h"
#include "scratch.h"

namespace perfcast::signature {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using perfcast::testing::perfcast_run;
using perfcast::testing::scratch;

const std::string kProgram = std::string(SIGNATURE_PROGRAMS) + "/signature_phase_steps";
// Arithmetic iterations per step: about a millisecond.
const std::string kWork = "1000000";

std::vector<std::string> mpirun(int ranks, const std::vector<std::string>& args) {
  std::vector<std::string> words = {MPIRUN};
  std::istringstream flags(MPIRUN_FLAGS);
  for (std::string flag; flags >> flag;) words.push_back(flag);
  words.insert(words.end(), {"-n", std::to_string(ranks), kProgram});
  words.insert(words.end(), args.begin(), args.end());
  return words;
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Traces the program with `args` on 2 ranks and builds its signature.
fs::path signature_of(const std::string& name, const std::vector<std::string>& args) {
  fs::path trace = scratch() / (name + ".trace"), sig = scratch() / (name + ".sig");
  auto traced = perfcast_run(concat({"trace", "-o", trace.string(), "--"}, mpirun(2, args)));
  EXPECT_EQ(traced.exit_code, 0) << traced.stderr_text;
  auto built = perfcast_run({"signature", "build", trace.string(), "-o", sig.string()});
  EXPECT_EQ(built.exit_code, 0) << built.stderr_text;
  return sig;
}

json show(const fs::path& sig) {
  auto shown = perfcast_run({"signature", "show", sig.string(), "--json"});
  EXPECT_EQ(shown.exit_code, 0) << shown.stderr_text;
  return json::parse(shown.stdout_text);
}

std::string fmt_rank(int rank) {
  char name[64];
  std::snprintf(name, sizeof name, "rank-%06d.phases.json", rank);
  return name;
}

int count_lines_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) ++n;
  return n;
}

TEST(SignatureRun, StopsEarlyAndPredictsTheSumOfWeightTimesMeasuredTime) {
  const int steps = 400;
  fs::path sig = signature_of("ring", {std::to_string(steps), "0", kWork});
  json s = show(sig);
  fs::path dir = scratch() / "ring.run";
  auto r = perfcast_run(
      concat({"signature", "run", sig.string(), "-o", dir.string(), "--json", "--warmup", "1", "--measure", "3", "--"},
             mpirun(2, {std::to_string(steps), "0", kWork})));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text << r.stdout_text;
  json out = json::parse(r.stdout_text);
  EXPECT_TRUE(out["stopped_early"]);
  // One warm-up and three timed steps were needed; the job was ended long
  // before its 400 steps (allowing for the steps run while it was ended).
  int printed = count_lines_starting(read_text(dir / "job.log"), "step ");
  std::cout << "the stopped job printed " << printed << " of " << steps << " steps\n";
  EXPECT_GE(printed, 4);
  EXPECT_LT(printed, steps / 4);

  // The prediction, from the files the ranks wrote: per rank, init + sum of
  // weight x mean timed occurrence + the signature's remainder; the slowest rank's.
  std::map<int, std::int64_t> weights;
  for (const auto& p : s["phases"])
    if (p["relevant"]) weights[p["id"].get<int>()] = p["weight"].get<std::int64_t>();
  EXPECT_TRUE(std::any_of(weights.begin(), weights.end(), [&](auto& w) { return w.second == steps; }));
  double slowest = 0;
  for (int rank = 0; rank < 2; ++rank) {
    json m = json::parse(read_text(dir / fmt_rank(rank)));
    EXPECT_TRUE(m["complete"]);
    double total = m["init_s"].get<double>() + s["remainder_s"].get<double>();
    ASSERT_EQ(m["phases"].size(), weights.size());
    for (const auto& p : m["phases"]) {
      ASSERT_EQ(p["times_s"].size(), 3u) << p.dump();
      double sum = 0;
      for (const auto& t : p["times_s"]) sum += t.get<double>();
      total += weights.at(p["phase"].get<int>()) * sum / 3;
    }
    slowest = std::max(slowest, total);
  }
  double predicted = out["prediction"]["predicted_s"].get<double>();
  EXPECT_NEAR(predicted, slowest, 1e-9 * slowest);
  // And it is the run's order of magnitude (this VM's load changes a step's
  // time several times over between two runs, so no closer).
  EXPECT_GT(predicted, 0.1 * s["traced_total_s"].get<double>());
  EXPECT_LT(predicted, 10 * s["traced_total_s"].get<double>());
}

// The signature was built from a run with both phases; the target run has no
// second phase, so it ends by itself and names that phase as not measured.
TEST(SignatureRun, ARunThatEndsFirstNamesThePhasesItNeverMeasured) {
  fs::path sig = signature_of("two", {"30", "30", kWork});
  json s = show(sig);
  int second = 0;
  for (const auto& p : s["phases"])
    for (const auto& block : p["blocks"])
      for (const auto& e : block)
        if (e["kind"] == "bcast" && p["relevant"]) second = p["id"].get<int>();
  ASSERT_NE(second, 0) << "the Bcast steps are a relevant phase: " << s.dump(1);
  fs::path dir = scratch() / "two.run";
  auto r =
      perfcast_run(concat({"signature", "run", sig.string(), "-o", dir.string(), "--"}, mpirun(2, {"30", "0", kWork})));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text << r.stdout_text;
  EXPECT_NE(r.stdout_text.find("the run ended by itself"), std::string::npos) << r.stdout_text;
  EXPECT_NE(r.stdout_text.find("phase " + std::to_string(second) + " was not measured on ranks 0, 1"),
            std::string::npos)
      << r.stdout_text;
  EXPECT_EQ(count_lines_starting(read_text(dir / "job.log"), "step "), 30);
  json m = json::parse(read_text(dir / fmt_rank(0)));
  EXPECT_FALSE(m["complete"]);
  EXPECT_TRUE(m["finalized"]);
}

// A run of another input size makes the same calls with other message sizes:
// compared with their sizes the phases never occur in it; with --any-size
// they are recognised and timed, and the job is stopped early.
TEST(SignatureRun, AnySizeRecognisesThePhasesInARunOfAnotherMessageSize) {
  const int steps = 200;
  fs::path sig = signature_of("sizes", {std::to_string(steps), "0", kWork, "256"});
  const std::vector<std::string> other = {std::to_string(steps), "0", kWork, "64"};

  fs::path exact = scratch() / "sizes-exact.run";
  auto r =
      perfcast_run(concat({"signature", "run", sig.string(), "-o", exact.string(), "--json", "--"}, mpirun(2, other)));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text << r.stdout_text;
  json out = json::parse(r.stdout_text);
  EXPECT_FALSE(out["stopped_early"]);
  EXPECT_FALSE(out["prediction"]["missing_phases"].empty()) << out.dump(1);

  fs::path any = scratch() / "sizes-any.run";
  r = perfcast_run(
      concat({"signature", "run", sig.string(), "-o", any.string(), "--json", "--any-size", "--"}, mpirun(2, other)));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text << r.stdout_text;
  out = json::parse(r.stdout_text);
  EXPECT_TRUE(out["any_size"]);
  EXPECT_TRUE(out["stopped_early"]);
  EXPECT_TRUE(out["prediction"]["complete"]) << out.dump(1);
  EXPECT_TRUE(out["prediction"]["missing_phases"].empty()) << out.dump(1);
  for (int rank = 0; rank < 2; ++rank) EXPECT_TRUE(json::parse(read_text(any / fmt_rank(rank)))["complete"]);
  EXPECT_LT(count_lines_starting(read_text(any / "job.log"), "step "), steps / 2);
}

TEST(SignatureRun, RefusesABadSignatureFileNamingTheField) {
  fs::path sig = signature_of("bad", {"20", "0", "1000"});
  json s = show(sig);
  s["phases"][0]["weight"] = 0;
  fs::path bad = scratch() / "bad-weight.sig";
  std::ofstream(bad) << s.dump(1);
  auto r = perfcast_run(concat({"signature", "run", bad.string(), "-o", (scratch() / "bad.run").string(), "--"},
                               mpirun(2, {"20", "0", "1000"})));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find(bad.string() + ": 'phases[0].weight'"), std::string::npos) << r.stderr_text;

  auto missing = perfcast_run(
      concat({"signature", "run", (scratch() / "none.sig").string(), "-o", (scratch() / "none.run").string(), "--"},
             mpirun(2, {"20", "0", "1000"})));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.stderr_text.find("none.sig"), std::string::npos) << missing.stderr_text;
}

// A signature of 2 ranks run on 3: every rank's tracer refuses it and says
// why, the command stops the job at once and reports it.
TEST(SignatureRun, RefusesARunOfAnotherRankCount) {
  fs::path sig = signature_of("ranks", {"20", "0", "1000"});
  auto r = perfcast_run(concat({"signature", "run", sig.string(), "-o", (scratch() / "ranks.run").string(), "--"},
                               mpirun(3, {"100000", "0", "1000"})));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find("the signature was built from a run of 2 ranks; this one has 3"), std::string::npos)
      << r.stderr_text;
}

}  // namespace
}  // namespace perfcast::signature
