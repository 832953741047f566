#include "events/event_domain.h"

#include <cmath>

#include <fmt/format.h>

namespace perfcast::events {

std::optional<std::string> explicit_quantity_error(double value) {
  if (std::isnan(value)) return "is not a number (nan)";
  if (std::isinf(value)) return "is infinite";
  if (value < 0) return fmt::format("is negative ({})", value);
  return std::nullopt;
}

std::optional<std::string> compute_domain_error(const Event& e) {
  if (e.seconds != -1)
    if (auto why = explicit_quantity_error(e.seconds)) return fmt::format("a compute burst's seconds {}", *why);
  if (auto why = explicit_quantity_error(e.flops)) return fmt::format("a compute burst's flops {}", *why);
  if (auto why = explicit_quantity_error(e.bytes_moved)) return fmt::format("a compute burst's bytes {}", *why);
  return std::nullopt;
}

std::optional<std::string> duration_domain_error(const Event& e) {
  if (e.duration_s == -1) return std::nullopt;
  if (e.kind == Kind::Compute)
    return "a compute burst carries a call duration (only MPI calls have one; a burst's time is its seconds)";
  if (auto why = explicit_quantity_error(e.duration_s)) return fmt::format("an MPI call's duration {}", *why);
  return std::nullopt;
}

}  // namespace perfcast::events
