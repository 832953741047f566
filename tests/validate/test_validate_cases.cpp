// The cases file of `perfcast validate` and apps/<app>/validate.toml: what they
// accept, what they expand into, and errors that name the file, line and key.
#include <gtest/gtest.h>

#include <fstream>

#include "scratch.h"
#include "support/error.h"
#include "validate/app_bindings.h"
#include "validate/cases.h"
#include "validate/validate.h"

namespace perfcast::validate {
namespace {

std::string error_of(const std::string& text) {
  try {
    (void)parse_cases(text, "cases.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no error)";
}

const char* kGood = R"(
[settings]
machine = "m.toml"
repeats = 2
warmup = 0

[[case]]
app = "wave3d"
args = "--n {n} --steps {steps} --ranks-seen {ranks}"
n = [48, 64]
steps = 10
ranks = [4, 1, 2]
)";

TEST(ValidateCases, ParsesSettingsAndCases) {
  CasesFile f = parse_cases(kGood, "cases.toml");
  EXPECT_EQ(f.settings.machine, "m.toml");
  EXPECT_EQ(f.settings.repeats, 2);
  EXPECT_EQ(f.settings.warmup, 0);
  ASSERT_EQ(f.cases.size(), 1u);
  EXPECT_EQ(f.cases[0].app, "wave3d");
  EXPECT_EQ(f.cases[0].skeleton_args, f.cases[0].args);      // defaults to args
  EXPECT_EQ(f.cases[0].ranks, (std::vector<int>{1, 2, 4}));  // sorted
  ASSERT_EQ(f.cases[0].placeholders.size(), 2u);
  EXPECT_EQ(f.cases[0].placeholders[0].name, "n");  // the file's order, not toml++'s sorted one
}

TEST(ValidateCases, ExpandsEverySizeAndRankCountRanksAscendingWithinASize) {
  std::vector<validate::Run> runs = expand(parse_cases(kGood, "cases.toml"));
  ASSERT_EQ(runs.size(), 6u);
  EXPECT_EQ(runs[0].args, "--n 48 --steps 10 --ranks-seen 1");
  EXPECT_EQ(runs[0].size, "n=48 steps=10");
  EXPECT_EQ(runs[2].args, "--n 48 --steps 10 --ranks-seen 4");
  EXPECT_EQ(runs[2].args_one_rank, "--n 48 --steps 10 --ranks-seen 1");
  EXPECT_EQ(runs[3].args, "--n 64 --steps 10 --ranks-seen 1");
  EXPECT_EQ(runs[5].ranks, 4);
}

TEST(ValidateCases, RenderKeepsDoubledBracesAndNamesAnUnknownPlaceholder) {
  expr::Bindings v{{"n", expr::Value(8)}};
  EXPECT_EQ(render("{{x}} {n}", v, "args"), "{x} 8");
  EXPECT_THROW((void)render("{m}", v, "args"), UserError);
}

TEST(ValidateCases, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(error_of("[settings]\nmachine = \"m\"\nrepeats = 0\n[[case]]\napp=\"a\"\nargs=\"\"\nranks=[1]\n"),
            "cases.toml:3: 'settings.repeats': expected an integer >= 1, found 0");
  EXPECT_EQ(error_of("[settings]\nmachine = \"m\"\n[[case]]\napp=\"a\"\nargs=\"--n {n}\"\nranks=[1]\n"),
            "cases.toml:3: 'case[0].args': args: no values for placeholder {n} (the case has: ranks)");
  EXPECT_EQ(error_of("[settings]\nmachine = \"m\"\n[[case]]\napp=\"a\"\nargs=\"\"\nranks=[1]\nn = \"big\"\n"),
            "cases.toml:7: 'case[0].n': expected a number (placeholders are numbers: sizes, steps)");
  EXPECT_EQ(error_of("[settings]\nmachine = \"m\"\n[[case]]\napp=\"a\"\nargs=\"\"\n"),
            "cases.toml:3: 'case[0].ranks': missing: the rank counts, e.g. ranks = [1, 2]");
  EXPECT_EQ(error_of("[settings]\nmachine = \"m\"\nrepeat = 3\n[[case]]\napp=\"a\"\nargs=\"\"\nranks=[1]\n"),
            "cases.toml:3: 'settings.repeat': unknown key");
  EXPECT_EQ(error_of("[settings]\nmachine = \"m\"\n[[case]]\napp=\"../x\"\nargs=\"\"\nranks=[1]\n"),
            "cases.toml:4: 'case[0].app': '../x' is not an app name (a folder of apps/, e.g. \"wave3d\")");
  EXPECT_EQ(error_of("[[case]]\napp=\"a\"\nargs=\"\"\nranks=[1]\n"),
            "cases.toml: 'settings.machine': missing: the machine file every method prices with");
  EXPECT_NE(error_of("[settings\n").find("cases.toml:1: not valid TOML"), std::string::npos);
}

TEST(ValidateCases, MethodsListChecksNamesAndAlwaysMeasures) {
  EXPECT_EQ(parse_methods("naive,static"), (std::set<std::string>{"measured", "naive", "static"}));
  EXPECT_EQ(parse_methods("signature,learned"), (std::set<std::string>{"measured", "signature", "learned"}));
  EXPECT_EQ(parse_methods("static-noisy"), (std::set<std::string>{"measured", "static-noisy"}));
  EXPECT_THROW((void)parse_methods("skeletons"), UserError);
  try {
    (void)parse_methods("signatures");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "--methods: unknown method 'signatures'");
  }
}

TEST(ValidateCases, SignatureSettingsAndTheLearnedDatasetAreReadAndChecked) {
  CasesFile f = parse_cases(
      "[settings]\nmachine = \"m\"\nsignature_measure = 5\nsignature_warmup = 2\n"
      "[[case]]\napp=\"wave3d\"\nargs=\"--n {n}\"\nn=8\ndataset=\"runs.jsonl\"\nranks=[2]\n",
      "/cases/cases.toml");
  EXPECT_EQ(f.settings.signature_measure, 5);
  EXPECT_EQ(f.settings.signature_warmup, "2");
  ASSERT_EQ(f.cases.size(), 1u);
  // `dataset` is the learned method's file, not a placeholder; runs resolve it against the cases file
  EXPECT_EQ(f.cases[0].placeholders.size(), 1u);
  std::vector<validate::Run> runs = expand(f);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].dataset, "/cases/runs.jsonl");
  EXPECT_EQ(parse_cases("[settings]\nmachine=\"m\"\n[[case]]\napp=\"a\"\nargs=\"\"\nranks=[1]\n", "c.toml")
                .settings.signature_warmup,
            "auto");
  EXPECT_EQ(error_of("[settings]\nmachine = \"m\"\nsignature_warmup = \"soon\"\n"),
            "cases.toml:3: 'settings.signature_warmup': expected \"auto\" or an integer >= 0");
}

TEST(ValidateRows, ARowReadsBackAsWrittenAndAMalformedOneIsAnError) {
  Row r;
  r.app = "wave3d";
  r.args = "--n 8";
  r.ranks = 2;
  r.method = "skeleton";
  r.machine = "m.toml";
  r.measured_s = 0.5;
  r.predicted_s = 0.25;
  r.error = -0.5;
  r.note = "why";
  Row back = row_from_json(to_json(r));
  EXPECT_EQ(back.machine, "m.toml");
  EXPECT_EQ(back.predicted_s, 0.25);
  EXPECT_EQ(back.error, -0.5);
  EXPECT_FALSE(back.measured_q1_s.has_value());
  EXPECT_THROW((void)row_from_json(nlohmann::json{{"app", "x"}}), UserError);
  EXPECT_THROW((void)row_from_json(nlohmann::json{{"app", "x"}, {"args", ""}, {"ranks", 1}, {"method", "naive"},
                                                  {"predicted_s", "fast"}}),
               UserError);
}

std::filesystem::path write(const std::string& name, const std::string& text) {
  auto path = perfcast::testing::scratch() / name;
  std::ofstream(path) << text;
  return path;
}

TEST(ValidateAppBindings, SubstitutesPlaceholdersRanksAndLetNamesLeavingRankAndSize) {
  auto path = write("good.toml", R"toml(
[static]
source = "app.c"
[static.let]
lx = "floordiv(n, px)"
px = "select(ranks >= 2, 2, 1)"
[static.bind]
lx = "lx"
steps = "steps"
up = "select(rank < size - 1, rank + 1, -1)"
[timed_region]
baseline = { steps = 0 }
)toml");
  AppBindings b = *load_app_bindings(path);
  EXPECT_EQ(b.source, path.parent_path() / "app.c");
  EXPECT_EQ(b.timed_region_baseline.at("steps"), expr::Value(0));
  auto params = bind_parameters(b, {{"n", expr::Value(64)}, {"steps", expr::Value(10)}, {"ranks", expr::Value(2)}});
  std::map<std::string, std::string> m(params.begin(), params.end());
  EXPECT_EQ(m.at("lx"), "32");
  EXPECT_EQ(m.at("steps"), "10");
  EXPECT_NE(m.at("up").find("rank"), std::string::npos);  // predict evaluates it per rank
}

TEST(ValidateAppBindings, LeavesTheProcessGridOfMpiDimsCreateToPredict) {
  // dims3_* are predict's names for MPI_Dims_create(size, 3): a block length bound through them
  // holds at every rank count, where a table of grids would hold only at the counts it lists.
  auto path = write("dims.toml", R"toml(
[static]
source = "app.c"
[static.bind]
lx = "floordiv(n, dims3_0) + select(floordiv(rank, dims3_1 * dims3_2) < mod(n, dims3_0), 1, 0)"
ly = "floordiv(n, dims2_1)"
)toml");
  AppBindings b = *load_app_bindings(path);
  auto params = bind_parameters(b, {{"n", expr::Value(10)}, {"ranks", expr::Value(4)}});
  std::map<std::string, std::string> m(params.begin(), params.end());
  EXPECT_NE(m.at("lx").find("dims3_0"), std::string::npos) << m.at("lx");
  EXPECT_NE(m.at("ly").find("dims2_1"), std::string::npos) << m.at("ly");
}

TEST(ValidateAppBindings, ANameWithoutAValueIsAnErrorNamingTheBindingAndItsLine) {
  auto path = write("unbound.toml", "[static]\nsource = \"app.c\"\n[static.bind]\nlx = \"n * m\"\n");
  AppBindings b = *load_app_bindings(path);
  try {
    (void)bind_parameters(b, {{"n", expr::Value(4)}, {"ranks", expr::Value(1)}});
    FAIL();
  } catch (const UserError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("unbound.toml:4: 'static.bind.lx': 'm' has no value"), std::string::npos) << what;
  }
  EXPECT_FALSE(load_app_bindings(perfcast::testing::scratch() / "absent.toml").has_value());
}

TEST(ValidateAppBindings, TheLearnedProbeBuildsLibrariesAreReadAndChecked) {
  auto path = write("link.toml", "[static]\nsource = \"app.c\"\n[static.bind]\nn = \"n\"\n"
                                 "[learned]\nlink = [\"-lfftw3\", \"-lm\"]\n");
  EXPECT_EQ(load_app_bindings(path)->learned_link, (std::vector<std::string>{"-lfftw3", "-lm"}));
  auto bad = write("badlink.toml", "[static]\nsource = \"app.c\"\n[static.bind]\nn = \"n\"\n"
                                   "[learned]\nlink = \"-lfftw3\"\n");
  try {
    (void)load_app_bindings(bad);
    FAIL();
  } catch (const UserError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("badlink.toml:6: 'learned.link': expected an array of strings"), std::string::npos) << what;
  }
}

// Every app of apps/ names a learned dataset that exists; lu and fft3d link their libraries.
TEST(ValidateAppBindings, EveryShippedAppNamesALearnedDatasetAndItsLibraries) {
  for (const char* app : {"wave3d", "cg", "nbody", "mg", "bfs", "lu", "fft3d"}) {
    auto b = load_app_bindings(std::filesystem::path(PERFCAST_SOURCE_DIR) / "apps" / app / "validate.toml");
    ASSERT_TRUE(b.has_value()) << app;
    EXPECT_TRUE(std::filesystem::exists(b->learned_dataset)) << app << ": " << b->learned_dataset;
  }
  auto lu = load_app_bindings(std::filesystem::path(PERFCAST_SOURCE_DIR) / "apps" / "lu" / "validate.toml");
  EXPECT_EQ(lu->learned_link, std::vector<std::string>{"-lblas"});
  auto fft3d = load_app_bindings(std::filesystem::path(PERFCAST_SOURCE_DIR) / "apps" / "fft3d" / "validate.toml");
  EXPECT_EQ(fft3d->learned_link, std::vector<std::string>{"-lfftw3"});
}

TEST(ValidateAppBindings, TheShippedFilesLoadAndBindAQuickCase) {
  for (const char* app : {"wave3d", "cg", "nbody", "lu"}) {
    auto b = load_app_bindings(std::filesystem::path(PERFCAST_SOURCE_DIR) / "apps" / app / "validate.toml");
    ASSERT_TRUE(b.has_value()) << app;
    EXPECT_TRUE(std::filesystem::exists(b->source)) << app;
    expr::Bindings v{{"n", expr::Value(16)},
                     {"steps", expr::Value(4)},
                     {"iters", expr::Value(4)},
                     {"bodies", expr::Value(64)},
                     {"ranks", expr::Value(2)}};
    EXPECT_FALSE(bind_parameters(*b, v).empty()) << app;
  }
}

}  // namespace
}  // namespace perfcast::validate
