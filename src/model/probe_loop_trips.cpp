#include "model/probe_loop_trips.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <set>
#include <vector>

#include "support/error.h"
#include "support/expr.h"

namespace perfcast::model {
namespace {

// The factor k (a power of two) by which the optimiser unrolled a source loop
// of `name` iterations into the loop with these trips, or 0: the trips are an
// expression of `name` alone, `name / k` give or take one at any large size
// (HPCG's restriction, floordiv(zext(2 * trunc(floordiv(zext(nc, 32), 2), 30)
// - 2, 64), 2) + 1 for nc by 2). A source loop of `name / k` iterations, or of
// `name - c` unrolled, has such trips too: the unrolled one of `name` is told
// by its remainder (remainder_of).
int unroll_factor(const Expr& trip_count, const std::string& name) {
  if (expr::free_names(trip_count) != std::set<std::string>{name}) return 0;
  // Sizes divisible by every factor tried, small enough for the 30-bit
  // truncations the vectoriser leaves in such counts.
  const std::int64_t small = std::int64_t{3} << 20, large = std::int64_t{5} << 20;
  try {
    const double at_small = expr::evaluate(trip_count, {{name, small}}).real();
    const double at_large = expr::evaluate(trip_count, {{name, large}}).real();
    for (int k = 2; k <= 16; k *= 2)
      if ((at_large - at_small) * k == large - small && std::fabs(at_small * k - small) <= k) return k;
  } catch (const UserError&) {  // not defined at these sizes: not such a loop
  }
  return 0;
}

// The loops' trips at `line` in `items`, at any depth, other than `unrolled`'s
// and each an expression of `name` alone.
void loop_counts(const Items& items, int line, const std::string& name, const LoopItem& unrolled,
                 std::vector<Expr>& counts) {
  for (const Item& item : items) {
    if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      loop_counts(b->then_items, line, name, unrolled, counts);
      loop_counts(b->else_items, line, name, unrolled, counts);
    } else if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      if (item.line == line && l != &unrolled && expr::free_names(l->trip_count) == std::set<std::string>{name})
        counts.push_back(l->trip_count);
      loop_counts(l->body, line, name, unrolled, counts);
    }
  }
}

// The counts the remainders of `unrolled` at `line` in `items` could have:
// a branch there whose test reads `name` modulo k (trunc(name, log2 k), its
// low bits, or mod(name, k)) and nothing else: its sides' loops at the line,
// or one iteration on either side of the test.
void remainder_counts(const Items& items, int line, const std::string& name, const LoopItem& unrolled, int k,
                      std::vector<Expr>& counts) {
  const std::string low_bits = fmt::format("trunc({}, {})", name, std::countr_zero(static_cast<unsigned>(k)));
  const std::string modulo = fmt::format("mod({}, {})", name, k);
  for (const Item& item : items) {
    if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      if (item.line == line && b->condition && expr::free_names(*b->condition) == std::set<std::string>{name}) {
        const std::string c = expr::to_string(*b->condition);
        if (c.find(low_bits) != std::string::npos || c.find(modulo) != std::string::npos) {
          counts.push_back(expr::parse("(" + c + ")"));
          counts.push_back(expr::parse("1 - (" + c + ")"));
          loop_counts(b->then_items, line, name, unrolled, counts);
          loop_counts(b->else_items, line, name, unrolled, counts);
        }
      }
      remainder_counts(b->then_items, line, name, unrolled, k, counts);
      remainder_counts(b->else_items, line, name, unrolled, k, counts);
    } else if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      remainder_counts(l->body, line, name, unrolled, k, counts);
    }
  }
}

// The line scale · n + offset that `count` is at every large n: exact at
// `span` consecutive sizes (every residue modulo an unrolling's factor, twice)
// and at one far beyond them; none where it is flat there, not a line, or not
// defined. The sizes are large enough that any max(…, 0) or guard of a small
// size is behind them, small enough for the 30-bit truncations the vectoriser
// leaves in such counts.
template <typename Count>
std::optional<std::pair<double, double>> line_of(const Count& count, int span) {
  const std::int64_t base = std::int64_t{5} << 20;  // as unroll_factor's, divisible by every k
  try {
    const double at = count(base), scale = count(base + 1) - at;
    const double offset = at - scale * static_cast<double>(base);
    if (scale == 0) return std::nullopt;
    auto on_line = [&](std::int64_t n) { return count(n) == scale * static_cast<double>(n) + offset; };
    for (std::int64_t n = base + 2; n < base + span; ++n)
      if (!on_line(n)) return std::nullopt;
    if (!on_line(2 * base + 1)) return std::nullopt;
    return std::pair{scale, offset};
  } catch (const UserError&) {  // not defined at these sizes: no line
  }
  return std::nullopt;
}

// The iterations of the source loop that `unrolled` (its trips about
// `name / k`) and a remainder of it in `function` at `line` run together, as
// a line of `name` (line_of), where the remainder's branch tests `name`'s low
// bits. A loop `DO m = 2, n` unrolled has trips (n - 1) / k and a remainder of
// (n - 1) mod k, a test of the low bits of n - 1: n - 1 in all.
std::optional<std::pair<double, double>> remainder_of(const Items& function, int line, const std::string& name,
                                                      const LoopItem& unrolled, int k) {
  std::vector<Expr> counts;
  remainder_counts(function, line, name, unrolled, k, counts);
  for (const Expr& count : counts) {
    auto total = [&](std::int64_t n) {
      return k * expr::evaluate(unrolled.trip_count, {{name, n}}).real() + expr::evaluate(count, {{name, n}}).real();
    };
    if (auto line_found = line_of(total, 2 * k)) return line_found;
  }
  return std::nullopt;
}

}  // namespace

SizedTrips trips_are(const LoopItem& loop, const std::string& name, const Items& function, int line) {
  const std::string t = expr::to_string(loop.trip_count);
  if (t == name) return {Trips::Alone};
  for (const char* cast : {"zext(", "sext(", "trunc("}) {
    const std::string head = std::string(cast) + name + ", ";
    if (t.size() > head.size() + 1 && t.compare(0, head.size(), head) == 0 && t.back() == ')' &&
        t.find_first_not_of("0123456789", head.size()) == t.size() - 1)
      return {Trips::Cast};
  }
  if (expr::free_names(loop.trip_count) != std::set<std::string>{name}) return {};
  if (const int k = unroll_factor(loop.trip_count, name))
    if (auto total = remainder_of(function, line, name, loop, k)) return {Trips::Unrolled, total->first, total->second};
  auto trips = [&](std::int64_t n) { return expr::evaluate(loop.trip_count, {{name, n}}).real(); };
  if (auto trips_line = line_of(trips, 4)) return {Trips::Affine, trips_line->first, trips_line->second};
  return {};
}

void loops_sized_by(const Items& items, const std::string& name, const Items& function,
                    std::vector<LoopSizedBy>& loops) {
  for (const Item& item : items) {
    if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      const SizedTrips t = trips_are(*l, name, function, item.line);
      if (t.kind != Trips::Other && item.note.find("inlined from") == std::string::npos && l->var != "omp.thread")
        loops.push_back({item.line, t});
      loops_sized_by(l->body, name, function, loops);
    } else if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      loops_sized_by(b->then_items, name, function, loops);
      loops_sized_by(b->else_items, name, function, loops);
    }
  }
}

}  // namespace perfcast::model
