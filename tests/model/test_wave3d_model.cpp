// The hand-written wave3d model against the real wave3d: the messages and bytes
// the model predicts per rank, summed, must equal what the running program
// counts of its own halo traffic (it reports them in its JSON line).
#include <gtest/gtest.h>

#include <algorithm>

#include "common/app_run.h"
#include "model/costs.h"

using namespace perfcast;

namespace {

const std::string kModel = std::string(PERFCAST_SOURCE_DIR) + "/apps/wave3d/wave3d.model.json";

struct Totals {
  double messages_per_step = 0, bytes_per_step = 0, max_rank_bytes_per_step = 0;
};

Totals model_totals(int ranks, std::int64_t nx, std::int64_t ny, std::int64_t nz, std::int64_t steps) {
  model::ProgramModel m = model::load_program_model(kModel);
  model::SymbolicCosts costs = model::symbolic_costs(m);
  Totals t;
  for (int r = 0; r < ranks; ++r) {
    auto c = model::evaluate_rank(
        costs, model::bind_rank(m, {{"nx", nx}, {"ny", ny}, {"nz", nz}, {"steps", steps}}, r, ranks), r);
    t.messages_per_step += c.messages / static_cast<double>(steps);
    t.bytes_per_step += c.sent_bytes / static_cast<double>(steps);
    t.max_rank_bytes_per_step = std::max(t.max_rank_bytes_per_step, c.sent_bytes / static_cast<double>(steps));
  }
  return t;
}

void expect_model_matches_run(int ranks, std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  const std::int64_t steps = 3;
  auto run = perfcast::testing::run_app("wave3d", ranks,
                                        {"--nx", std::to_string(nx), "--ny", std::to_string(ny), "--nz",
                                         std::to_string(nz), "--steps", std::to_string(steps), "--repeats", "1"});
  ASSERT_EQ(run.process.exit_code, 0) << run.process.stderr_text;
  ASSERT_TRUE(run.result.is_object()) << run.process.stdout_text;
  ASSERT_EQ(run.result["ranks"], ranks);
  Totals t = model_totals(ranks, nx, ny, nz, steps);
  EXPECT_EQ(t.messages_per_step, run.result["halo_msgs_per_step"].get<double>());
  EXPECT_EQ(t.bytes_per_step, run.result["halo_bytes_per_step"].get<double>());
  EXPECT_EQ(t.max_rank_bytes_per_step, run.result["max_rank_halo_bytes_per_step"].get<double>());
}

}  // namespace

TEST(Wave3dModel, HaloTrafficMatchesTheRealRunAtTwoRanks) { expect_model_matches_run(2, 12, 10, 9); }

TEST(Wave3dModel, HaloTrafficMatchesTheRealRunAtFourRanksOversubscribed) {
  ::testing::Test::RecordProperty("oversubscribed", "true");
  expect_model_matches_run(4, 13, 11, 7);  // uneven splits on a 2 x 2 x 1 grid
}

TEST(Wave3dModel, FlopsAreFourteenPerInteriorPointPerStepPlusTheMpiClock) {
  model::ProgramModel m = model::load_program_model(kModel);
  auto costs = model::symbolic_costs(m);
  double total = 0;
  for (int r = 0; r < 3; ++r)
    total += model::evaluate_rank(costs, model::bind_rank(m, {{"n", 17}, {"steps", 5}}, r, 3), r).flops_double;
  // 14 per interior point, plus each rank's 2 per step for the time it spent in MPI.
  EXPECT_EQ(total, 14.0 * 17 * 17 * 17 * 5 + 3 * 2 * 5);
}
