#include "support/mpi_op.h"

#include <string>

namespace perfcast::mpi {

std::optional<Op> parse_op(std::string_view name) {
  for (const OpFacts& f : detail::kFacts)
    if (f.name == name) return f.op;
  return std::nullopt;
}

std::optional<Op> op_of_function(std::string_view function) {
  struct Binding {
    std::string_view function;
    Op op;
  };
  static constexpr Binding kBindings[] = {
#define PERFCAST_MPI_BINDING(function, Id, ...) {#function, Op::Id},
#include "support/mpi_ops.def"
  };
  for (const Binding& b : kBindings)
    if (b.function == function) return b.op;
  return std::nullopt;
}

std::string_view op_names_list() {
  static const std::string list = [] {
    std::string s;
    for (const OpFacts& f : detail::kFacts) (s += s.empty() ? "" : ", ") += f.name;
    return s;
  }();
  return list;
}

}  // namespace perfcast::mpi
