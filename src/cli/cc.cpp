// `perfcast cc [--show|--cflags|--ldflags] [--cxx] ARGS...`: the compiler wrapper
// for skeletons. It runs clang-19 (clang++-19 for C++ sources; support/toolchain.h) with perfcast's
// own mpi.h and bsim.h first on the include path, and links a shared object
// (glibc will not dlopen a position-independent executable) that `perfcast
// simulate` loads and whose `main` runs once per rank. main stays `main`: a
// shared object exports it as is, and renaming it by macro would break C++
// (main is the one function without a mangled name and with an implicit return 0).
//
// `perfcast cc --features ARGS...` (and `perfcast c++ --features`) is another
// compiler: the same clang with the feature probes' pass plugin, -g when the
// command has no -g of its own (the probes are named from debug info), and the
// feature runtime linked; the program is an ordinary one, to be built through
// Open MPI's wrappers (bin/perfcast-mpicc, or OMPI_CC="perfcast cc --features"
// mpicc.openmpi). See docs/learn.md, "Recording features".
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "support/error.h"
#include "support/toolchain.h"

#ifndef PERFCAST_INCLUDE_DIR
#define PERFCAST_INCLUDE_DIR ""
#endif
#ifndef PERFCAST_FEATURES_PASS_BUILT
#define PERFCAST_FEATURES_PASS_BUILT ""
#endif
#ifndef PERFCAST_FEATURES_RUNTIME_BUILT
#define PERFCAST_FEATURES_RUNTIME_BUILT ""
#endif
#ifndef PERFCAST_FORTRAN_MODULE_DIR
#define PERFCAST_FORTRAN_MODULE_DIR ""
#endif

namespace perfcast::cli {

namespace {

namespace fs = std::filesystem;

// An installed perfcast finds include/ beside bin/; a build tree uses the source tree's.
std::string include_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path installed = exe.parent_path().parent_path() / "include";
    if (fs::exists(installed / "bsim.h") && fs::exists(installed / "perfcast" / "mpi.h")) return installed.string();
  }
  std::string built = PERFCAST_INCLUDE_DIR;
  if (!built.empty() && fs::exists(fs::path(built) / "bsim.h")) return built;
  throw UserError("cannot find perfcast's include directory (bsim.h, perfcast/mpi.h)", {},
                  "reinstall perfcast, or run the perfcast of a build tree whose sources are in place");
}

// An installed perfcast keeps its libraries in lib/ beside bin/; a build tree's are where CMake built them.
std::string feature_file(const char* name, const std::string& built) {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::exists(exe.parent_path().parent_path() / "lib" / name))
    return (exe.parent_path().parent_path() / "lib" / name).string();
  if (!built.empty() && fs::exists(built)) return built;
  throw UserError(fmt::format("cannot find {}, which --features needs", name), {},
                  "build the perfcast_features_pass and perfcast_features_runtime targets (perfcast is built "
                  "with PERFCAST_WITH_ANALYZE)");
}

std::vector<std::string> compile_flags() {
  std::string inc = include_dir();
  // include/perfcast first, so that `#include <mpi.h>` is ours and never a system MPI's.
  // Stack-clash protection makes a large frame touch its pages in order, so it hits
  // the guard page below a rank's small stack instead of jumping over it into memory
  // that is not its own.
  return {"-I" + inc + "/perfcast", "-I" + inc, "-fPIC", "-fstack-clash-protection", "-DPERFCAST_SKELETON=1"};
}

std::vector<std::string> link_flags() {
  // --wrap=exit: exit() inside a rank ends that rank, not the simulator (see mpi_environment.cpp).
  // MPI_*/LMPI_*/BSIM_* stay undefined: they resolve against perfcast when it loads the skeleton.
  return {"-shared", "-fPIC", "-Wl,--wrap=exit"};
}

bool is_cxx_source(const std::string& arg) {
  for (const char* ext : {".cc", ".cpp", ".cxx", ".c++", ".C", ".CPP", ".cp"}) {
    std::string e = ext;
    if (arg.size() > e.size() && arg.compare(arg.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    bool plain = !w.empty() && w.find_first_of(" \t\"'\\$`*?[]{}()<>|&;") == std::string::npos;
    out += plain ? w : "'" + w + "'";
  }
  return out;
}

struct CcOptions {
  bool show = false, cflags = false, ldflags = false, cxx = false, features = false;
};

bool is_source(const std::string& arg) {
  if (is_cxx_source(arg)) return true;
  for (const char* ext : {".c", ".i", ".ii"}) {
    std::string e = ext;
    if (arg.size() > e.size() && arg.compare(arg.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

// The feature compiler's command: clang with the probes' plugin where it compiles, the runtime where it links.
std::vector<std::string> feature_command(bool cxx, bool link, const std::vector<std::string>& args) {
  bool compiles = false, preprocess_only = false, has_debug = false;
  for (const auto& a : args) {
    compiles = compiles || is_source(a);
    preprocess_only = preprocess_only || a == "-E" || a == "-M" || a == "-MM";
    has_debug = has_debug || (a.rfind("-g", 0) == 0 && a != "-g0");
  }
  std::vector<std::string> command{cxx ? toolchain::kClangxx : toolchain::kClang};
  if (compiles && !preprocess_only) {
    command.push_back("-fpass-plugin=" + feature_file("libperfcast_features_pass.so", PERFCAST_FEATURES_PASS_BUILT));
    if (!has_debug) command.push_back("-g");
    // Every unit's classes in full, as the analyser reads them (bitcode_flags):
    // the probes name a field read through a class's reference by them.
    command.push_back("-fstandalone-debug");
  }
  command.insert(command.end(), args.begin(), args.end());
  if (link) {
    // After the program's own objects and libraries, so that the archive's
    // MPI_Init and MPI_Finalize are pulled in by the probes' references.
    command.push_back(feature_file("libperfcast_features.a", PERFCAST_FEATURES_RUNTIME_BUILT));
    command.push_back("-pthread");
  }
  return command;
}

// Prints the compiler command (--show), or becomes it: on success execvp does
// not return; a compiler that cannot be run names its Debian package.
void show_or_run(std::vector<std::string>& command, bool show, std::string_view package) {
  if (show) {
    std::cout << join(command) << "\n";
    return;
  }
  std::vector<char*> argv;
  for (auto& w : command) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::cout.flush();
  execvp(argv[0], argv.data());
  throw UserError(fmt::format("cannot run {}: {}", command[0], std::strerror(errno)), {},
                  fmt::format("install {} (Debian package {})", command[0], package));
}

bool is_fortran_source(const std::string& arg) {
  for (const char* ext : {".f", ".for", ".f77", ".f90", ".f95", ".f03", ".f08", ".F", ".F90", ".F95", ".F03", ".F08"}) {
    std::string e = ext;
    if (arg.size() > e.size() && arg.compare(arg.size() - e.size(), e.size(), e) == 0) return true;
  }
  return false;
}

// `perfcast fc --features ARGS...`: flang with the probes' plugin (flang runs
// -fpass-plugin= plugins as clang does, at the start of LLVM's pipeline) and
// perfcast's flang-readable `mpi` module first on the module path (Open MPI's
// mpi.mod is gfortran's), the runtime (its Fortran entry points too) where it links.
void run_fc(bool show, const std::vector<std::string>& args) {
  if (args.empty())
    throw UserError("no input files", {}, "e.g. OMPI_FC=\"perfcast fc --features\" mpif90.openmpi app.f90");
  bool compiles = false, preprocess_only = false, has_debug = false, link = true;
  for (const auto& a : args) {
    compiles = compiles || is_fortran_source(a);
    preprocess_only = preprocess_only || a == "-E" || a == "-M" || a == "-MM";
    has_debug = has_debug || (a.rfind("-g", 0) == 0 && a != "-g0");
    if (a == "-c" || a == "-E" || a == "-S" || a == "-M" || a == "-MM") link = false;
  }
  std::vector<std::string> command{toolchain::kFlang};
  if (compiles && !preprocess_only) {
    command.push_back("-fpass-plugin=" + feature_file("libperfcast_features_pass.so", PERFCAST_FEATURES_PASS_BUILT));
    if (!has_debug) command.push_back("-g");
    if (std::string modules = PERFCAST_FORTRAN_MODULE_DIR; !modules.empty()) command.push_back("-I" + modules);
  }
  command.insert(command.end(), args.begin(), args.end());
  if (link) {
    // Whole: Open MPI's wrapper puts libmpi_mpifh among the words before it,
    // which would give mpi_init_ and mpi_finalize_ before the archive is read;
    // the runtime's own must be in the program to take their place.
    command.insert(command.end(),
                   {"-Wl,--whole-archive", feature_file("libperfcast_features.a", PERFCAST_FEATURES_RUNTIME_BUILT),
                    "-Wl,--no-whole-archive"});
    command.push_back("-pthread");
  }
  show_or_run(command, show, toolchain::kFlangPackage);
}

void run_cc(const CcOptions& o, const std::vector<std::string>& args) {
  if (o.cflags || o.ldflags) {
    std::vector<std::string> flags;
    if (o.cflags) flags = compile_flags();
    if (o.ldflags) {
      for (auto& f : link_flags()) flags.push_back(f);
    }
    std::cout << join(flags) << "\n";
    return;
  }
  if (args.empty()) {
    throw UserError("no input files", {}, "e.g. `perfcast cc skel.c -o skel`, then `perfcast simulate -- ./skel`");
  }
  bool cxx = o.cxx;
  bool link = true;
  for (const auto& a : args) {
    if (is_cxx_source(a)) cxx = true;
    if (a == "-c" || a == "-E" || a == "-S" || a == "-M" || a == "-MM") link = false;
  }
  std::vector<std::string> command;
  if (o.features) {
    command = feature_command(cxx, link, args);
  } else {
    command = {cxx ? toolchain::kClangxx : toolchain::kClang};
    for (auto& f : compile_flags()) command.push_back(f);
    if (link) {
      for (auto& f : link_flags()) command.push_back(f);
    }
    command.insert(command.end(), args.begin(), args.end());
  }
  show_or_run(command, o.show, toolchain::kClangPackage);
}

}  // namespace

void add_cc_command(CLI::App& app) {
  auto fc_show = std::make_shared<bool>(false), fc_features = std::make_shared<bool>(false);
  CLI::App* fc = app.add_subcommand(
      "fc", fmt::format("Compile a Fortran MPI program that records features ({} with the probes; needs --features)",
                        toolchain::kFlang));
  fc->add_flag("--features", *fc_features, "Insert feature probes and link their runtime (docs/learn.md)")->required();
  fc->add_flag("--show", *fc_show, "Print the compiler command instead of running it");
  fc->prefix_command();
  fc->footer("As Open MPI's compiler: OMPI_FC=\"perfcast fc --features\" mpif90.openmpi (bin/perfcast-mpif90).");
  fc->callback([fc_show, fc] { run_fc(*fc_show, fc->remaining()); });

  for (bool cxx : {false, true}) {
    auto options = std::make_shared<CcOptions>();
    options->cxx = cxx;
    CLI::App* cc =
        app.add_subcommand(cxx ? "c++" : "cc",
                           fmt::format("Compile and link a skeleton (BSIM API: bsim.h, perfcast's mpi.h) as the shared "
                                       "object that `perfcast simulate --np N -- ./skel` runs, or with --features an "
                                       "MPI program that records features; other arguments go to {} as they are",
                                       cxx ? toolchain::kClangxx : toolchain::kClang));
    cc->add_flag("--show", options->show, "Print the compiler command instead of running it");
    cc->add_flag("--features", options->features,
                 "Insert feature probes and link their runtime (for `perfcast run`, docs/learn.md); "
                 "use as Open MPI's compiler: OMPI_CC=\"perfcast cc --features\" mpicc.openmpi");
    cc->add_flag("--cflags", options->cflags, "Print the skeleton compile flags (for CFLAGS/CXXFLAGS)");
    cc->add_flag("--ldflags", options->ldflags, "Print the skeleton link flags (for LDFLAGS)");
    if (!cxx)
      cc->add_flag("--cxx", options->cxx,
                   fmt::format("Use {} even without C++ sources (linking C++ objects)", toolchain::kClangxx));
    // Everything from the first argument that is not ours on belongs to the compiler.
    cc->prefix_command();
    cc->footer("perfcast's own flags come first: `perfcast cc --show skel.c -o skel`. See docs/skeletons.md.");
    cc->callback([options, cc] { run_cc(*options, cc->remaining()); });
  }
}

}  // namespace perfcast::cli
