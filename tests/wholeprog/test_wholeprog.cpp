// `perfcast analyze` on a whole application as its build makes it: a real
// CMake build's compile_commands.json (per-file defines and include
// directories, a C++ unit, a second main), the same application built by a
// plain make with `perfcast mpicc` as its compiler, and the reading of build
// command lines underneath.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "analyze/build_command.h"
#include "analyze/compile_commands.h"
#include "model/costs.h"
#include "model/program_model.h"
#include "perfcast_cli.h"
#include "scratch.h"
#include "support/error.h"
#include "support/process.h"
#include "support/toolchain.h"

using namespace perfcast;
namespace fs = std::filesystem;
using perfcast::testing::perfcast_run;

namespace {

const fs::path kApp = fs::path(PERFCAST_SOURCE_DIR) / "tests/wholeprog/app";
const std::string kPerfcast = std::string(PERFCAST_BINARY_DIR) + "/bin/perfcast";

// The application's build directory, configured by CMake with Open MPI's
// wrappers as compilers, as a user's build is (configuring writes
// compile_commands.json; nothing needs building for it).
fs::path configure_app() {
  fs::path build = perfcast::testing::scratch() / "cmake-build";
  ProcessResult r = run_process(
      {"cmake", "-S", kApp.string(), "-B", build.string(), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
       "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DCMAKE_C_COMPILER=mpicc.openmpi", "-DCMAKE_CXX_COMPILER=mpicxx.openmpi"},
      std::chrono::seconds(120), {{"OMPI_CC", toolchain::kClang}, {"OMPI_CXX", toolchain::kClangxx}});
  EXPECT_EQ(r.exit_code, 0) << r.stdout_text << r.stderr_text;
  return build;
}

nlohmann::json read_json(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

// The model without the fields that say where it came from (the list of
// inputs and the command), which differ by construction between the ways in.
nlohmann::json without_provenance(nlohmann::json model) {
  model.erase("source");
  model.erase("origin");
  return model;
}

model::RankCounts counts(const fs::path& model_file, const std::string& function, expr::Bindings b) {
  model::ProgramModel m = model::load_program_model(model_file);
  b["rank"] = 0;
  b["size"] = 1;
  return model::evaluate_rank(model::symbolic_costs(m, function), b, 0);
}

// The parameters a model asks the user for that stand for code it could not see.
std::vector<std::string> library_parameters(const nlohmann::json& model) {
  std::vector<std::string> names;
  for (const auto& [name, parameter] : model["parameters"].items())
    if (name.rfind("lib_", 0) == 0) names.push_back(name);
  return names;
}

fs::path write(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
  return file;
}

}  // namespace

TEST(BuildCommand, SplitsShellQuotedCommandsAsShDoes) {
  auto words = analyze::split_shell_words(R"(cc -DMSG="\"a b\"" 'x y' a\ b  -DQ='it'"'"'s' "")");
  std::vector<std::string> expected = {"cc", "-DMSG=\"a b\"", "x y", "a b", "-DQ=it's", ""};
  EXPECT_EQ(words, expected);
  EXPECT_THROW(analyze::split_shell_words("cc 'open"), UserError);
  EXPECT_THROW(analyze::split_shell_words("cc \"open"), UserError);
}

TEST(BuildCommand, KeepsWhatTheFrontEndReadsAndDropsTheRest) {
  auto b = analyze::parse_build_command(
      analyze::split_shell_words("/usr/bin/gcc-12 -O3 -Iinc -isystem /sys/inc -I ../other -DX=1 -D Y -UZ -std=c11 "
                                 "-fopenmp -fsanitize=address -fdiagnostics-color=always -Wall -Werror -MD -MF a.d "
                                 "-MT a.o -march=native -include cfg.h -g -o out/a.o -c src/a.c"),
      "/base/build");
  std::vector<std::string> expected = {"-I",
                                       "/base/build/inc",
                                       "-isystem",
                                       "/sys/inc",
                                       "-I",
                                       "/base/other",
                                       "-D",
                                       "X=1",
                                       "-D",
                                       "Y",
                                       "-U",
                                       "Z",
                                       "-std=c11",
                                       "-fopenmp",
                                       "-march=native",
                                       "-include",
                                       "/base/build/cfg.h"};
  EXPECT_EQ(b.front_end_flags, expected);
  EXPECT_EQ(b.opt_level, "3");
  EXPECT_EQ(b.output, "out/a.o");
  EXPECT_EQ(b.sources, std::vector<std::string>{"src/a.c"});
  EXPECT_TRUE(b.compile_only);
  EXPECT_FALSE(analyze::is_cxx_compiler(b.compiler));
  EXPECT_TRUE(analyze::is_cxx_compiler("/usr/bin/mpicxx.openmpi"));
  EXPECT_TRUE(analyze::is_cxx_compiler("g++-12"));
  EXPECT_TRUE(analyze::is_mpi_wrapper("mpic++"));
  EXPECT_FALSE(analyze::is_mpi_wrapper("mpif90"));
  EXPECT_EQ(analyze::cxx_driver_of("clang-19"), "clang++-19");
  EXPECT_EQ(analyze::cxx_driver_of("/opt/llvm/bin/clang"), "/opt/llvm/bin/clang++");
}

TEST(CompileCommands, ArgumentsAndCommandFormsGiveTheSameUnitsAndDuplicatesCountOnce) {
  fs::path dir = perfcast::testing::scratch() / "forms";
  fs::create_directories(dir / "src");
  write(dir / "src/a.c", "int a(void) { return 1; }\n");
  write(dir / "src/b.cpp", "int b() { return 2; }\n");
  nlohmann::json with_command = nlohmann::json::array(), with_arguments = nlohmann::json::array();
  for (std::string file : {"src/a.c", "src/b.cpp", "src/a.c"}) {
    std::string compiler = file.ends_with(".cpp") ? "c++" : "cc";
    with_command.push_back({{"directory", dir.string()},
                            {"file", file},
                            {"command", compiler + " -O2 -D'GREETING=\"hi there\"' -Iinc -c " + file}});
    with_arguments.push_back({{"directory", dir.string()},
                              {"file", file},
                              {"arguments", {compiler, "-O2", "-DGREETING=\"hi there\"", "-Iinc", "-c", file}}});
  }
  write(dir / "command.json", with_command.dump());
  write(dir / "arguments.json", with_arguments.dump());
  auto from_command = analyze::read_compile_commands(dir / "command.json", {});
  auto from_arguments = analyze::read_compile_commands(dir / "arguments.json", {});
  ASSERT_EQ(from_command.units.size(), 2u) << "the same file with the same flags twice is one unit";
  ASSERT_EQ(from_arguments.units.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(from_command.units[i].source, from_arguments.units[i].source);
    EXPECT_EQ(from_command.units[i].flags, from_arguments.units[i].flags);
    EXPECT_EQ(from_command.units[i].cxx, from_arguments.units[i].cxx);
  }
  EXPECT_EQ(from_command.units[0].source, dir / "src/a.c");
  std::vector<std::string> flags = {"-D", "GREETING=\"hi there\"", "-I", (dir / "inc").string()};
  EXPECT_EQ(from_command.units[0].flags, flags);
  EXPECT_FALSE(from_command.units[0].cxx);
  EXPECT_TRUE(from_command.units[1].cxx);
  EXPECT_EQ(from_command.opt_levels, std::set<std::string>{"2"});
  auto excluded = analyze::read_compile_commands(dir / "command.json", {"*.cpp"});
  ASSERT_EQ(excluded.units.size(), 1u);
  EXPECT_EQ(excluded.units[0].source, dir / "src/a.c");
}

TEST(CompileCommands, BadInputIsNamedByFileEntryAndField) {
  fs::path dir = perfcast::testing::scratch() / "bad";
  fs::create_directories(dir);
  auto message = [&](const std::string& name, const std::string& text) {
    fs::path file = write(dir / name, text);
    try {
      analyze::read_compile_commands(file, {});
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  std::string no_file = message("no_file.json", R"([
  {"directory": "/tmp", "file": "a.c", "command": "cc -c a.c"},
  {"directory": "/tmp", "command": "cc -c b.c"}
])");
  EXPECT_NE(no_file.find("no_file.json"), std::string::npos) << no_file;
  EXPECT_NE(no_file.find("[1].file"), std::string::npos) << no_file;
  EXPECT_NE(no_file.find("entry 1 has no \"file\""), std::string::npos) << no_file;

  std::string bad_json =
      message("bad_json.json", "[\n  {\"directory\": \"/tmp\",\n   \"file\": \"a.c\" \"command\": \"cc\"}\n]\n");
  EXPECT_NE(bad_json.find("bad_json.json:3:"), std::string::npos) << bad_json;
  EXPECT_NE(bad_json.find("not valid JSON"), std::string::npos) << bad_json;

  std::string open_quote =
      message("quote.json", R"([{"directory": "/tmp", "file": "a.c", "command": "cc '-DX -c a.c"}])");
  EXPECT_NE(open_quote.find("[0].command"), std::string::npos) << open_quote;
  EXPECT_NE(open_quote.find("never closed"), std::string::npos) << open_quote;

  std::string neither = message("neither.json", R"([{"directory": "/tmp", "file": "a.c"}])");
  EXPECT_NE(neither.find("neither \"arguments\" nor \"command\""), std::string::npos) << neither;

  std::string not_array = message("object.json", R"({"directory": "/tmp"})");
  EXPECT_NE(not_array.find("expected an array"), std::string::npos) << not_array;
}

// The model from the build's compile_commands.json is the model of the same
// sources listed with the flags that suit them all; each unit's -D reached it.
TEST(WholeProgram, CompileCommandsModelEqualsTheListedSourcesModel) {
  fs::path build = configure_app();
  fs::path from_build = perfcast::testing::scratch() / "from_build.json";
  auto r = perfcast_run({"analyze", "--compile-commands", build.string(), "--exclude", "*/tools/*", "--program", "app",
                         "--no-mca", "-o", from_build.string()},
                        std::chrono::seconds(240));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  // Progress: one line per unit, and the timing at the end.
  EXPECT_NE(r.stderr_text.find("compiling 1/4 "), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("compiling 4/4 "), std::string::npos) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("checker.c: excluded"), std::string::npos) << r.stderr_text;
  EXPECT_TRUE(std::regex_search(r.stderr_text, std::regex(R"(4 units: compiled in [0-9.]+ s, analysed in [0-9.]+ s)")))
      << r.stderr_text;

  fs::path listed = perfcast::testing::scratch() / "listed.json";
  auto l = perfcast_run(
      {"analyze", (kApp / "src/main.c").string(), (kApp / "src/solver.c").string(), (kApp / "src/halo.c").string(),
       (kApp / "src/report.cpp").string(), "--program", "app", "-O", "2", "--no-mca", "-o", listed.string(), "--",
       "-I" + (kApp / "include").string(), "-I" + (kApp / "include/solver").string(),
       "-I" + (kApp / "include/halo").string(), "-DSOLVER_SWEEPS=7", "-DHALO_DEPTH=3"},
      std::chrono::seconds(240));
  ASSERT_EQ(l.exit_code, 0) << l.stderr_text;
  nlohmann::json a = read_json(from_build), b = read_json(listed);
  EXPECT_EQ(without_provenance(a), without_provenance(b));
  for (const char* f : {"main", "solve", "exchange", "report"}) EXPECT_TRUE(a["functions"].contains(f)) << f;

  // SOLVER_SWEEPS=7 reached solver.c (4 flops per point per sweep), HALO_DEPTH=3 halo.c (2 Sendrecv per round).
  EXPECT_EQ(a["functions"]["solve"]["body"][0]["trip_count"], "7") << a["functions"]["solve"].dump();
  for (int n : {10, 333}) {
    EXPECT_DOUBLE_EQ(counts(from_build, "solve", {{"n", n}}).flops_double, 7.0 * 4 * n) << n;
    EXPECT_DOUBLE_EQ(counts(from_build, "exchange", {{"n", n}, {"rank", 0}, {"size", 1}}).mpi_calls, 6.0);
  }
  // The C++ unit's operator new[]/delete[] and iostream need no binding.
  EXPECT_EQ(library_parameters(a), std::vector<std::string>{});
}

TEST(WholeProgram, SeveralMainsAreRefusedUntilOneIsChosen) {
  fs::path build = configure_app();
  auto refused = perfcast_run({"analyze", "--compile-commands", (build / "compile_commands.json").string(), "--no-mca"},
                              std::chrono::seconds(240));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.stderr_text.find("2 units define main"), std::string::npos) << refused.stderr_text;
  EXPECT_NE(refused.stderr_text.find("src/main.c"), std::string::npos) << refused.stderr_text;
  EXPECT_NE(refused.stderr_text.find("tools/checker.c"), std::string::npos) << refused.stderr_text;
  EXPECT_NE(refused.stderr_text.find("--main-unit"), std::string::npos) << refused.stderr_text;

  fs::path chosen = perfcast::testing::scratch() / "chosen.json";
  auto ok = perfcast_run(
      {"analyze", "--compile-commands", build.string(), "--main-unit", "src/main.c", "--no-mca", "-o", chosen.string()},
      std::chrono::seconds(240));
  ASSERT_EQ(ok.exit_code, 0) << ok.stderr_text;
  EXPECT_NE(ok.stderr_text.find("leaving out"), std::string::npos) << ok.stderr_text;
  EXPECT_TRUE(read_json(chosen)["functions"].contains("solve"));
}

// `make CC="perfcast mpicc" CXX="perfcast mpicxx"` builds the application
// (objects, linked program) and writes each object's bitcode; analyze --ir
// reads the build's -O level from them and gives the listed sources' model.
TEST(WholeProgram, CompilerModeBuildsObjectsAndBitcodeThatAnalyseAlike) {
  fs::path work = perfcast::testing::scratch() / "make-build";
  fs::copy(kApp, work, fs::copy_options::recursive);
  ProcessResult made =
      run_process({"make", "-C", work.string(), "CC=" + kPerfcast + " mpicc", "CXX=" + kPerfcast + " mpicxx"},
                  std::chrono::seconds(240));
  ASSERT_EQ(made.exit_code, 0) << made.stdout_text << made.stderr_text;
  EXPECT_TRUE(fs::exists(work / "app")) << "the build links";
  for (const char* unit : {"main", "solver", "halo", "report"}) {
    EXPECT_TRUE(fs::exists(work / (std::string(unit) + ".o"))) << unit;
    EXPECT_TRUE(fs::exists(work / (std::string(unit) + ".o.perfcast.bc"))) << unit;
  }
  EXPECT_TRUE(fs::exists(work / "solver.d")) << "the build's own dependency flags still reach its compile";
  EXPECT_FALSE(fs::exists(work / "app.perfcast.bc")) << "a link writes no bitcode";

  fs::path from_ir = perfcast::testing::scratch() / "from_ir.json";
  auto r = perfcast_run({"analyze", "--ir", work.string(), "--program", "app", "--no-mca", "-o", from_ir.string()},
                        std::chrono::seconds(240));
  ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
  EXPECT_NE(r.stderr_text.find("-O2"), std::string::npos) << "the recorded level: " << r.stderr_text;

  fs::path listed = perfcast::testing::scratch() / "listed_for_ir.json";
  auto l = perfcast_run(
      {"analyze", (work / "src/halo.c").string(), (work / "src/main.c").string(), (work / "src/report.cpp").string(),
       (work / "src/solver.c").string(), "--program", "app", "-O", "2", "--no-mca", "-o", listed.string(), "--",
       "-I" + (work / "include").string(), "-I" + (work / "include/solver").string(),
       "-I" + (work / "include/halo").string(), "-DSOLVER_SWEEPS=7", "-DHALO_DEPTH=3"},
      std::chrono::seconds(240));
  ASSERT_EQ(l.exit_code, 0) << l.stderr_text;
  EXPECT_EQ(without_provenance(read_json(from_ir)), without_provenance(read_json(listed)));
  for (int n : {10, 333}) EXPECT_DOUBLE_EQ(counts(from_ir, "solve", {{"n", n}}).flops_double, 7.0 * 4 * n) << n;
}

// C++ runtime calls (allocation, iostream, static initialisation, guards)
// are runtime work without flops: a C++ MPI program using them asks for no
// binding of theirs, at -O0 (every call kept) and -O2.
TEST(WholeProgram, CxxRuntimeCallsNeedNoBinding) {
  fs::path source = write(perfcast::testing::scratch() / "runtime.cpp", R"(
#include <mpi.h>
#include <iostream>
#include <string>
#include <vector>

struct Grid {
  explicit Grid(int n) : cells(new double[n]), n(n) {}
  ~Grid() { delete[] cells; }
  double* cells;
  int n;
};

static double step(Grid& g) {
  static const double weight = 0.5;  // a guarded local static
  double s = 0;
  for (int i = 0; i < g.n; ++i) s += weight * g.cells[i];
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int n = argc > 1 ? std::stoi(argv[1]) : 100;
  Grid* g = new Grid(n);
  for (int i = 0; i < n; ++i) g->cells[i] = i;
  double local = step(*g), total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  std::cout << "total " << total << " over " << n << std::endl;
  std::cerr << std::string("done") << '\n';
  delete g;
  MPI_Finalize();
  return 0;
}
)");
  for (const char* level : {"0", "2"}) {
    fs::path out = perfcast::testing::scratch() / fmt::format("runtime_O{}.json", level);
    auto r = perfcast_run({"analyze", source.string(), "-O", level, "--no-mca", "-o", out.string()},
                          std::chrono::seconds(240));
    ASSERT_EQ(r.exit_code, 0) << r.stderr_text;
    nlohmann::json model = read_json(out);
    EXPECT_EQ(library_parameters(model), std::vector<std::string>{}) << "-O" << level;
    EXPECT_TRUE(model["functions"].contains("main"));
  }
}

// Bitcode from a compiler that did not record its command line says nothing
// of its -O level: --ir asks for -O instead of guessing one; a directory
// without bitcode is named.
TEST(WholeProgram, IrWithoutARecordedLevelAsksForIt) {
  fs::path dir = perfcast::testing::scratch() / "plain-ir";
  fs::create_directories(dir / "empty");
  fs::path source = write(dir / "tiny.c", "int main(void) { return 0; }\n");
  fs::path bitcode = dir / "tiny.o.perfcast.bc";
  ProcessResult c = run_process({toolchain::kClang, "-c", "-emit-llvm", "-g", source.string(), "-o", bitcode.string()});
  ASSERT_EQ(c.exit_code, 0) << c.stderr_text;
  auto refused = perfcast_run({"analyze", "--ir", bitcode.string(), "--no-mca"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.stderr_text.find("tiny.o.perfcast.bc: the optimisation level it was compiled for is not recorded"),
            std::string::npos)
      << refused.stderr_text;
  EXPECT_NE(refused.stderr_text.find("-O"), std::string::npos) << refused.stderr_text;
  auto given = perfcast_run({"analyze", "--ir", bitcode.string(), "-O", "0", "--no-mca"});
  EXPECT_EQ(given.exit_code, 0) << given.stderr_text;
  EXPECT_NE(given.stdout_text.find("\"program\": \"tiny\""), std::string::npos) << given.stdout_text;
  auto empty = perfcast_run({"analyze", "--ir", (dir / "empty").string()});
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.stderr_text.find("no *.perfcast.bc files"), std::string::npos) << empty.stderr_text;
}
