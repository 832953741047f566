// The renderings of `perfcast predict` and `perfcast simulate` on fixed inputs
// (a bundled machine file, wave3d's program model, a small event stream),
// against the committed golden files in tests/report/golden/. Regenerate
// them with scripts/update_report_goldens.sh after a change made on purpose,
// and read the diff: it is the change users and scripts will see.
#include <unistd.h>

#include <gtest/gtest.h>

#include "events/convert.h"
#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/predict.h"
#include "model/program_model.h"
#include "modelsim/model_simulation.h"
#include "report/golden_file.h"
#include "report/model_events.h"
#include "report/model_summary.h"
#include "report/prediction.h"
#include "report/simulation.h"
#include "report/timeline.h"

namespace perfcast::report::test {
namespace {

const std::string kSource = PERFCAST_SOURCE_DIR;

struct PredictCase {
  model::ProgramModel model;
  machine::Machine machine;
  model::Prediction prediction;
  std::optional<sim::SimResult> simulated;
  PredictionContext context;
  std::optional<sim::SimResult> simulated_noisy;  // where the machine has noise

  PredictionView view() const {
    return {prediction, model, machine, simulated ? &*simulated : nullptr, nullptr,
            simulated_noisy ? &*simulated_noisy : nullptr};
  }
};

// wave3d at n=32 for 2 steps, priced as `perfcast predict` prices it.
PredictCase predict_wave3d(const std::string& machine_file, const std::vector<std::string>& overrides, int np,
                           bool simulate) {
  PredictCase c{model::load_program_model(kSource + "/apps/wave3d/wave3d.model.json"),
                machine::load_machine_file(kSource + "/machines/" + machine_file, overrides),
                {},
                std::nullopt,
                {"apps/wave3d/wave3d.model.json", {"n=32", "steps=2"}, "auto", false, /*include_wall=*/false},
                std::nullopt};
  std::map<std::string, expr::Value> parameters = {{"n", expr::Value(32)}, {"steps", expr::Value(2)}};
  model::PredictOptions options;
  c.prediction = model::predict(c.model, model::symbolic_costs(c.model), c.machine, np, parameters, options);
  if (simulate) c.simulated = modelsim::simulate_model(c.model, c.machine, np, parameters, options);
  if (simulate && c.prediction.noise_available)
    c.simulated_noisy = modelsim::simulate_model_under_noise(c.model, c.machine, np, parameters, 1, options);
  return c;
}

// A hand-written model whose loop carries MCA cycles and footprints (wave3d's
// carries neither), at its defaults, on a machine with a clock.
PredictCase predict_sweep(const std::vector<std::string>& overrides, int np) {
  PredictCase c{model::load_program_model(golden_path("sweep.model.json")),
                machine::load_machine_file(kSource + "/machines/generic-cluster.toml", overrides),
                {},
                std::nullopt,
                {"tests/report/golden/sweep.model.json", {}, "auto", false, /*include_wall=*/false},
                std::nullopt};
  model::PredictOptions options;
  c.prediction = model::predict(c.model, model::symbolic_costs(c.model), c.machine, np, {}, options);
  c.simulated = modelsim::simulate_model(c.model, c.machine, np, {}, options);
  if (c.prediction.noise_available)
    c.simulated_noisy = modelsim::simulate_model_under_noise(c.model, c.machine, np, {}, 1, options);
  return c;
}

// With measured noise, so every estimate is available.
const std::vector<std::string> kNoise = {"node.noise={ quantum = \"20 us\", stretch = [1.0, 1.0, 1.0, 2.0] }"};

TEST(ReportGolden, PredictJsonWithSimulation) {
  auto c = predict_wave3d("polus.toml", kNoise, 4, true);
  expect_json_golden(prediction_json(c.view(), c.context), "predict_wave3d_polus_noise_np4_simulated.json");
}

TEST(ReportGolden, PredictTextWithSimulation) {
  auto c = predict_wave3d("polus.toml", kNoise, 4, true);
  expect_text_golden(prediction_text(c.view(), c.context), "predict_wave3d_polus_noise_np4_simulated.txt");
}

TEST(ReportGolden, PredictJsonWithoutNoiseOrSimulation) {
  auto c = predict_wave3d("generic-cluster.toml", {}, 2, false);
  expect_json_golden(prediction_json(c.view(), c.context), "predict_wave3d_generic_np2.json");
}

TEST(ReportGolden, PredictTextOfManyRanks) {
  auto c = predict_wave3d("generic-cluster.toml", {}, 20, false);
  expect_text_golden(prediction_text(c.view(), c.context), "predict_wave3d_generic_np20.txt");
}

TEST(ReportGolden, PredictJsonOfEveryEstimate) {
  auto c = predict_sweep(kNoise, 3);
  ASSERT_TRUE(c.prediction.mca_available && c.prediction.footprint_available && c.prediction.noise_available);
  expect_json_golden(prediction_json(c.view(), c.context), "predict_sweep_generic_noise_np3_simulated.json");
}

TEST(ReportGolden, PredictTextOfEveryEstimate) {
  auto c = predict_sweep(kNoise, 3);
  expect_text_golden(prediction_text(c.view(), c.context), "predict_sweep_generic_noise_np3_simulated.txt");
}

// The ring of golden/ring.events on polus, with its timeline.
struct SimulateCase {
  sim::SimResult result;
  SimulationContext context;
  std::string timeline;
};

SimulateCase simulate_ring() {
  auto job = events::open_events(golden_path("ring.events"));
  auto machine = machine::load_machine_file(kSource + "/machines/polus.toml");
  auto timeline_file = std::filesystem::temp_directory_path() /
                       ("perfcast_report_golden_timeline_" + std::to_string(::getpid()) + ".json");
  SimulateCase c;
  {
    ChromeTraceWriter writer(timeline_file, job->size());
    sim::SimOptions options;
    options.timeline = &writer;
    c.result = sim::simulate(*job, machine, options);
    writer.close();
  }
  c.timeline = read_text(timeline_file);
  std::filesystem::remove(timeline_file);
  c.context = {"ring.events", machine.name, sim::CollectiveMode::Auto, /*include_wall=*/false};
  c.result.wall_s = 0;  // the simulator's own run time changes from run to run; the table prints it
  return c;
}

TEST(ReportGolden, SimulateJson) {
  auto c = simulate_ring();
  expect_json_golden(simulation_json(c.result, c.context), "simulate_ring_polus.json");
}

TEST(ReportGolden, SimulateTable) {
  auto c = simulate_ring();
  expect_text_golden(simulation_table(c.result, c.context), "simulate_ring_polus.txt");
}

TEST(ReportGolden, Timeline) {
  auto c = simulate_ring();
  expect_json_golden(nlohmann::json::parse(c.timeline), "simulate_ring_polus_timeline.json");
}

// The one schema of a simulation's result: predict's "simulated" block is
// simulate's document less what was simulated (source, machine, collectives, mpi).
TEST(ReportGolden, PredictSimulatedBlockIsTheSimulationSchema) {
  auto c = predict_wave3d("polus.toml", kNoise, 4, true);
  auto block = prediction_json(c.view(), c.context)["simulated"];
  auto document = simulation_json(*c.simulated, {"x", "polus", sim::CollectiveMode::Auto, false});
  for (const char* key : {"source", "machine", "collectives", "mpi"}) document.erase(key);
  EXPECT_EQ(block, document);
  EXPECT_TRUE(block["ranks"][0].contains("end_s"));
  EXPECT_FALSE(block["ranks"][0].contains("time_s"));
}

// `perfcast model events`'s summary: every rank up to 16, then the first and the last.
ModelEventsSummary events_summary(int np) {
  ModelEventsSummary s{"sweep.model.json", "sweep.trace", {}};
  for (int r = 0; r < np; ++r)
    s.ranks.push_back({r, 27, 9, 18, 2.24e6 * (r + 1), 1.0986e7 * (r + 1) + 1000});
  return s;
}

TEST(ReportGolden, ModelEventsSummary) {
  expect_json_golden(model_events_json(events_summary(3)), "model_events_np3.json");
  expect_text_golden(model_events_text(events_summary(3)), "model_events_np3.txt");
  expect_text_golden(model_events_text(events_summary(20)), "model_events_np20.txt");
}

// `perfcast model show` of the sweep model, whose coverage section records an
// indirect call and a guessed branch (the same guesses its predictions warn of).
TEST(ReportGolden, ModelShow) {
  auto m = model::load_program_model(golden_path("sweep.model.json"));
  expect_json_golden(nlohmann::json::parse(model_summary_json(m, "tests/report/golden/sweep.model.json").dump()),
                     "model_show_sweep.json");
  expect_text_golden(model_summary_text(m, "tests/report/golden/sweep.model.json"), "model_show_sweep.txt");
}

}  // namespace
}  // namespace perfcast::report::test
