// How much memory a command may plan to hold: refused before it is tried, with
// the estimate, rather than growing until the machine swaps or kills it.
#pragma once

#include <unistd.h>

#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "support/error.h"
#include "support/units.h"

namespace perfcast::cli {

inline CLI::Option* add_memory_budget_option(CLI::App& command, std::string& value) {
  return command.add_option("--max-memory", value,
                            "Refuse a run whose results would need more memory than this (default: half of "
                            "this machine's), e.g. 64GiB")
      ->type_name("SIZE");
}

// Bytes: --max-memory's value when given, else half the physical memory.
inline double memory_budget_bytes(const std::string& option_value) {
  if (!option_value.empty()) return units::parse(option_value, units::Dimension::Bytes);
  double pages = static_cast<double>(sysconf(_SC_PHYS_PAGES));
  double page = static_cast<double>(sysconf(_SC_PAGE_SIZE));
  return pages > 0 && page > 0 ? pages * page / 2 : 8.0 * (1ull << 30);
}

// Throws UserError naming what needs `needed_bytes` when it is over the budget.
inline void refuse_beyond_budget(double needed_bytes, const std::string& option_value, const std::string& what) {
  double budget = memory_budget_bytes(option_value);
  if (needed_bytes <= budget) return;
  throw UserError(fmt::format("{} would need about {} of memory, more than the {} allowed ({})", what,
                              units::format(needed_bytes, units::Dimension::Bytes),
                              units::format(budget, units::Dimension::Bytes),
                              option_value.empty() ? "half of this machine's memory" : "--max-memory"),
                  {}, "raise --max-memory if the machine has it, or use fewer ranks");
}

}  // namespace perfcast::cli
