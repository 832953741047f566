// `--emit c`: the function is compiled with clang-19 (warnings as errors, as a
// skeleton's build might be) and run; at the measured sizes, on both sides of
// every breakpoint and beyond the measured range it returns what the library
// predicts.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "fit/fit.h"
#include "fit/synthetic.h"
#include "fit/text.h"
#include "measure/launcher.h"
#include "support/toolchain.h"

namespace perfcast::fit {
namespace {

using namespace testing;

struct Compiled {
  std::string source;
  std::vector<double> values;
};

// Compiles `function` with a main() that prints fn(x) for each x, runs it.
Compiled compile_and_run(const std::string& function, const std::string& name, const std::vector<double>& xs) {
  auto dir = std::filesystem::temp_directory_path() / ("perfcast-fit-emit-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::string program = "#include <stdio.h>\n#include <stdlib.h>\n" + function +
                        "int main(int argc, char** argv) {\n"
                        "  for (int i = 1; i < argc; ++i) printf(\"%.17g\\n\", " + name + "(strtod(argv[i], 0)));\n"
                        "  return 0;\n}\n";
  std::ofstream(dir / "emitted.c") << program;
  auto cc = measure::run_process({toolchain::kClang, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", (dir / "emitted.c").string(),
                                  "-o", (dir / "emitted").string(), "-lm"},
                                 std::chrono::seconds(60));
  Compiled out{program, {}};
  EXPECT_EQ(cc.exit_code, 0) << cc.stderr_text << "\n" << program;
  if (cc.exit_code != 0) return out;
  std::vector<std::string> argv = {(dir / "emitted").string()};
  for (double x : xs) argv.push_back(fmt::format("{:.17g}", x));
  auto run = measure::run_process(argv, std::chrono::seconds(30));
  EXPECT_EQ(run.exit_code, 0) << run.stderr_text;
  std::istringstream in(run.stdout_text);
  for (double v; in >> v;) out.values.push_back(v);
  std::filesystem::remove_all(dir);
  return out;
}

void expect_c_matches_library(const Measurements& data, const FitResult& r) {
  SCOPED_TRACE(r.model.label());
  std::vector<double> xs;
  for (const auto& s : data.samples) xs.push_back(s.x);
  for (double b : r.model.breakpoints) xs.insert(xs.end(), {b, std::nextafter(b, 0.0), std::nextafter(b, 1e300)});
  xs.insert(xs.end(), {data.x_min() / 10, data.x_max() * 10});
  std::string fn = default_function_name(data.source);
  Compiled c = compile_and_run(emit_c(data, r, fn), fn, xs);
  ASSERT_EQ(c.values.size(), xs.size()) << c.source;
  for (size_t i = 0; i < xs.size(); ++i) {
    double expected = r.model.predict_s(xs[i]);
    // Same operations on the same doubles: equal to the last bit, except
    // that libm's pow may differ from the one C++ calls by an ulp.
    EXPECT_NEAR(c.values[i], expected, std::abs(expected) * 1e-15) << "x = " << xs[i] << "\n" << c.source;
  }
}

TEST(FitEmitC, CompilesAndAgreesWithTheLibrary) {
  auto sizes = log_spaced(1e7, 1e10, 12);
  auto paper = parse_measurements(csv_of(sizes, paper_time, Noise(0.01, 3), 3), "csv", "bench/dgemm.csv");
  expect_c_matches_library(paper, fit_one(paper, ModelKind::Piecewise, 2, false, false));
  expect_c_matches_library(paper, fit_one(paper, ModelKind::Piecewise, 2, false, true));
  expect_c_matches_library(paper, fit_one(paper, ModelKind::Piecewise, 3, true, false));
  expect_c_matches_library(paper, fit_one(paper, ModelKind::Linear, 1, true, false));
  auto cubic = parse_measurements(csv_of({64, 128, 256, 512}, [](double n) { return 2e-9 * n * n * n; }, Noise(0.01, 4),
                                         1, "n"),
                                  "csv", "matmul.csv");
  expect_c_matches_library(cubic, fit_one(cubic, ModelKind::Power, 1, true, false));
}

TEST(FitEmitC, CommentStatesDataAndErrors) {
  auto sizes = log_spaced(1e7, 1e10, 12);
  auto data = parse_measurements(csv_of(sizes, paper_time, Noise(0, 1)), "csv", "dgemm.csv");
  FitResult r = fit_one(data, ModelKind::Piecewise, 2, false, true);
  std::string c = emit_c(data, r, "dgemm_time");
  EXPECT_NE(c.find("static double dgemm_time(double flops) {"), std::string::npos) << c;
  EXPECT_NE(c.find("dgemm.csv: 12 sizes, flops 1e+07 .. 1e+10"), std::string::npos) << c;
  EXPECT_NE(c.find("0.173 ns/flop for flops < "), std::string::npos) << c;
  EXPECT_NE(c.find("0.165 ns/flop above"), std::string::npos) << c;
  EXPECT_NE(c.find("leave-one-out"), std::string::npos) << c;
  EXPECT_NE(c.find("return flops < "), std::string::npos) << c;
  // A file name cannot end the comment early.
  data.source = "odd*/name.csv";
  c = emit_c(data, r, "dgemm_time");
  EXPECT_NE(c.find("odd* /name.csv"), std::string::npos) << c;
}

TEST(FitEmitC, NamesAreCIdentifiers) {
  EXPECT_EQ(default_function_name("data/dgemm.csv"), "dgemm_time");
  EXPECT_EQ(default_function_name("runs/2d-stencil.json"), "x_2d_stencil_time");
  EXPECT_EQ(c_identifier("flops/rank"), "flops_rank");
  EXPECT_EQ(c_identifier("double"), "double_");
}

}  // namespace
}  // namespace perfcast::fit
