// `perfcast analyze`: C/C++ sources -> program model (JSON), by the LLVM-IR
// static analyser in src/analyze/.
#include <fnmatch.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analyze/analyze.h"
#include "analyze/compile_commands.h"
#include "cli/commands.h"
#include "machine/machine_io.h"
#include "machine/physics.h"
#include "support/error.h"
#include "support/output_file.h"
#include "support/toolchain.h"

namespace perfcast::cli {

namespace {

struct AnalyzeArgs {
  std::vector<std::string> positionals;  // sources, then (after `--`) compile flags
  std::vector<std::string> more;         // see add_analyze_command
  std::string output;
  std::string opt_level;  // empty: 2, or what the build's units were compiled with
  std::string compile_commands;
  std::vector<std::string> ir;
  std::vector<std::string> exclude;
  std::string main_unit;
  std::string program;
  std::vector<std::string> branch_probabilities;
  std::vector<std::string> library_costs;
  std::string mcpu;
  std::string machine;  // a machine file whose measured instruction cycles go into the scheduling model
  bool no_mca = false;
  bool debug = false;
};

std::pair<std::string, double> parse_branch_probability(const std::string& text) {
  auto eq = text.rfind('=');
  auto colon = text.rfind(':', eq);
  double p = -1;
  if (eq != std::string::npos && colon != std::string::npos && colon > 0 && colon + 1 < eq) {
    try {
      size_t used = 0;
      p = std::stod(text.substr(eq + 1), &used);
      if (used != text.size() - eq - 1) p = -1;
    } catch (const std::exception&) {
      p = -1;
    }
  }
  if (p < 0 || p > 1)
    throw UserError(fmt::format("--branch-probability '{}' is not FILE:LINE=P with P in [0, 1]", text), {},
                    "write e.g. --branch-probability wave3d.c:176=0.9");
  return {text.substr(0, eq), p};
}

// What a machine file says of its cores' in-core work: the CPU whose
// scheduling model prices it (node.cpu) and the measured cycles put into that
// model (node.instruction_cycles). A file with neither is an error: asked
// for, it would silently not apply.
struct MachineCores {
  std::string cpu;  // empty: the file names none
  analyze::HostInstructionCycles cycles;
};

MachineCores machine_cores_of(const std::string& file) {
  machine::Machine m = machine::load_machine_file(machine::find_machine_file(file));
  if (m.groups.size() != 1)
    throw UserError(fmt::format("--machine {}: {} node groups; analyze prices loops for one kind of core", file,
                                m.groups.size()),
                    {}, "give a machine file of one node group (perfcast calibrate writes one)");
  const machine::NodeGroup& g = m.groups.front();
  const machine::InstructionCycles& c = g.instruction_cycles;
  if (c.empty() && g.cpu.empty())
    throw UserError(fmt::format("--machine {}: the file has no node.cpu and no node.instruction_cycles to price "
                                "in-core work with", file),
                    {}, "perfcast calibrate writes both (calibrate again with this perfcast), add node.cpu (an "
                        "LLVM CPU name), or drop --machine");
  MachineCores out;
  out.cpu = g.cpu;
  if (c.empty()) return out;
  // Cycles are seconds times the file's clock: with a clock no core runs at
  // (or cycles no core has) they would be written into every loop's price.
  std::string implausible;
  for (const auto& f : machine::physics_findings(m))
    if (f.figure == "node.clock" || f.figure.rfind("node.instruction_cycles.", 0) == 0)
      implausible += "\n  " + machine::describe(f);
  if (!implausible.empty())
    throw UserError(fmt::format("--machine {}: its instruction cycles cannot be a real core's:{}", file, implausible),
                    {}, "calibrate the machine again with this perfcast (its clock probe is fixed), or drop --machine");
  analyze::HostInstructionCycles& h = out.cycles;
  h.fp_add_latency = c.fp_add_latency;
  h.fp_multiply_latency = c.fp_multiply_latency;
  h.fp_divide_latency = c.fp_divide_latency;
  h.fp_divide_interval = c.fp_divide_interval;
  h.fp_sqrt_latency = c.fp_sqrt_latency;
  h.fp_sqrt_interval = c.fp_sqrt_interval;
  h.source = file;
  return out;
}

// What analyze reads is C or C++ that clang compiles, or Fortran that flang
// compiles; anything else is refused here with what it is, instead of the
// compiler's first parse error.
void check_source(const std::filesystem::path& source) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(source, ec)) throw UserError(fmt::format("source '{}' does not exist", source.string()));
  if (fs::is_directory(source, ec))
    throw UserError(fmt::format("'{}' is a directory, not a source file", source.string()), {},
                    "give the C, C++ or Fortran files, or a whole build's compile_commands.json's files");
  static const std::set<std::string> c_family = {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".i", ".ii"};
  static const std::set<std::string> fortran = {".f", ".F", ".f77", ".F77", ".for", ".f90", ".F90", ".f95",
                                                ".F95", ".f03", ".F03", ".f08", ".F08"};
  std::string ext = source.extension().string();
  if (!c_family.count(ext) && !fortran.count(ext))
    throw UserError(fmt::format("'{}' is not a C, C++ or Fortran source (expected .c, .cc, .cpp, .cxx, .f, .f90, .F90 "
                                "...)", source.string()));
  if (fs::file_size(source, ec) == 0) throw UserError(fmt::format("source '{}' is empty", source.string()));
}

// A --branch-probability FILE:LINE must name a line of one of the sources: a
// misspelt file or a line past the end would otherwise change nothing, silently.
void check_branch_location(const std::string& location, const std::vector<std::filesystem::path>& sources) {
  auto colon = location.rfind(':');
  std::string file = location.substr(0, colon);
  long line = std::stol(location.substr(colon + 1));
  std::string names;
  for (const auto& source : sources) {
    names += (names.empty() ? "" : ", ") + source.filename().string();
    if (source.filename() != std::filesystem::path(file).filename()) continue;
    std::ifstream in(source);
    long lines = 0;
    for (std::string text; std::getline(in, text);) ++lines;
    if (line < 1 || line > lines)
      throw UserError(fmt::format("--branch-probability {}: {} has {} lines", location, source.string(), lines));
    return;
  }
  throw UserError(fmt::format("--branch-probability {}: '{}' is none of the sources ({})", location, file, names));
}

bool excluded(const std::vector<std::string>& globs, const std::filesystem::path& file) {
  for (const auto& glob : globs)
    if (fnmatch(glob.c_str(), file.c_str(), 0) == 0 || fnmatch(glob.c_str(), file.filename().c_str(), 0) == 0)
      return true;
  return false;
}

// The bitcode `perfcast mpicc` wrote: files as given, directories searched for *.perfcast.bc.
std::vector<std::filesystem::path> bitcode_files(const std::vector<std::string>& given,
                                                 const std::vector<std::string>& exclude) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const auto& g : given) {
    std::error_code ec;
    if (!fs::exists(g, ec)) throw UserError(fmt::format("--ir {}: no such file or directory", g));
    if (!fs::is_directory(g, ec)) {
      if (!excluded(exclude, g)) files.emplace_back(g);
      continue;
    }
    std::vector<fs::path> found;
    for (const auto& e : fs::recursive_directory_iterator(g, fs::directory_options::skip_permission_denied)) {
      std::string name = e.path().filename().string();
      const std::string suffix = ".perfcast.bc";
      if (e.is_regular_file() && name.size() > suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 && !excluded(exclude, e.path()))
        found.push_back(e.path());
    }
    if (found.empty())
      throw UserError(fmt::format("--ir {}: no *.perfcast.bc files in it", g), {},
                      "build with CC=\"perfcast mpicc\" (CXX=\"perfcast mpicxx\"), which writes them beside the objects");
    std::sort(found.begin(), found.end());  // the directory's order is no order
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

void run(const AnalyzeArgs& a) {
  auto start = std::chrono::steady_clock::now();
  analyze::AnalyzeOptions o;
  // Sources come first; from the first word that looks like a flag on, the
  // words are compile flags (CLI11 hands over what follows `--` as positionals).
  bool flags = false;
  std::vector<std::string> words = a.positionals;
  words.insert(words.end(), a.more.begin(), a.more.end());
  for (const auto& w : words) {
    flags = flags || (!w.empty() && w[0] == '-');
    if (flags) o.compile_flags.push_back(w);
    else o.sources.emplace_back(w);
  }
  const int inputs_given = !o.sources.empty() + !a.compile_commands.empty() + !a.ir.empty();
  if (inputs_given == 0)
    throw UserError("no source files to analyse", {},
                    "perfcast analyze app.c -o app.model.json, or --compile-commands BUILD_DIR, or --ir BUILD_DIR");
  if (inputs_given > 1)
    throw UserError("give one of: source files, --compile-commands, --ir", {},
                    "a build's units come with their own flags; flags for all of them still go after `--`");
  if (!a.exclude.empty() && !o.sources.empty())
    throw UserError("--exclude applies to --compile-commands and --ir", {}, "leave the file off the command line");
  for (const auto& source : o.sources) check_source(source);
  o.opt_level = a.opt_level.empty() ? "2" : a.opt_level;
  std::vector<std::filesystem::path> sources = o.sources;  // to check --branch-probability and -o against
  if (!a.compile_commands.empty()) {
    analyze::BuildUnits build = analyze::read_compile_commands(a.compile_commands, a.exclude);
    for (const auto& note : build.notes) std::cerr << "perfcast analyze: " << note << "\n";
    if (a.opt_level.empty()) {
      if (build.opt_levels.size() > 1)
        throw UserError(fmt::format("{}: the units are compiled at different optimisation levels (-O{})",
                                    build.file.string(), fmt::join(build.opt_levels, ", -O")),
                        {}, "say which level to analyse at with -O");
      o.opt_level = *build.opt_levels.begin();
    }
    for (const auto& u : build.units) sources.push_back(u.source);
    o.units = std::move(build.units);
  }
  if (!a.ir.empty()) {
    o.bitcode = bitcode_files(a.ir, a.exclude);
    if (o.bitcode.empty()) throw UserError("--ir: every bitcode file is excluded");
    if (a.opt_level.empty()) o.opt_level = analyze::bitcode_opt_level(o.bitcode);
  }
  o.main_unit = a.main_unit;
  const bool to_file = !a.output.empty() && a.output != "-";
  if (to_file) {
    std::vector<std::filesystem::path> inputs = sources;
    inputs.insert(inputs.end(), o.bitcode.begin(), o.bitcode.end());
    if (!a.compile_commands.empty()) inputs.emplace_back(a.compile_commands);
    inputs.insert(inputs.end(), a.library_costs.begin(), a.library_costs.end());
    if (!a.machine.empty()) inputs.push_back(machine::find_machine_file(a.machine));
    refuse_output_over_inputs(a.output, inputs, "-o");
  }
  o.program = a.program;
  o.mcpu = a.mcpu;
  o.mca = !a.no_mca;
  o.debug = a.debug;
  if (!a.machine.empty()) {
    MachineCores cores = machine_cores_of(a.machine);
    o.host_cycles = cores.cycles;
    // The machine's CPU unless --mcpu names another: in-core work priced for the target.
    if (o.mcpu.empty() && !cores.cpu.empty()) {
      o.mcpu = cores.cpu;
      o.mcpu_why = fmt::format("the machine file {} names it (node.cpu)", a.machine);
    } else if (!cores.cpu.empty() && cores.cpu != o.mcpu) {
      if (cores.cycles.empty())
        throw UserError(fmt::format("--machine {}: --mcpu {} replaces its node.cpu ({}) and it has no "
                                    "node.instruction_cycles: the file would change nothing",
                                    a.machine, o.mcpu, cores.cpu),
                        {}, "drop --mcpu to price on the machine's CPU, or drop --machine");
      std::cerr << fmt::format("perfcast analyze: --mcpu {} prices in-core work, not {}'s node.cpu {}\n", o.mcpu,
                               a.machine, cores.cpu);
    }
  }
  for (const auto& b : a.branch_probabilities) {
    auto location = parse_branch_probability(b);
    if (o.bitcode.empty()) check_branch_location(location.first, sources);
    o.branch_probabilities.insert(location);
  }
  for (const auto& f : a.library_costs) o.library_cost_files.emplace_back(f);
  o.progress = [start](const std::string& line) {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << fmt::format("perfcast analyze: [{:6.2f} s] {}\n", s, line);
  };
  nlohmann::ordered_json model = analyze::analyze(o);
  if (!model.contains("functions") || !model["functions"].contains(model.value("entry", std::string("main"))))
    throw UserError(fmt::format("the sources define no {}: a program model starts there",
                                model.value("entry", std::string("main"))),
                    {}, "give every source of the program, the one with main() included");
  std::string text = model.dump(2) + "\n";
  if (to_file)
    write_file_atomically(a.output, text);
  else
    std::cout << text;
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cerr << fmt::format("perfcast analyze: {} functions, {} parameters, analysed in {:.2f} s{}\n",
                           model["functions"].size(), model["parameters"].size(), s,
                           to_file ? " -> " + a.output : "");
}

}  // namespace

void add_analyze_command(CLI::App& app) {
  auto a = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "analyze",
      fmt::format("Analyse C/C++ and Fortran MPI sources ({}, {} -> LLVM IR) into a program model: per function "
                  "and loop, symbolic flops, memory traffic, MPI calls and trip counts named after the source variables.",
                  toolchain::kClang, toolchain::kFlang));
  // Not required (--compile-commands and --ir give the units instead), so its
  // count is bounded: CLI11 allows one unbounded positional that is optional.
  cmd->add_option("sources", a->positionals, "Source files, then `--` and compile flags, e.g. app.c -- -DN=64 -Iinclude")
      ->expected(0, 1 << 20);
  cmd->add_option("--compile-commands", a->compile_commands,
                  "A build's compile_commands.json (or its build directory): each unit with its own flags")
      ->type_name("PATH");
  cmd->add_option("--ir", a->ir,
                  "Bitcode written by a build with CC=\"perfcast mpicc\": *.perfcast.bc files or directories holding "
                  "them (repeatable)")
      ->type_name("DIR_OR_FILE");
  cmd->add_option("--exclude", a->exclude,
                  "Leave out the build's units (or bitcode files) whose path or name matches GLOB, e.g. 'test_*' "
                  "(repeatable)")
      ->type_name("GLOB");
  cmd->add_option("--main-unit", a->main_unit,
                  "Of several units defining main, the program's (a path or its last components)")
      ->type_name("FILE");
  // CLI11 2.1 refuses what follows `--` when the one positional before it is
  // filled; a second positional takes it (CLI11 fills `sources` first anyway).
  cmd->add_option("compile-flags", a->more, "Compile flags (after `--`)");
  cmd->add_option("-o,--output", a->output, "Program model to write (JSON; '-' or none: stdout)");
  cmd->add_option("-O", a->opt_level,
                  "Optimisation level the program is built with (0 1 2 3 s z; default 2, or the build's own level)");
  cmd->add_option("--program", a->program, "Program name in the model (default: the first source's stem)");
  cmd->add_option("--branch-probability", a->branch_probabilities,
                  "Probability that the branch at FILE:LINE is taken, e.g. wave3d.c:176=0.9 (repeatable)")
      ->type_name("FILE:LINE=P");
  cmd->add_option("--library-costs", a->library_costs,
                  "JSON table of costs of library calls, added to src/analyze/library_costs.json (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--mcpu", a->mcpu,
                  "CPU whose LLVM scheduling model prices innermost loop bodies, e.g. znver3, skylake (default: "
                  "--machine's node.cpu, else the host's or the nearest model LLVM has; docs/program-model.md)");
  cmd->add_option("--machine", a->machine,
                  "Machine file of the target: its CPU (node.cpu) prices the loops, its measured FP instruction "
                  "cycles (node.instruction_cycles) replace the scheduling model's");
  cmd->add_flag("--no-mca", a->no_mca, "Do not price loop bodies with MCA (no cycles_per_iteration)");
  cmd->add_flag("--debug", a->debug, "Also print the analysis's reasoning: unknown trip counts, each priced loop's code, each function's time");
  cmd->callback([a] { run(*a); });
}

}  // namespace perfcast::cli
