// The domain of each quantity an event carries, checked once where events
// enter an engine, whatever their source (text, binary trace, skeleton, model).
#pragma once

#include <optional>
#include <string>

#include "events/event.h"

namespace perfcast::events {

// What is wrong with a compute burst's quantities, or nothing. Its seconds are
// either the "not given" mark (exactly -1, then flops and bytes_moved are
// priced) or a finite time >= 0; flops and bytes_moved are finite and >= 0.
std::optional<std::string> compute_domain_error(const Event& e);

// What is wrong with a recorded call duration (Event::duration_s): it is only
// an MPI event's, and either the "not recorded" mark -1 or finite and >= 0.
std::optional<std::string> duration_domain_error(const Event& e);

// The same for any event; inline, as engines call it once per event and most
// events are neither compute bursts nor carry a duration.
inline std::optional<std::string> domain_error(const Event& e) {
  if (e.duration_s != -1)
    if (auto why = duration_domain_error(e)) return why;
  if (e.kind != Kind::Compute) return std::nullopt;
  return compute_domain_error(e);
}

// For readers of user-written values: a compute field given explicitly must be
// finite and >= 0 (the -1 mark is the absence of a value, never a value).
std::optional<std::string> explicit_quantity_error(double value);

}  // namespace perfcast::events
