// A run stopped early: the ranks' reports reduced as MPI_Finalize reduces
// them (counts summed, values the maximum over the ranks that assigned them),
// malformed reports named by field, and the stop plan's refusal of a model
// reading a feature known only late.
#include <gtest/gtest.h>

#include "learn/early_stop.h"
#include "learn/rank_reports.h"
#include "support/error.h"

namespace perfcast::learn {
namespace {

std::string report(int rank, double time_s, const std::string& features) {
  return "{\"format\":\"perfcast-features-report\",\"version\":1,\"rank\":" + std::to_string(rank) +
         ",\"ranks\":2,\"pid\":" + std::to_string(100 + rank) + ",\"time_s\":" + std::to_string(time_s) +
         ",\"features\":{" + features + "}}";
}

std::string error_of(const std::string& text) {
  try {
    parse_rank_report(text, "rank-0.features.json");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(RankReports, ReduceLikeMpiFinalize) {
  RankReport r0 = parse_rank_report(report(0, 0.2, R"("a.c:3:n":["value",64,0],"a.c:9:loop.headers":["count",11,0.1])"),
                                    "rank-0.features.json");
  RankReport r1 = parse_rank_report(report(1, 0.4, R"("a.c:3:n":["value",32,0],"a.c:9:loop.headers":["count",5,0.2])"),
                                    "rank-1.features.json");
  EXPECT_EQ(r1.pid, 101);
  FeatureRecord all = reduce_rank_reports({r0, r1}, "./a.out 64");
  EXPECT_EQ(all.ranks, 2);
  EXPECT_DOUBLE_EQ(all.time_s, 0.4);
  EXPECT_DOUBLE_EQ(all.features.at("a.c:3:n").value, 64);              // the maximum
  EXPECT_DOUBLE_EQ(all.features.at("a.c:9:loop.headers").value, 16);   // the sum
  EXPECT_DOUBLE_EQ(all.features.at("a.c:9:loop.headers").epoch, 0.5);  // 0.2 s of 0.4 s
  // One rank missing, or reported twice, is not a job's record.
  EXPECT_THROW(reduce_rank_reports({r0}, ""), UserError);
  EXPECT_THROW(reduce_rank_reports({r0, r0}, ""), UserError);
}

TEST(RankReports, MalformedReportNamesItsField) {
  EXPECT_NE(error_of("{\"format\":\"other\"}").find("format"), std::string::npos);
  EXPECT_NE(error_of(report(0, 0.1, R"("a.c:3:n":["size",1,0])")).find("features.a.c:3:n"), std::string::npos);
  EXPECT_NE(error_of(report(3, 0.1, "")).find("rank 3 of 2"), std::string::npos);
  EXPECT_NE(error_of("{not json").find("not JSON"), std::string::npos);
}

LearnedModel two_input_model(double late_epoch) {
  LearnedModel m;
  m.inputs = {"a.c:3:n", "a.c:9:loop.headers", "ranks"};
  m.input_epochs = {0.01, late_epoch, 0};
  m.training_time_s = 2;
  m.expansion = polynomial_expansion(3, 1);
  m.kept = {0, 1, 2};
  return m;
}

TEST(StopPlan, HorizonFromTrainingAndRefusalOfLateFeatures) {
  StopPlan plan = plan_early_stop(two_input_model(0.04), 0.1, 0.25);
  EXPECT_EQ(plan.features, (std::vector<std::string>{"a.c:3:n", "a.c:9:loop.headers"}));  // not `ranks`
  EXPECT_DOUBLE_EQ(plan.horizon_s, 0.04 * 2);
  EXPECT_NE(stop_file_text(plan, "/r").find("horizon_ms 80\n"), std::string::npos);
  try {
    plan_early_stop(two_input_model(0.97), 0.1, 0.25);
    ADD_FAILURE() << "a feature final at 97 % of the run did not refuse";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("a.c:9:loop.headers (epoch 0.97)"), std::string::npos) << e.what();
  }
  // A column the model does not keep does not hold the run.
  LearnedModel unused = two_input_model(0.97);
  unused.kept = {0};
  EXPECT_EQ(plan_early_stop(unused, 0.1, 0.25).features, std::vector<std::string>{"a.c:3:n"});
  LearnedModel no_epochs = two_input_model(0);
  no_epochs.input_epochs.clear();
  EXPECT_THROW(plan_early_stop(no_epochs, 0.1, 0.25), UserError);
}

}  // namespace
}  // namespace perfcast::learn
