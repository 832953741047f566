// A real run of `perfcast validate validate/quick.toml --json`: real Open MPI runs of
// wave3d at 1 and 2 ranks, its skeleton, a traced run, the static model, a signature
// built from the traced run and run on the same launch, and the learned method on the
// dataset wave3d's validate.toml names. Checks the rows' shape and arithmetic (not the
// errors' size: the quick cases price on a bundled machine), and that a rerun with the
// same results file runs nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "measure/launcher.h"
#include "perfcast_cli.h"
#include "scratch.h"
#include "support/process.h"
#include "validate/app_bindings.h"
#include "validate/validate.h"

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
  // wave3d n=16 at 1 and 2 ranks, one row per method each (validate.h's kMethods)
  ASSERT_EQ(rows.size(), 2 * validate::kMethods.size()) << first.dump(1);
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
    // A whole-run row is compared with a whole run measured by its method; every
    // other row with the measured method's timed region.
    bool whole_run = row.at("basis") == "whole run";
    if (!whole_run) EXPECT_EQ(row.at("measured_s").get<double>(), measured.at(ranks)) << row.dump();
    if (row.at("method") == "measured") continue;
    if (row.at("predicted_s").is_null()) {
      // an empty cell says why
      EXPECT_FALSE(row.at("note").get<std::string>().empty()) << row.dump();
      EXPECT_TRUE(row.at("error").is_null());
      continue;
    }
    double predicted = row.at("predicted_s").get<double>();
    double against = whole_run ? row.at("measured_s").get<double>() : measured.at(ranks);
    // signed and relative: predicted / measured - 1
    EXPECT_NEAR(row.at("error").get<double>(), predicted / against - 1, 1e-9) << row.dump();
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

  // Trace-replay: wave3d marks its timed region with MPI_Pcontrol, so the replay prices
  // that region from the one traced run, and the region is a part of the replayed job.
  for (const json& row : rows) {
    if (row.at("method") != "trace-replay") continue;
    EXPECT_EQ(row.at("basis"), "timed region") << row.dump();
    EXPECT_EQ(row.at("cost_runs"), "1 traced run") << row.dump();
    EXPECT_NE(row.at("note").get<std::string>().find("MPI_Pcontrol(1)"), std::string::npos) << row.dump();
    double whole = 0;
    for (const json& t : row.at("per_rank"))
      whole = std::max(whole, t.at("calc_s").get<double>() + t.at("wait_s").get<double>() + t.at("comm_s").get<double>());
    double region = row.at("predicted_s").get<double>();
    EXPECT_GT(region, 0) << row.dump();
    EXPECT_LT(region, whole) << row.dump();
  }

  // The signature: built from trace-replay's traced run (no second trace), a prediction
  // of the whole run against a whole run, and what its run cost.
  EXPECT_EQ(first.at("traced_launches").get<int>(), 2);  // trace-replay's one run at 1 and at 2 ranks
  for (const json& row : rows) {
    if (row.at("method") == "signature" && row.at("ranks") == 2) {
      ASSERT_FALSE(row.at("predicted_s").is_null()) << row.dump();
      EXPECT_GT(row.at("predicted_s").get<double>(), 0) << row.dump();
      EXPECT_EQ(row.at("basis"), "whole run") << row.dump();
      EXPECT_TRUE(row.at("measured_q1_s").is_null()) << row.dump();
      EXPECT_GT(row.at("cost_s").get<double>(), 0) << row.dump();
      EXPECT_NE(row.at("cost_runs").get<std::string>().find("% of a full run's wall time"), std::string::npos)
          << row.dump();
    }
    if (row.at("method") == "learned") {
      // wave3d's validate.toml names its shipped (gzipped) dataset
      ASSERT_FALSE(row.at("predicted_s").is_null()) << row.dump();
      EXPECT_GT(row.at("predicted_s").get<double>(), 0) << row.dump();
      EXPECT_EQ(row.at("basis"), "whole run") << row.dump();
      EXPECT_NE(row.at("note").get<std::string>().find("wave3d-validate.jsonl.gz"), std::string::npos) << row.dump();
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
  EXPECT_GE(resumed, 12);
}

// The learned method on a dataset made here: wave3d built with the feature probes,
// swept over sizes and rank counts by `perfcast sweep`, then a case naming the records.
// Its row is the model's whole-run time against the whole run of the instrumented app.
TEST(ValidateRun, LearnedMethodPredictsFromASweptDataset) {
  namespace fs = std::filesystem;
  fs::path dir = scratch() / "learned";
  fs::create_directories(dir);
  fs::path app = dir / "wave3d_features";
  ProcessResult built = run_process({std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast-mpicc", "-O2",
                                     std::string(PERFCAST_SOURCE_DIR) + "/apps/wave3d/wave3d.c", "-o", app.string(),
                                     "-lm"},
                                    std::chrono::seconds(300));
  ASSERT_EQ(built.exit_code, 0) << built.stderr_text;

  measure::MpiLaunch launch;
  launch.pin = false;  // the rank count is the sweep's {np}: no per-count pinning flags
  launch.program = {app.string(), "--n", "{n}", "--steps", "5", "--repeats", "1"};
  std::vector<std::string> command = measure::mpirun_command(launch);
  auto n = std::find(command.begin(), command.end(), "-n");
  ASSERT_NE(n, command.end());
  *(n + 1) = "{np}";
  fs::path dataset = dir / "wave3d.jsonl";
  std::vector<std::string> sweep = {"sweep", "--dataset", dataset.string(), "--param", "np=1,2", "--param",
                                    "n=8:20:4", "--"};
  sweep.insert(sweep.end(), command.begin(), command.end());
  auto swept = perfcast_run(sweep, std::chrono::seconds(300));
  ASSERT_EQ(swept.exit_code, 0) << swept.stderr_text;

  fs::path cases = dir / "cases.toml";
  std::ofstream(cases) << "[settings]\nmachine = \"generic-cluster\"\nrepeats = 1\nwarmup = 0\ntimeout_s = 120\n"
                          "[[case]]\napp = \"wave3d\"\nargs = \"--n {n} --steps 5 --repeats 1\"\nn = 14\n"
                          "ranks = [2]\ndataset = \"wave3d.jsonl\"\n";
  auto r = perfcast_run({"validate", cases.string(), "--methods", "learned", "--json"}, std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  json rows = json::parse(r.stdout_text).at("rows");
  ASSERT_EQ(rows.size(), 2u) << rows.dump(1);
  const json& row = rows[1];
  ASSERT_EQ(row.at("method"), "learned");
  ASSERT_FALSE(row.at("predicted_s").is_null()) << row.dump();
  EXPECT_GT(row.at("predicted_s").get<double>(), 0);
  EXPECT_EQ(row.at("basis"), "whole run");
  // compared with the instrumented run's own time, not the measured timed region
  EXPECT_NE(row.at("measured_s"), rows[0].at("measured_s"));
  EXPECT_NEAR(row.at("error").get<double>(),
              row.at("predicted_s").get<double>() / row.at("measured_s").get<double>() - 1, 1e-9);
  EXPECT_GT(row.at("cost_s").get<double>(), 0);
  EXPECT_NE(row.at("cost_runs").get<std::string>().find("1 instrumented run"), std::string::npos) << row.dump();
  EXPECT_NE(row.at("cost_runs").get<std::string>().find("training"), std::string::npos) << row.dump();
}

// static-noisy prices the same model under the machine file's measured noise
// (data/xeon16_calibrated.toml: a quiet 16-core Xeon's calibrate, its quanta
// stretched 1.08-3.11x), never below the refined figure, and simulated-noisy
// runs its calls on the simulator under that noise, every draw at least 1.08x,
// so above the refined figure too; a file without noise (generic-cluster)
// leaves both cells empty and says why.
TEST(ValidateRun, TheNoisyMethodsPriceTheMachinesNoiseOrSayItHasNone) {
  namespace fs = std::filesystem;
  fs::path dir = scratch() / "static-noisy";
  fs::create_directories(dir);
  auto rows_on = [&](const std::string& machine) {
    fs::path cases = dir / "cases.toml";
    std::ofstream(cases) << "[settings]\nmachine = \"" << machine << "\"\nrepeats = 1\nwarmup = 0\ntimeout_s = 120\n"
                            "[[case]]\napp = \"wave3d\"\nargs = \"--n {n} --steps {steps} --repeats 1\"\nn = 16\n"
                            "steps = 5\nranks = [1]\n";
    auto r = perfcast_run({"validate", cases.string(), "--methods", "static,static-noisy,simulated-noisy", "--models",
                           (dir / "models").string(), "--json"},
                          std::chrono::seconds(300));
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    std::map<std::string, json> by_method;
    if (r.exit_code != 0) return by_method;
    const json out = json::parse(r.stdout_text);
    for (const json& row : out.at("rows")) by_method[row.at("method").get<std::string>()] = row;
    return by_method;
  };
  auto noisy = rows_on(std::string(PERFCAST_SOURCE_DIR) + "/tests/validate/data/xeon16_calibrated.toml");
  ASSERT_TRUE(noisy.count("static") && noisy.count("static-noisy"));
  ASSERT_FALSE(noisy["static"].at("predicted_s").is_null()) << noisy["static"].dump();
  ASSERT_FALSE(noisy["static-noisy"].at("predicted_s").is_null()) << noisy["static-noisy"].dump();
  EXPECT_GT(noisy["static-noisy"].at("predicted_s").get<double>(), noisy["static"].at("predicted_s").get<double>());
  EXPECT_EQ(noisy["static-noisy"].at("note").get<std::string>().rfind("noisy", 0), 0u) << noisy["static-noisy"].dump();
  EXPECT_EQ(noisy["static-noisy"].at("basis"), noisy["static"].at("basis"));
  ASSERT_TRUE(noisy.count("simulated-noisy"));
  const json& simulated = noisy["simulated-noisy"];
  ASSERT_FALSE(simulated.at("predicted_s").is_null()) << simulated.dump();
  EXPECT_GT(simulated.at("predicted_s").get<double>(), noisy["static"].at("predicted_s").get<double>());
  EXPECT_EQ(simulated.at("note").get<std::string>().rfind("simulated-noisy", 0), 0u) << simulated.dump();
  EXPECT_EQ(simulated.at("basis"), noisy["static"].at("basis"));

  auto plain = rows_on("generic-cluster");
  ASSERT_TRUE(plain.count("static-noisy"));
  EXPECT_TRUE(plain["static-noisy"].at("predicted_s").is_null()) << plain["static-noisy"].dump();
  EXPECT_NE(plain["static-noisy"].at("note").get<std::string>().find("has no `noise`"), std::string::npos)
      << plain["static-noisy"].dump();
  EXPECT_FALSE(plain["static"].at("predicted_s").is_null());
  ASSERT_TRUE(plain.count("simulated-noisy"));
  EXPECT_TRUE(plain["simulated-noisy"].at("predicted_s").is_null()) << plain["simulated-noisy"].dump();
  EXPECT_NE(plain["simulated-noisy"].at("note").get<std::string>().find("has no `noise`"), std::string::npos)
      << plain["simulated-noisy"].dump();
}

// --models DIR keeps each app's model with the checksum of the source and flags it
// was analysed from: a second validation predicts from the kept model without
// analysing, and one whose source no longer matches is analysed again.
TEST(ValidateRun, KeptModelsAreReusedWhileTheirSourceIsTheSame) {
  namespace fs = std::filesystem;
  fs::path dir = scratch() / "kept-models";
  fs::create_directories(dir);
  fs::path cases = dir / "cases.toml", models = dir / "models";
  std::ofstream(cases) << "[settings]\nmachine = \"generic-cluster\"\nrepeats = 1\nwarmup = 0\ntimeout_s = 120\n"
                          "[[case]]\napp = \"wave3d\"\nargs = \"--n {n} --steps {steps} --repeats 1\"\nn = 16\n"
                          "steps = 5\nranks = [1]\n";
  auto run = [&] {
    auto r = perfcast_run({"validate", cases.string(), "--methods", "static", "--models", models.string(), "--json"},
                          std::chrono::seconds(300));
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    json rows = json::parse(r.stdout_text).at("rows");
    EXPECT_EQ(rows.size(), 2u) << rows.dump(1);
    EXPECT_EQ(rows.back().at("method"), "static");
    return std::make_pair(rows.back(), r.stderr_text);
  };
  auto [first, first_log] = run();
  ASSERT_TRUE(fs::exists(models / "wave3d.model.json"));
  ASSERT_TRUE(fs::exists(models / "wave3d.model.source"));
  EXPECT_NE(first_log.find("analysing"), std::string::npos) << first_log;
  ASSERT_FALSE(first.at("predicted_s").is_null()) << first.dump();

  auto [second, second_log] = run();
  EXPECT_EQ(second_log.find("analysing"), std::string::npos) << second_log;
  EXPECT_NE(second_log.find("the model kept in"), std::string::npos) << second_log;
  EXPECT_EQ(second.at("predicted_s"), first.at("predicted_s")) << "the same model on the same machine";

  std::string origin;
  {
    std::ifstream in(models / "wave3d.model.source");
    std::getline(in, origin);
  }
  std::ofstream(models / "wave3d.model.source") << "wave3d.c crc32 00000000 bytes 1 flags\n";
  auto [third, third_log] = run();
  EXPECT_NE(third_log.find("analysing"), std::string::npos) << "a changed source is analysed again: " << third_log;
  std::string rewritten;
  {
    std::ifstream in(models / "wave3d.model.source");
    std::getline(in, rewritten);
  }
  EXPECT_EQ(rewritten, origin) << "the new analysis is kept with its source's checksum";
  EXPECT_EQ(third.at("predicted_s"), first.at("predicted_s"));
}

// A kept model records the CPU and instruction cycles the machine file priced it
// with: validating on a machine of another CPU analyses it again (and keeps that
// one); where that analysis fails (here: a POWER CPU cannot price x86 code), the
// model kept for the other CPU is used and every static row's note says so.
TEST(ValidateRun, AKeptModelIsAnalysedAgainForAnotherCpu) {
  namespace fs = std::filesystem;
  fs::path dir = scratch() / "kept-models-cpu";
  fs::create_directories(dir);
  fs::path cases = dir / "cases.toml", models = dir / "models";
  std::ofstream(cases) << "[settings]\nmachine = \"generic-cluster\"\nrepeats = 1\nwarmup = 0\ntimeout_s = 120\n"
                          "[[case]]\napp = \"wave3d\"\nargs = \"--n {n} --steps {steps} --repeats 1\"\nn = 16\n"
                          "steps = 5\nranks = [1]\n";
  std::string generic;
  {
    std::ifstream in(fs::path(PERFCAST_SOURCE_DIR) / "machines" / "generic-cluster.toml");
    generic.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string znver3 = "cpu = \"znver3\"";
  ASSERT_NE(generic.find(znver3), std::string::npos) << "generic-cluster names its CPU";
  fs::path skylake = dir / "skylake.toml";
  std::ofstream(skylake) << std::string(generic).replace(generic.find(znver3), znver3.size(), "cpu = \"skylake\"");
  auto run = [&](const std::string& machine) {
    auto r = perfcast_run({"validate", cases.string(), "--methods", "static", "--models", models.string(), "--json",
                           "--machine", machine},
                          std::chrono::seconds(300));
    EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
    json rows = json::parse(r.stdout_text).at("rows");
    EXPECT_EQ(rows.back().at("method"), "static");
    return std::make_pair(rows.back(), r.stderr_text);
  };
  auto priced_for = [&] {
    std::ifstream in(models / "wave3d.model.source");
    std::string source, priced;
    std::getline(in, source);
    std::getline(in, priced);
    return priced;
  };
  auto kept_cpu = [&] {
    std::ifstream in(models / "wave3d.model.json");
    return json::parse(in).at("mca").at("cpu").get<std::string>();
  };
  auto [first, first_log] = run("generic-cluster");
  EXPECT_NE(first_log.find("analysing"), std::string::npos) << first_log;
  EXPECT_EQ(priced_for(), "priced for cpu znver3 instruction_cycles (the CPU's own)");
  EXPECT_EQ(kept_cpu(), "znver3");

  auto [again, again_log] = run("generic-cluster");
  EXPECT_EQ(again_log.find("analysing"), std::string::npos) << "the same CPU: the kept model " << again_log;

  auto [other, other_log] = run(skylake.string());
  EXPECT_NE(other_log.find("analysing"), std::string::npos) << "another CPU: analysed again " << other_log;
  EXPECT_EQ(priced_for(), "priced for cpu skylake instruction_cycles (the CPU's own)");
  EXPECT_EQ(kept_cpu(), "skylake");
  ASSERT_FALSE(other.at("predicted_s").is_null()) << other.dump();
  EXPECT_EQ(other.at("note").get<std::string>().find("kept model"), std::string::npos) << other.dump();

  auto [power, power_log] = run("polus");  // node.cpu = pwr8: analyze refuses it here
  EXPECT_NE(power_log.find("analysing"), std::string::npos) << power_log;
  ASSERT_FALSE(power.at("predicted_s").is_null()) << power.dump();
  EXPECT_NE(power.at("note").get<std::string>().find("the kept model's in-core cycles are priced for cpu skylake"),
            std::string::npos)
      << power.dump();
  EXPECT_EQ(priced_for(), "priced for cpu skylake instruction_cycles (the CPU's own)") << "the kept model stays";
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
    // A recursion's invocations per call: a static cell refuses it unbound (no placeholder of 1).
    std::ifstream in(model);
    json m = json::parse(in);
    for (const json& l : m.at("coverage").value("unknown_loops", json::array()))
      if (l.value("recursion", false))
        EXPECT_TRUE(b->bind.count(l.at("trip_count").get<std::string>()))
            << app << ": validate.toml leaves " << l.at("trip_count").get<std::string>() << " unbound";
  }
}

}  // namespace
}  // namespace perfcast::testing
