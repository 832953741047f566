#include "analyze/fortran_bindings.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "support/error.h"

#ifndef PERFCAST_FORTRAN_MODULE_DIR
#define PERFCAST_FORTRAN_MODULE_DIR ""
#endif

namespace perfcast::analyze::detail {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

const std::map<std::string, FortranMpiSpec>& fortran_specs() {
  // The Fortran table is the C one renamed: mpi_send_ for MPI_Send, the same
  // positions (Fortran passes the same arguments in the same order, each by
  // reference, and appends ierr).
  static const std::map<std::string, FortranMpiSpec> specs = [] {
    std::map<std::string, FortranMpiSpec> out;
    for (const auto& [c_name, spec] : mpi_specs()) {
      FortranMpiSpec f{c_name, spec};
      out[lower(c_name) + "_"] = f;
      out["p" + lower(c_name) + "_"] = f;
    }
    return out;
  }();
  return specs;
}

const std::map<std::string, std::int64_t>& constants() {
  static const std::map<std::string, std::int64_t> values = {
#define PERFCAST_FORTRAN_MPI_CONSTANT(name, value) {#name, value},
#include "fortran_mpi_constants.inc"
#undef PERFCAST_FORTRAN_MPI_CONSTANT
  };
  return values;
}

// By the Fortran symbol (mpi_sendrecv_): one letter per argument of the C
// binding, v by value, c pointer to const, p pointer.
const std::map<std::string, std::string>& c_argument_kinds() {
  static const std::map<std::string, std::string> kinds = {
#define PERFCAST_MPI_C_ARGUMENTS(name, letters) {lower(#name) + "_", letters},
#include "mpi_c_arguments.inc"
#undef PERFCAST_MPI_C_ARGUMENTS
  };
  return kinds;
}

}  // namespace

std::vector<bool> fortran_mpi_inputs(const std::string& symbol) {
  std::string name = symbol.rfind("pmpi_", 0) == 0 ? symbol.substr(1) : symbol;
  auto it = c_argument_kinds().find(name);
  std::vector<bool> inputs;
  if (it != c_argument_kinds().end())
    for (char k : it->second) inputs.push_back(k == 'v' || k == 'c');
  return inputs;
}

const FortranMpiSpec* fortran_mpi_spec(const std::string& symbol) {
  auto it = fortran_specs().find(symbol);
  return it == fortran_specs().end() ? nullptr : &it->second;
}

std::optional<unsigned> fortran_new_communicator_argument(const std::string& symbol) {
  // The MPI standard's positions of newcomm (comm_cart for MPI_Cart_create).
  static const std::map<std::string, unsigned> positions = {
      {"mpi_comm_dup_", 1},        {"mpi_comm_idup_", 1},    {"mpi_comm_split_", 3},
      {"mpi_comm_split_type_", 4}, {"mpi_comm_create_", 2},  {"mpi_cart_create_", 5},
      {"mpi_cart_sub_", 2},        {"mpi_graph_create_", 5}, {"mpi_dist_graph_create_adjacent_", 9},
      {"mpi_intercomm_merge_", 2}};
  std::string name = symbol.rfind("pmpi_", 0) == 0 ? symbol.substr(1) : symbol;
  auto it = positions.find(name);
  if (it == positions.end()) return std::nullopt;
  return it->second;
}

bool is_fortran_mpi_symbol(const std::string& symbol) {
  bool prefixed = symbol.rfind("mpi_", 0) == 0 || symbol.rfind("pmpi_", 0) == 0;
  return prefixed && symbol.size() > 5 && symbol.back() == '_';
}

std::optional<std::int64_t> fortran_mpi_constant(const std::string& name) {
  auto it = constants().find(name);
  if (it == constants().end()) return std::nullopt;
  return it->second;
}

std::optional<int> fortran_datatype_bytes(std::int64_t handle) {
  // Sizes of the Fortran types on LP64 with flang's default kinds (INTEGER,
  // REAL and LOGICAL of 4 bytes); the C types mpif.h names too are C's.
  static const std::map<std::string, int> fortran_sizes = {
      {"MPI_INTEGER", 4},    {"MPI_INTEGER1", 1},  {"MPI_INTEGER2", 2},  {"MPI_INTEGER4", 4},
      {"MPI_INTEGER8", 8},   {"MPI_INTEGER16", 16}, {"MPI_REAL", 4},      {"MPI_REAL2", 2},
      {"MPI_REAL4", 4},      {"MPI_REAL8", 8},     {"MPI_REAL16", 16},   {"MPI_DOUBLE_PRECISION", 8},
      {"MPI_COMPLEX", 8},    {"MPI_COMPLEX8", 8},  {"MPI_COMPLEX16", 16}, {"MPI_COMPLEX32", 32},
      {"MPI_DOUBLE_COMPLEX", 16}, {"MPI_LOGICAL", 4}, {"MPI_LOGICAL1", 1}, {"MPI_LOGICAL2", 2},
      {"MPI_LOGICAL4", 4},   {"MPI_LOGICAL8", 8},  {"MPI_CHARACTER", 1}, {"MPI_BYTE", 1},
      {"MPI_PACKED", 1},     {"MPI_2INTEGER", 8},  {"MPI_2REAL", 8},     {"MPI_2DOUBLE_PRECISION", 16},
  };
  static const std::map<std::int64_t, int> by_handle = [] {
    std::map<std::int64_t, int> out;
    for (const auto& [name, value] : constants()) {
      auto f = fortran_sizes.find(name);
      std::optional<int> bytes;
      if (f != fortran_sizes.end()) bytes = f->second;
      else bytes = predefined_datatype_bytes("ompi_mpi_" + lower(name.substr(4)));
      // Handles of other kinds (ops, communicators) share the numbers; only
      // the names of datatypes have sizes.
      if (bytes) out.emplace(value, *bytes);
    }
    return out;
  }();
  auto it = by_handle.find(handle);
  if (it == by_handle.end()) return std::nullopt;
  return it->second;
}

bool is_fortran_source(const std::filesystem::path& source) {
  static const std::set<std::string> fortran = {".f",   ".F",   ".f77", ".F77", ".for", ".f90", ".F90",
                                                ".f95", ".F95", ".f03", ".F03", ".f08", ".F08"};
  return fortran.count(source.extension().string()) > 0;
}

std::filesystem::path fortran_module_dir() {
  std::filesystem::path dir = PERFCAST_FORTRAN_MODULE_DIR;
  std::error_code ec;
  if (dir.empty() || !std::filesystem::exists(dir / "mpi.mod", ec))
    throw UserError(fmt::format("perfcast's Fortran `mpi` module is not at '{}'", (dir / "mpi.mod").string()), {},
                    "build perfcast's target perfcast_fortran_mpi_module (cmake --build BUILD), which needs flang");
  return dir;
}

std::vector<std::string> flang_command(const std::string& flang, const std::filesystem::path& source,
                                       const std::filesystem::path& bitcode, const std::filesystem::path& modules,
                                       const std::string& opt_level,
                                       const std::vector<std::string>& mpi_flags,
                                       const std::vector<std::string>& user_flags) {
  std::string level = opt_level == "s" || opt_level == "z" ? "2" : opt_level;
  // flang has no -disable-llvm-passes; LLVM's opt-bisect limit of 0 skips
  // every optional pass of its pipeline, leaving the IR its front end made.
  std::vector<std::string> argv = {flang, "-c", "-emit-llvm", "-g", "-O" + level, "-mllvm", "-opt-bisect-limit=0"};
  // perfcast's `mpi` module before any other: Open MPI's own is gfortran's.
  argv.push_back("-I" + fortran_module_dir().string());
  argv.insert(argv.end(), {"-module-dir", modules.string(), "-I" + modules.string()});
  for (const auto& f : mpi_flags)
    if (f.rfind("-I", 0) == 0) argv.push_back(f);
  argv.insert(argv.end(), user_flags.begin(), user_flags.end());
  argv.insert(argv.end(), {source.string(), "-o", bitcode.string()});
  return argv;
}

std::string flang_messages(const std::string& output) {
  std::string out;
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    std::string line = output.substr(start, end - start);
    if (line.rfind("BISECT: ", 0) != 0) out += line + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace perfcast::analyze::detail
