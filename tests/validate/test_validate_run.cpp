// A real run of `perfcast validate validate/quick.toml --json`: real Open MPI runs of
// wave3d at 1 and 2 ranks, its skeleton, a traced run, the static model. Checks the
// rows' shape and arithmetic (not the errors' size: the quick cases price on a
// bundled machine), and that a rerun with the same results file runs nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "perfcast_cli.h"
#include "scratch.h"
#include "validate/app_bindings.h"

namespace perfcast::testing {
namespace {
using nlohmann::json;

json validate(const std::filesystem::path& results, const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"validate", std::string(PERFCAST_SOURCE_DIR) + "/validate/quick.toml", "--json",
                                   "--resume", results.string()};
  args.insert(args.end(), more.begin(), more.end());
  auto r = perfcast_run(args, std::chrono::seconds(240));
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  return json::parse(r.stdout_text);
}

TEST(ValidateRun, QuickCasesGiveEveryMethodARowAndARerunResumesThemAll) {
  auto results = scratch() / "quick.jsonl";
  json first = validate(results);
  const json& rows = first.at("rows");
  // wave3d n=16 at 1 and 2 ranks, five methods each
  ASSERT_EQ(rows.size(), 10u) << first.dump(1);
  EXPECT_GT(first.at("measured_launches").get<int>(), 0);

  std::map<int, double> measured;  // ranks -> measured median
  for (const json& row : rows)
    if (row.at("method") == "measured") measured[row.at("ranks").get<int>()] = row.at("measured_s").get<double>();
  ASSERT_EQ(measured.size(), 2u);

  for (const json& row : rows) {
    for (const char* field :
         {"app", "args", "ranks", "method", "measured_s", "predicted_s", "error", "cost_s", "oversubscribed", "note"})
      EXPECT_TRUE(row.contains(field)) << field << " in " << row.dump();
    EXPECT_EQ(row.at("app"), "wave3d");
    int ranks = row.at("ranks").get<int>();
    EXPECT_EQ(row.at("measured_s").get<double>(), measured.at(ranks)) << row.dump();
    if (row.at("method") == "measured") continue;
    if (row.at("predicted_s").is_null()) {
      // an empty cell says why
      EXPECT_FALSE(row.at("note").get<std::string>().empty()) << row.dump();
      EXPECT_TRUE(row.at("error").is_null());
      continue;
    }
    double predicted = row.at("predicted_s").get<double>();
    // signed and relative: predicted / measured - 1
    EXPECT_NEAR(row.at("error").get<double>(), predicted / measured.at(ranks) - 1, 1e-9) << row.dump();
    if (row.at("method") == "naive") EXPECT_NEAR(predicted, measured.at(1) / ranks, 1e-12) << row.dump();
  }
  // naive has no figure at 1 rank; the skeleton and the traced run have one at both counts
  for (const json& row : rows) {
    if (row.at("method") == "naive" && row.at("ranks") == 1) EXPECT_TRUE(row.at("predicted_s").is_null());
    if (row.at("method") == "naive" && row.at("ranks") == 2) EXPECT_FALSE(row.at("predicted_s").is_null());
    if (row.at("method") == "skeleton" || row.at("method") == "trace-replay") {
      EXPECT_FALSE(row.at("predicted_s").is_null()) << row.dump();
      // the simulated job's calc, wait and comm, one entry per rank
      ASSERT_EQ(row.at("per_rank").size(), row.at("ranks").get<std::size_t>()) << row.dump();
      for (const json& t : row.at("per_rank"))
        EXPECT_GT(t.at("calc_s").get<double>() + t.at("wait_s").get<double>() + t.at("comm_s").get<double>(), 0)
            << row.dump();
    } else {
      EXPECT_TRUE(row.at("per_rank").empty()) << row.dump();
    }
  }

  // The rerun also writes the page; test_validate_html checks pages in a browser.
  auto page = scratch() / "quick.html";
  json second = validate(results, {"--html", page.string()});
  ASSERT_TRUE(std::filesystem::exists(page));
  EXPECT_EQ(second.at("measured_launches").get<int>(), 0);
  EXPECT_EQ(second.at("traced_launches").get<int>(), 0);
  ASSERT_EQ(second.at("rows").size(), rows.size());
  int resumed = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const json& again = second.at("rows")[i];
    EXPECT_EQ(again.at("measured_s"), rows[i].at("measured_s"));
    EXPECT_EQ(again.at("predicted_s"), rows[i].at("predicted_s"));
    // rows that failed run again; the others are read back
    if (again.at("resumed").get<bool>())
      ++resumed;
    else
      EXPECT_EQ(again.at("note").get<std::string>().rfind("failed:", 0), 0u) << again.dump();
  }
  EXPECT_EQ(second.at("rows_resumed").get<int>(), resumed);
  EXPECT_GE(resumed, 8);
}

// The shipped bindings name parameters the analyser gives the app's model today: a
// renamed variable, or a loop added before a bound one in its function, fails here
// rather than as a failed static cell of a long validation.
TEST(ValidateAppBindings, EveryShippedBindingIsAParameterOfTheAnalysedModel) {
  for (const char* app : {"wave3d", "cg", "nbody", "lu", "mg", "bfs", "fft3d"}) {
    auto b = validate::load_app_bindings(std::filesystem::path(PERFCAST_SOURCE_DIR) / "apps" / app / "validate.toml");
    ASSERT_TRUE(b.has_value()) << app;
    auto model = scratch() / (std::string(app) + ".model.json");
    std::vector<std::string> analyze = {"analyze", b->source.string(), "-o", model.string()};
    analyze.insert(analyze.end(), b->analyze_flags.begin(), b->analyze_flags.end());
    auto a = perfcast_run(analyze, std::chrono::seconds(120));
    ASSERT_EQ(a.exit_code, 0) << app << ": " << a.stderr_text;
    auto p = perfcast_run({"model", "params", model.string(), "--json"}, std::chrono::seconds(60));
    ASSERT_EQ(p.exit_code, 0) << app << ": " << p.stderr_text;
    std::set<std::string> names;
    for (const json& param : json::parse(p.stdout_text)) names.insert(param.at("name").get<std::string>());
    for (const auto& [name, bound] : b->bind)
      EXPECT_TRUE(names.count(name)) << app << ": validate.toml binds " << name << ", which the model lacks";
  }
}

}  // namespace
}  // namespace perfcast::testing
