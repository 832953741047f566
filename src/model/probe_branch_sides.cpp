#include "model/probe_branch_sides.h"

#include "model/later_test.h"
#include "model/probe_arrivals.h"
#include "model/probe_per_rank.h"
#include "model/probe_selectors.h"

namespace perfcast::model {

// Whether the item's `then` (the true side of the optimised code's test) is
// the side the probe counted as taken: the optimiser may invert a test (x != 0
// becoming x == 0 with the successors swapped) after the probes were placed.
// Where each code has one side that does nothing, those are the same side,
// whatever lines the optimised blocks carry (the vectoriser's masked stores
// carry the loop's line or the next lane's); else the first source line of
// each side, recorded by both, says which way. Unknown when no side's line
// matches, or both ways do (sides on one line).
std::optional<bool> then_is_taken(const BranchItem& b, const TakenFraction& t, bool* by_empty_side) {
  auto same = [](int a, int b) { return a != 0 && a == b; };
  bool as_written = same(b.then_line, t.taken_line) || same(b.else_line, t.not_taken_line);
  bool inverted = same(b.then_line, t.not_taken_line) || same(b.else_line, t.taken_line);
  if (b.then_items.empty() != b.else_items.empty() && t.taken_empty != t.not_taken_empty) {
    const bool then_taken = b.then_items.empty() == t.taken_empty;
    if (by_empty_side && (as_written == inverted || as_written != then_taken)) *by_empty_side = true;
    return then_taken;
  }
  if (as_written == inverted) return std::nullopt;
  return as_written;
}

// Sets the probability of the function's guessed branches at `line`: the
// taken fraction on the side it was measured on.
void set_branch_probability(Items& items, int line, const TakenFraction& t, const std::string& origin,
                            Orientations& o) {
  for (Item& item : items) {
    if (auto* b = std::get_if<BranchItem>(&item.body)) {
      if (item.line == line && !b->computed() && !is_join(item) && !is_switch_case(item) && !is_later_test(item) && !is_equality_test(item)) {
        bool by_empty_side = false;
        std::optional<bool> then_taken = then_is_taken(*b, t, &by_empty_side);
        o.by_empty_side += by_empty_side;
        bool lines = b->then_line || b->else_line;
        ++(then_taken ? (*then_taken ? o.as_written : o.inverted) : lines ? o.untold : o.no_lines);
        // Untold: priced as written, the optimiser's choice when it keeps the test.
        const bool as_taken = then_taken.value_or(true);
        b->probability = as_taken ? t.taken : 1 - t.taken;
        if (t.each_rank) {
          std::vector<double> then_share = *t.each_rank;
          if (!as_taken)
            for (double& x : then_share) x = 1 - x;
          b->share = each_rank_or_mean(then_share, b->probability);
        }
        if (!o.priced || (then_taken && !o.priced_told)) {
          o.priced = b->probability;
          o.priced_told = then_taken.has_value();
        }
        item.note = item.note.empty() ? origin : item.note + "; " + origin;
      }
      set_branch_probability(b->then_items, line, t, origin, o);
      set_branch_probability(b->else_items, line, t, origin, o);
    } else if (auto* l = std::get_if<LoopItem>(&item.body)) {
      set_branch_probability(l->body, line, t, origin, o);
    }
  }
}

std::string bound_status(const Orientations& o) {
  if (o.untold) return "bound (its sides' lines do not say which way the optimised code tests it: priced as written)";
  // Lines that did not tell: the pairing rests on one side doing nothing in both codes, which a
  // different test at the line can share (an OpenMP loop's test of its count, a test before its vector code).
  if (o.by_empty_side)
    return std::string("bound (its sides' lines do not tell, or not as its empty side does: that is the probes' side "
                       "that does nothing") +
           (o.inverted ? ", the fraction its else side's)" : ")");
  if (o.inverted && o.as_written) return "bound (inverted in some of its copies: each priced on the side taken)";
  if (o.inverted) return "bound (the optimised code tests it inverted: the fraction is its else side's)";
  if (o.as_written) return "bound";
  return "bound (no lines of its sides recorded: priced as written)";
}

}  // namespace perfcast::model
