// What the analyser could not follow, as users meet it: `perfcast analyze`
// says it, `perfcast model show` lists it, `perfcast predict` warns that its
// numbers rest on it (and still predicts).
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "perfcast_cli.h"
#include "scratch.h"

namespace {

const std::string kSource = PERFCAST_SOURCE_DIR;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

perfcast::measure::ProcessResult perfcast_run(std::vector<std::string> args) {
  return perfcast::testing::perfcast_run(std::move(args), std::chrono::seconds(120));
}

TEST(CliCoverage, AnIndirectCallIsSaidListedAndWarnedAbout) {
  auto model = (perfcast::testing::scratch() / "callback.model.json").string();
  auto a = perfcast_run({"analyze", kSource + "/tests/analyze/cases/coverage_callback.c", "-o", model, "--no-mca"});
  ASSERT_EQ(a.exit_code, 0) << a.stderr_text;
  EXPECT_TRUE(contains(a.stderr_text, "coverage: 3 of 3 functions reachable")) << a.stderr_text;
  EXPECT_TRUE(contains(a.stderr_text, "1 unresolved calls")) << a.stderr_text;

  auto show = perfcast_run({"model", "show", model});
  ASSERT_EQ(show.exit_code, 0) << show.stderr_text;
  EXPECT_TRUE(contains(show.stdout_text, "coverage_callback.c:27")) << show.stdout_text;
  EXPECT_TRUE(contains(show.stdout_text, "indirect")) << show.stdout_text;
  auto show_json = perfcast_run({"model", "show", model, "--json"});
  ASSERT_EQ(show_json.exit_code, 0) << show_json.stderr_text;
  auto sj = nlohmann::json::parse(show_json.stdout_text);
  EXPECT_EQ(sj["coverage"]["unresolved_calls"][0]["site"], "coverage_callback.c:27");

  auto p = perfcast_run({"predict", model, "--machine", "polus", "--np", "2"});
  ASSERT_EQ(p.exit_code, 0) << p.stderr_text;
  EXPECT_TRUE(contains(p.stderr_text, "warning")) << p.stderr_text;
  EXPECT_TRUE(contains(p.stderr_text, "1 unresolved calls")) << p.stderr_text;
  EXPECT_TRUE(contains(p.stderr_text, "perfcast model show " + model)) << p.stderr_text;
  auto pj = perfcast_run({"predict", model, "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(pj.exit_code, 0) << pj.stderr_text;
  auto j = nlohmann::json::parse(pj.stdout_text);
  ASSERT_EQ(j["warnings"].size(), 1u) << j["warnings"];
  EXPECT_EQ(j["coverage"]["unresolved_calls"], 1);
  EXPECT_EQ(j["coverage"]["guessed_branches"], 0);
  std::filesystem::remove(model);
}

// A model written by hand records no guesses: no warning, coverage null.
TEST(CliCoverage, AHandWrittenModelPredictsWithoutWarnings) {
  auto model = kSource + "/apps/wave3d/wave3d.model.json";
  auto p = perfcast_run({"predict", model, "--machine", "polus", "--np", "2", "--json"});
  ASSERT_EQ(p.exit_code, 0) << p.stderr_text;
  EXPECT_FALSE(contains(p.stderr_text, "warning")) << p.stderr_text;
  auto j = nlohmann::json::parse(p.stdout_text);
  EXPECT_TRUE(j["warnings"].empty());
  EXPECT_TRUE(j["coverage"].is_null());
  auto show = perfcast_run({"model", "show", model});
  ASSERT_EQ(show.exit_code, 0) << show.stderr_text;
  EXPECT_TRUE(contains(show.stdout_text, "no coverage section")) << show.stdout_text;
}

}  // namespace

// A hybrid MPI+OpenMP program: predict needs the team size (no default: the
// runtime's is the run's cores) and says that its time prices the threads'
// work on one core, while the counts are the rank's.
TEST(CliCoverage, AnOpenMPModelNeedsItsTeamSizeAndWarnsThatItsTimeIsSerial) {
  auto model = (perfcast::testing::scratch() / "omp.model.json").string();
  auto a = perfcast_run(
      {"analyze", kSource + "/tests/analyze/cases/omp_parallel_for.c", "-o", model, "--no-mca", "--", "-fopenmp"});
  ASSERT_EQ(a.exit_code, 0) << a.stderr_text;
  EXPECT_TRUE(contains(a.stderr_text, "0 unresolved calls")) << a.stderr_text;

  auto missing = perfcast_run({"predict", model, "--machine", "polus", "--np", "2", "--param", "n=1000"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_TRUE(contains(missing.stderr_text, "omp.threads")) << missing.stderr_text;

  auto pj = perfcast_run({"predict", model, "--machine", "polus", "--np", "2", "--param", "n=1000", "--param",
                          "omp.threads=4", "--json"});
  ASSERT_EQ(pj.exit_code, 0) << pj.stderr_text;
  auto j = nlohmann::json::parse(pj.stdout_text);
  ASSERT_EQ(j["warnings"].size(), 1u) << j["warnings"];
  EXPECT_TRUE(contains(j["warnings"][0].get<std::string>(), "on one core")) << j["warnings"];
  EXPECT_EQ(j["ranks"][0]["flops"], 3000) << j["ranks"][0];
  std::filesystem::remove(model);
}
