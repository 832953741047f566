#include "analyze/mpi_tables.h"

#include <set>

namespace perfcast::analyze::detail {

const std::map<std::string, MpiSpec>& mpi_specs() {
  static const std::map<std::string, MpiSpec> specs = {
#define PERFCAST_MPI_BINDING(function, Id, count, datatype, peer, root) \
  {#function, {mpi::Op::Id, count, datatype, peer, root}},
#include "support/mpi_ops.def"
  };
  return specs;
}

std::optional<int> predefined_datatype_bytes(const std::string& global) {
  static const std::map<std::string, int> sizes = {
      {"ompi_mpi_char", 1},          {"ompi_mpi_signed_char", 1},  {"ompi_mpi_unsigned_char", 1},
      {"ompi_mpi_byte", 1},          {"ompi_mpi_packed", 1},       {"ompi_mpi_wchar", 4},
      {"ompi_mpi_short", 2},         {"ompi_mpi_unsigned_short", 2}, {"ompi_mpi_int", 4},
      {"ompi_mpi_unsigned", 4},      {"ompi_mpi_long", 8},         {"ompi_mpi_unsigned_long", 8},
      {"ompi_mpi_long_long_int", 8}, {"ompi_mpi_unsigned_long_long", 8},
      {"ompi_mpi_float", 4},         {"ompi_mpi_double", 8},       {"ompi_mpi_long_double", 16},
      {"ompi_mpi_int8_t", 1},        {"ompi_mpi_uint8_t", 1},      {"ompi_mpi_int16_t", 2},
      {"ompi_mpi_uint16_t", 2},      {"ompi_mpi_int32_t", 4},      {"ompi_mpi_uint32_t", 4},
      {"ompi_mpi_int64_t", 8},       {"ompi_mpi_uint64_t", 8},     {"ompi_mpi_c_bool", 1},
      {"ompi_mpi_cxx_bool", 1},      {"ompi_mpi_aint", 8},         {"ompi_mpi_offset", 8},
      {"ompi_mpi_count", 8},         {"ompi_mpi_float_int", 8},    {"ompi_mpi_double_int", 16},
      {"ompi_mpi_long_int", 16},     {"ompi_mpi_2int", 8},         {"ompi_mpi_short_int", 8},
      {"ompi_mpi_long_double_int", 32}, {"ompi_mpi_c_float_complex", 8}, {"ompi_mpi_c_complex", 8},
      {"ompi_mpi_c_double_complex", 16}, {"ompi_mpi_c_long_double_complex", 32},
  };
  auto it = sizes.find(global);
  if (it == sizes.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> math_name(const std::string& callee) {
  static const std::set<std::string> known = {"sin", "cos", "tan", "exp", "log", "sqrt", "pow"};
  if (known.count(callee)) return callee;
  if (callee.size() > 1 && callee.back() == 'f' && known.count(callee.substr(0, callee.size() - 1))) return callee;
  return std::nullopt;
}

}  // namespace perfcast::analyze::detail
