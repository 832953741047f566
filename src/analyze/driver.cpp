// The analyser's driver: compiles each source with clang (Fortran: flang) to unoptimised LLVM IR
// (the optimisation itself runs in-process, after MPI declarations have been
// annotated), gathers the library-cost table, and hands over to the IR analysis.
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "analyze/analyze.h"
#include "analyze/fortran_bindings.h"
#include "analyze/ir_analysis.h"
#include "model/model_write.h"
#include "support/error.h"
#include "support/process.h"
#include "support/scratch_directory.h"
#include "support/toolchain.h"

namespace perfcast::analyze {

namespace {

namespace fs = std::filesystem;

// Runs argv without a shell; what it printed on both streams comes back as one
// text. A program that cannot start is reported as the shell does (127), so
// the caller's message and hint say what was being run.
struct CompilerRun {
  int exit_code = -1;
  std::string output;  // stdout, then stderr
};

CompilerRun run(const std::vector<std::string>& argv, const EnvironmentOverrides& environment = {}) {
  try {
    ProcessResult p = run_process(argv, std::nullopt, environment);
    return {p.exit_code, p.stdout_text + p.stderr_text};
  } catch (const UserError& e) {
    return {127, e.what()};
  }
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The pinned MPI's include flags, asked from its wrapper so they follow the install.
std::vector<std::string> mpi_compile_flags(const AnalyzeOptions& o) {
  CompilerRun r = run({o.mpicc, "--showme:compile"}, {{"OMPI_CC", o.clang}});
  if (r.exit_code != 0)
    throw UserError(fmt::format("cannot ask {} for the MPI compile flags: {}", o.mpicc, r.output), {},
                    "install Debian's openmpi (libopenmpi-dev) or pass -I flags after `--`");
  return split_words(r.output);
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw UserError(fmt::format("cannot read '{}'", p.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json library_costs(const AnalyzeOptions& o) {
  nlohmann::json table = nlohmann::json::parse(bundled_library_costs());
  for (const auto& file : o.library_cost_files) {
    nlohmann::json extra;
    try {
      extra = nlohmann::json::parse(read_file(file));
    } catch (const nlohmann::json::parse_error& e) {
      throw UserError(fmt::format("{}: not valid JSON: {}", file.string(), e.what()));
    }
    if (!extra.is_object()) throw UserError(fmt::format("{}: expected a JSON object", file.string()));
    for (const auto& name : extra.value("ignore", nlohmann::json::array())) table["ignore"].push_back(name);
    // A named copy: items() of the temporary value() returns would outlive it.
    const nlohmann::json functions = extra.value("functions", nlohmann::json::object());
    for (const auto& [name, cost] : functions.items()) table["functions"][name] = cost;
  }
  return table;
}

}  // namespace

model::ProgramModel analyze_model(const AnalyzeOptions& o) {
  if (o.sources.empty()) throw UserError("no source files to analyse");
  static const std::set<std::string> levels = {"0", "1", "2", "3", "s", "z"};
  if (!levels.count(o.opt_level))
    throw UserError(fmt::format("unknown optimisation level -O{}", o.opt_level), {}, "use -O0 ... -O3, -Os or -Oz");
  auto say = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  std::vector<std::string> mpi = mpi_compile_flags(o);
  ScratchDirectory scratch("perfcast-analyze");
  const fs::path& dir = scratch.path();

  detail::IrInput in;
  in.opt_level = o.opt_level;
  in.branch_probabilities = o.branch_probabilities;
  in.library_costs = library_costs(o);
  in.progress = o.progress;
  in.mca = o.mca;
  in.mcpu = o.mcpu;
  in.host_cycles = o.host_cycles;
  in.debug = o.debug;
  in.program = o.program.empty() ? o.sources.front().stem().string() : o.program;
  bool fortran = false;
  for (size_t i = 0; i < o.sources.size(); ++i) {
    const fs::path& src = o.sources[i];
    if (!fs::exists(src)) throw UserError(fmt::format("source file '{}' does not exist", src.string()));
    in.source += (i ? " " : "") + src.string();
    fs::path bc = dir / fmt::format("{}-{}.bc", i, src.stem().string());
    bool cxx = src.extension() == ".cpp" || src.extension() == ".cc" || src.extension() == ".cxx";
    if (detail::is_fortran_source(src)) {
      std::vector<std::string> argv = detail::flang_command(o.flang, src, bc, dir, o.opt_level, mpi, o.compile_flags);
      say(fmt::format("compiling {} ({} -O{})", src.string(), o.flang, o.opt_level));
      CompilerRun r = run(argv);
      if (r.exit_code != 0)
        throw UserError(fmt::format("{} does not compile:\n{}", src.string(), detail::flang_messages(r.output)), {},
                        r.exit_code == 127
                            ? fmt::format("install {} (Debian package {})", o.flang, toolchain::kFlangPackage)
                            : std::string("compile flags go after `--`, e.g. `-- -DN=64 -Iinclude`"));
      in.bitcode_files.push_back(bc);
      fortran = true;
      continue;
    }
    std::string compiler = o.clang;
    if (cxx && compiler == toolchain::kClang) compiler = toolchain::kClangxx;
    // At -O1 and above: the level's front-end decisions (no optnone, TBAA,
    // lifetime markers) but none of its IR passes; those run in-process after
    // the MPI declarations have been told what they may touch.
    std::vector<std::string> argv = {compiler, "-c", "-emit-llvm", "-g", "-O" + o.opt_level};
    if (o.opt_level == "0") argv.insert(argv.end(), {"-Xclang", "-disable-O0-optnone"});
    argv.insert(argv.end(), {"-Xclang", "-disable-llvm-passes"});
    argv.insert(argv.end(), mpi.begin(), mpi.end());
    argv.insert(argv.end(), o.compile_flags.begin(), o.compile_flags.end());
    argv.insert(argv.end(), {src.string(), "-o", bc.string()});
    say(fmt::format("compiling {} (clang -O{})", src.string(), o.opt_level));
    CompilerRun r = run(argv);
    if (r.exit_code != 0)
      throw UserError(fmt::format("{} does not compile:\n{}", src.string(), r.output), {},
                      "compile flags go after `--`, e.g. `-- -DN=64 -Iinclude`");
    in.bitcode_files.push_back(bc);
  }
  in.origin = fmt::format("perfcast analyze ({}{} -O{})", o.clang, fortran ? ", " + o.flang : "", o.opt_level);
  return detail::analyze_bitcode(in);
}

nlohmann::ordered_json analyze(const AnalyzeOptions& options) { return model::program_model_json(analyze_model(options)); }

}  // namespace perfcast::analyze
