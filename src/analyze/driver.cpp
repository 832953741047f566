// The analyser's driver: compiles each unit with clang (Fortran: flang) to
// unoptimised LLVM IR,
// each with its own flags (the optimisation itself runs in-process, after MPI
// declarations have been annotated), or takes the bitcode a build wrote,
// checks that the units make one program, gathers the library-cost table, and
// hands over to the IR analysis.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "analyze/analyze.h"
#include "analyze/bitcode_facts.h"
#include "analyze/build_command.h"
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

// The pinned MPI's include flags, asked from its wrapper (the C or the C++ one)
// so they follow the install.
std::vector<std::string> mpi_compile_flags(const std::string& wrapper, const std::string& compiler) {
  CompilerRun r = run({wrapper, "--showme:compile"}, {{"OMPI_CC", compiler}, {"OMPI_CXX", compiler}});
  if (r.exit_code != 0)
    throw UserError(fmt::format("cannot ask {} for the MPI compile flags: {}", wrapper, r.output), {},
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
    for (const auto& glob : extra.value("ignore_demangled", nlohmann::json::array()))
      table["ignore_demangled"].push_back(glob);
    // A named copy: items() of the temporary value() returns would outlive it.
    const nlohmann::json functions = extra.value("functions", nlohmann::json::object());
    for (const auto& [name, cost] : functions.items()) table["functions"][name] = cost;
  }
  return table;
}

// The units to compile: the listed sources alike, or the build's units, each
// with the flags after `--` added.
std::vector<CompileUnit> units_of(const AnalyzeOptions& o) {
  std::vector<CompileUnit> units;
  for (const fs::path& src : o.sources) {
    if (!fs::exists(src)) throw UserError(fmt::format("source file '{}' does not exist", src.string()));
    units.push_back({src, o.compile_flags, is_cxx_source(src), "the command line"});
  }
  for (CompileUnit u : o.units) {
    if (!fs::exists(u.source))
      throw UserError(fmt::format("source file '{}' does not exist ({})", u.source.string(), u.origin), {},
                      "rebuild or regenerate compile_commands.json, or --exclude the file");
    u.flags.insert(u.flags.end(), o.compile_flags.begin(), o.compile_flags.end());
    units.push_back(std::move(u));
  }
  return units;
}

// Of the bitcode files, those that make one program: several that define main
// are an error unless `main_unit` names one (path or path suffix, matched on
// the bitcode's file and its source), whose rivals are left out.
std::vector<fs::path> one_program(const std::vector<fs::path>& bitcode, const std::vector<std::string>& sources,
                                  const AnalyzeOptions& o, const std::function<void(const std::string&)>& say) {
  auto ends_with = [](const std::string& path, const std::string& suffix) {
    if (suffix.empty() || path.size() < suffix.size()) return false;
    if (path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
    return path.size() == suffix.size() || path[path.size() - suffix.size() - 1] == '/' || suffix[0] == '/';
  };
  std::vector<size_t> mains;
  std::vector<std::string> compiled_from(bitcode.size());  // the module's own source file
  for (size_t i = 0; i < bitcode.size(); ++i) {
    detail::BitcodeFacts facts = detail::read_bitcode_facts(bitcode[i]);
    compiled_from[i] = facts.source;
    if (facts.defines_main) mains.push_back(i);
  }
  if (mains.size() <= 1) return bitcode;
  std::string listed;
  for (size_t i : mains)
    listed += sources[i] == bitcode[i].string() ? fmt::format("\n  {} (from {})", sources[i], compiled_from[i])
                                                : fmt::format("\n  {}", sources[i]);
  if (o.main_unit.empty())
    throw UserError(fmt::format("{} units define main:{}", mains.size(), listed), {},
                    "say which is the program with --main-unit FILE, or leave the others out with --exclude GLOB");
  std::vector<fs::path> kept;
  size_t chosen = 0;
  for (size_t i = 0; i < bitcode.size(); ++i) {
    bool is_main = std::find(mains.begin(), mains.end(), i) != mains.end();
    bool named = ends_with(sources[i], o.main_unit) || ends_with(bitcode[i].string(), o.main_unit) ||
                 ends_with(compiled_from[i], o.main_unit);
    if (is_main && !named) {
      say(fmt::format("leaving out {}: it defines main too (--main-unit {})", sources[i], o.main_unit));
      continue;
    }
    chosen += is_main ? 1 : 0;
    kept.push_back(bitcode[i]);
  }
  if (chosen != 1)
    throw UserError(fmt::format("--main-unit {} names {} of the units that define main:{}", o.main_unit, chosen, listed),
                    {}, "give the path (or its last components) of exactly one of them");
  return kept;
}

}  // namespace

model::ProgramModel analyze_model(const AnalyzeOptions& o) {
  const auto started = std::chrono::steady_clock::now();
  auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  if (!is_opt_level(o.opt_level))
    throw UserError(fmt::format("unknown optimisation level -O{}", o.opt_level), {}, "use -O0 ... -O3, -Os or -Oz");
  auto say = [&](const std::string& s) {
    if (o.progress) o.progress(s);
  };
  std::vector<CompileUnit> units = units_of(o);
  if (units.empty() && o.bitcode.empty()) throw UserError("no source files to analyse");
  ScratchDirectory scratch("perfcast-analyze");
  const fs::path& dir = scratch.path();

  detail::IrInput in;
  in.opt_level = o.opt_level;
  in.branch_probabilities = o.branch_probabilities;
  in.library_costs = library_costs(o);
  in.progress = o.progress;
  in.mca = o.mca;
  in.mcpu = o.mcpu;
  in.mcpu_why = o.mcpu_why;
  in.host_cycles = o.host_cycles;
  in.debug = o.debug;
  const fs::path first = units.empty() ? o.bitcode.front() : units.front().source;
  in.program = o.program.empty() ? first.stem().string() : o.program;
  if (o.program.empty() && units.empty())  // foo.o.perfcast.bc -> foo
    in.program = first.filename().string().substr(0, first.filename().string().find('.'));

  std::vector<std::string> sources;  // per bitcode file, for messages
  std::optional<std::vector<std::string>> mpi_c, mpi_cxx;  // asked once per language
  bool fortran = false;
  for (size_t i = 0; i < units.size(); ++i) {
    const CompileUnit& u = units[i];
    in.source += (i ? " " : "") + u.source.string();
    fs::path bc = dir / fmt::format("{}-{}.bc", i, u.source.stem().string());
    if (detail::is_fortran_source(u.source)) {
      // mpif.h sits in the C wrapper's include directory.
      if (!mpi_c) mpi_c = mpi_compile_flags(o.mpicc, o.clang);
      std::vector<std::string> argv = detail::flang_command(o.flang, u.source, bc, dir, o.opt_level, *mpi_c, u.flags);
      say(fmt::format("compiling {}/{} {} ({} -O{})", i + 1, units.size(), u.source.string(), o.flang, o.opt_level));
      CompilerRun r = run(argv);
      if (r.exit_code != 0)
        throw UserError(fmt::format("{} does not compile ({}):\n{}", u.source.string(), u.origin,
                                    detail::flang_messages(r.output)),
                        {},
                        r.exit_code == 127 ? fmt::format("install {} (Debian package {})", o.flang, toolchain::kFlangPackage)
                        : o.units.empty()  ? std::string("compile flags go after `--`, e.g. `-- -DN=64 -Iinclude`")
                                           : std::string("check the build's flags for it, or --exclude it"));
      in.bitcode_files.push_back(bc);
      sources.push_back(u.source.string());
      fortran = true;
      continue;
    }
    const std::string compiler = u.cxx ? cxx_driver_of(o.clang) : o.clang;
    std::optional<std::vector<std::string>>& mpi = u.cxx ? mpi_cxx : mpi_c;
    if (!mpi) mpi = mpi_compile_flags(u.cxx ? o.mpicxx : o.mpicc, compiler);
    std::vector<std::string> argv = {compiler, "-c"};
    for (auto& f : bitcode_flags(o.opt_level)) argv.push_back(f);
    argv.insert(argv.end(), mpi->begin(), mpi->end());
    argv.insert(argv.end(), u.flags.begin(), u.flags.end());
    argv.insert(argv.end(), {u.source.string(), "-o", bc.string()});
    say(fmt::format("compiling {}/{} {} ({} -O{})", i + 1, units.size(), u.source.string(), compiler, o.opt_level));
    CompilerRun r = run(argv);
    if (r.exit_code != 0)
      throw UserError(fmt::format("{} does not compile ({}):\n{}", u.source.string(), u.origin, r.output), {},
                      o.units.empty() ? "compile flags go after `--`, e.g. `-- -DN=64 -Iinclude`"
                                      : "check the build's flags for it, or --exclude it");
    in.bitcode_files.push_back(bc);
    sources.push_back(u.source.string());
  }
  const double compile_s = seconds_since(started);
  for (const fs::path& bc : o.bitcode) {
    if (!fs::exists(bc)) throw UserError(fmt::format("bitcode file '{}' does not exist", bc.string()));
    in.bitcode_files.push_back(bc);
    sources.push_back(bc.string());
    in.source += (in.source.empty() ? "" : " ") + bc.string();
  }
  in.bitcode_files = one_program(in.bitcode_files, sources, o, say);
  in.origin = fmt::format("perfcast analyze ({}{} -O{})", o.clang, fortran ? ", " + o.flang : "", o.opt_level);
  const auto analysis_started = std::chrono::steady_clock::now();
  model::ProgramModel model = detail::analyze_bitcode(in);
  say(fmt::format("{} units: compiled in {:.2f} s, analysed in {:.2f} s", in.bitcode_files.size(), compile_s,
                  seconds_since(analysis_started)));
  return model;
}

std::string bitcode_opt_level(const std::vector<std::filesystem::path>& bitcode) {
  std::set<std::string> levels;
  std::string listed;
  for (const auto& bc : bitcode) {
    detail::BitcodeFacts facts = detail::read_bitcode_facts(bc);
    if (!facts.opt_level)
      throw UserError(fmt::format("{}: the optimisation level it was compiled for is not recorded", bc.string()), {},
                      "give it with -O, or rebuild with `perfcast mpicc`, which records it");
    levels.insert(*facts.opt_level);
    listed += fmt::format("\n  {}: -O{}", bc.string(), *facts.opt_level);
  }
  if (levels.size() != 1)
    throw UserError(fmt::format("the bitcode files were compiled at different optimisation levels:{}", listed), {},
                    "say which level to analyse at with -O");
  return *levels.begin();
}

nlohmann::ordered_json analyze(const AnalyzeOptions& options) { return model::program_model_json(analyze_model(options)); }

}  // namespace perfcast::analyze
