#include "model/probe_regions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>
#include <vector>

#include "model/later_test.h"
#include "model/probe_arrivals.h"
#include "model/probe_selectors.h"

namespace perfcast::model {
namespace {

std::optional<double> count(const ProbeRun& run, const std::string& name) {
  auto f = run.features.find(name);
  return f == run.features.end() ? std::nullopt : std::optional<double>(f->second);
}

// A guessed branch of the model at the region's line, and those of that line
// reached through its sides that start on the line itself (the second test
// of `a && b` behind the first's true side).
struct Node {
  Item* item;
  BranchItem* branch;
  std::vector<Node> then_children, else_children;
};

bool guessed_at(const Item& item, int line) {
  const auto* b = std::get_if<BranchItem>(&item.body);
  // A later test's branch is no test of the line's branches (kLaterTestWhy),
  // nor is a test of a value that varied, priced apart (probe_selectors.h).
  // Nor is a case of a switch made of a chain of tests (probe_arrivals.h).
  return b && item.line == line && !b->computed() && item.note.find(kLaterTestWhy) == std::string::npos &&
         !is_equality_test(item) && !is_switch_case(item);
}

// The trees of guessed branches at `line` in `items`: a branch at the line
// goes to `out`, its internal sides' branches become its children, and those
// found elsewhere (an exit side, a loop's body: evaluated apart from this
// arrival) start trees of their own in `roots`.
void collect(Items& items, int line, std::vector<Node>& out, std::vector<Node>& roots) {
  for (Item& item : items) {
    if (auto* b = std::get_if<BranchItem>(&item.body)) {
      if (guessed_at(item, line)) {
        Node n{&item, b, {}, {}};
        collect(b->then_items, line, b->then_line == line ? n.then_children : roots, roots);
        collect(b->else_items, line, b->else_line == line ? n.else_children : roots, roots);
        out.push_back(std::move(n));
      } else {
        collect(b->then_items, line, out, roots);
        collect(b->else_items, line, out, roots);
      }
    } else if (auto* l = std::get_if<LoopItem>(&item.body)) {
      collect(l->body, line, roots, roots);
    }
  }
}

// Whether a side goes on to another branch of the line; the others leave it
// (one starting on the line with no branch behind it, from the line itself).
bool internal(int side, int line, const std::vector<Node>& children) { return side == line && !children.empty(); }

// How many sides of a tree leave the line for each line, and how many stay on it.
void tally(const Node& n, int line, std::map<int, int>& exit_sides, int& internal_sides) {
  for (auto [side, children] :
       {std::pair{n.branch->then_line, &n.then_children}, std::pair{n.branch->else_line, &n.else_children}}) {
    if (internal(side, line, *children))
      ++internal_sides;
    else if (side != 0)
      ++exit_sides[side];
  }
  for (const auto* children : {&n.then_children, &n.else_children})
    for (const Node& c : *children) tally(c, line, exit_sides, internal_sides);
}

// The probabilities of one tree's branches, from the region's exits (as
// fractions of its entries). A side whose line no other side of the tree
// goes to fixes its branch: its flow is that exit's. A branch with one side
// on the line and the other to a line shared with other branches (the first
// test of `a && b`) needs how much flow stays on the line: with one such side
// in the tree, the probes' internal edges say it when the front end tests the
// line as the optimised code does (`internal_flow`), or, when it tests it as
// one value (Fortran's `.OR.`), all of it does (each test evaluated every time).
class TreeSolver {
 public:
  TreeSolver(const LineRegion& region, const Node& root) : region_(region) {
    tally(root, region.line, exit_sides_, internal_sides_);
  }

  // Sets probability_[branch] for the tree; false with `why_` when it cannot be told.
  bool solve(const Node& n, double flow, std::optional<double> internal_flow) {
    const BranchItem& b = *n.branch;
    const int line = region_.line, then_line = b.then_line, else_line = b.else_line;
    const bool then_inside = internal(then_line, line, n.then_children),
               else_inside = internal(else_line, line, n.else_children);
    double p = b.probability;
    if (flow <= 1e-12) {
      // Not reached within the region: no evidence, and nothing depends on it.
    } else if (then_line == else_line) {
      return fail("both sides of a branch start on one line");
    } else if (!then_inside && own_exit(then_line)) {
      p = fraction(then_line) / flow;
    } else if (!else_inside && own_exit(else_line)) {
      p = 1 - fraction(else_line) / flow;
    } else if (then_inside != else_inside && internal_sides_ == 1) {
      double inner = internal_flow ? *internal_flow : flow;
      p = then_inside ? inner / flow : 1 - inner / flow;
    } else if (!known(then_line) && !known(else_line)) {
      return fail("a branch whose sides start where the probe saw no test of the line go");
    } else {
      return fail("a branch whose sides go where other branches of the line also go");
    }
    if (p < -1e-9 || p > 1 + 1e-9) return fail("the probe's exits do not fit the model's branches");
    p = std::clamp(p, 0.0, 1.0);
    probability_[n.branch] = p;
    for (const Node& c : n.then_children)
      if (!solve(c, flow * p, internal_flow)) return false;
    for (const Node& c : n.else_children)
      if (!solve(c, flow * (1 - p), internal_flow)) return false;
    return true;
  }

  // Whether the solved tree leaves the line as the run did, to every line
  // both know of.
  bool fits(const Node& root) {
    std::map<int, double> predicted;
    std::function<void(const Node&, double)> walk = [&](const Node& n, double flow) {
      double p = probability_.at(n.branch);
      for (auto [side, share, children] : {std::tuple{n.branch->then_line, p, &n.then_children},
                                           std::tuple{n.branch->else_line, 1 - p, &n.else_children}}) {
        if (!internal(side, region_.line, *children) && side != 0) predicted[side] += flow * share;
        for (const Node& c : *children) walk(c, flow * share);
      }
    };
    walk(root, 1.0);
    for (auto [side, flow] : predicted)
      if (region_.exits.count(side) && std::fabs(flow - fraction(side)) > 1e-6)
        return fail("the probe's exits do not fit the model's branches");
    return true;
  }

  int internal_sides() const { return internal_sides_; }
  const std::map<const BranchItem*, double>& probabilities() const { return probability_; }
  const std::string& why() const { return why_; }
  void reset() { probability_.clear(); }

 private:
  bool exit(int side) const { return region_.exits.count(side) || region_.beyond.count(side); }
  bool own_exit(int side) const { return side != 0 && exit(side) && exit_sides_.at(side) == 1; }
  bool known(int side) const { return side == region_.line || exit(side); }
  double fraction(int side) const {
    auto e = region_.exits.find(side);
    return (e != region_.exits.end() ? e->second : region_.beyond.at(side)) / region_.entries;
  }
  bool fail(const char* why) {
    why_ = why;
    return false;
  }

  const LineRegion& region_;
  std::map<int, int> exit_sides_;
  int internal_sides_ = 0;
  std::map<const BranchItem*, double> probability_;
  std::string why_;
};

void apply(const Node& n, const std::map<const BranchItem*, double>& p, const std::string& origin,
           std::optional<double>& first) {
  n.branch->probability = p.at(n.branch);
  if (!first) first = n.branch->probability;
  n.item->note = n.item->note.empty() ? origin : n.item->note + "; " + origin;
  for (const auto* children : {&n.then_children, &n.else_children})
    for (const Node& c : *children) apply(c, p, origin, first);
}

}  // namespace

namespace {

// The region's tests alone: its entries, internal edges and exits (no `beyond`).
std::optional<LineRegion> tests_at(const ProbeRun& run, const std::string& at, int line) {
  LineRegion r;
  r.line = line;
  double to_line = 0;  // edges to code that starts on the line: a later test, or a statement there
  for (int k = 1;; ++k) {
    const std::string base = at + ":branch" + (k == 1 ? "" : fmt::format("#{}", k));
    auto taken = count(run, base + ".taken"), not_taken = count(run, base + ".not_taken");
    if (!taken || !not_taken) break;
    ++r.tests;
    // The first test in the code's order is where the line is entered (`a`
    // of `a && b`); the later ones are reached from it.
    (k == 1 ? r.entries : r.internal) += *taken + *not_taken;
    for (auto [edges, side] : {std::pair{*taken, "taken_line"}, std::pair{*not_taken, "not_taken_line"}}) {
      auto c = run.code.find(base + "." + side);
      int to = c == run.code.end() ? 0 : static_cast<int>(c->second);
      if (to == 0)
        r.sides_known = false;
      else if (to == line)
        to_line += edges;
      else
        r.exits[to] += edges;
    }
  }
  if (r.tests == 0) return std::nullopt;
  // What went on on the line and reached no later test ran a statement there
  // (Fortran's one-line `IF (c) x = 1`): it leaves the line from the line itself.
  const double on_line = to_line - r.internal;
  if (on_line < -1e-9 * std::max(1.0, to_line))
    r.in_sequence = true;  // later tests reached from both sides: statements in a row, not one condition
  else if (on_line > 0)
    r.exits[line] += on_line;
  return r;
}

}  // namespace

std::optional<LineRegion> line_region(const ProbeRun& run, const std::string& at, int line) {
  std::optional<LineRegion> r = tests_at(run, at, line);
  if (!r) return r;
  const std::string file = at.substr(0, at.rfind(':'));
  for (const auto& [to, flow] : r->exits) {
    if (to == line) continue;
    std::optional<LineRegion> next = tests_at(run, fmt::format("{}:{}", file, to), to);
    if (!next || !next->sides_known || next->in_sequence) continue;
    if (next->entries <= 0 && flow > 0) continue;  // counted otherwise than the region reached it
    for (const auto& [further, edges] : next->exits)
      if (further != to && !r->exits.count(further))
        r->beyond[further] += next->entries > 0 ? flow * edges / next->entries : 0.0;
  }
  return r;
}

int guessed_branches_at(const Items& body, int line) {
  int n = 0;
  for (const Item& item : body) {
    if (const auto* b = std::get_if<BranchItem>(&item.body)) {
      n += guessed_at(item, line);
      n += guessed_branches_at(b->then_items, line) + guessed_branches_at(b->else_items, line);
    } else if (const auto* l = std::get_if<LoopItem>(&item.body)) {
      n += guessed_branches_at(l->body, line);
    }
  }
  return n;
}

RegionBinding bind_line_region(Items& body, const LineRegion& region, const std::string& origin,
                               const std::function<std::optional<OneTest>(const BranchItem&)>& as_one_test) {
  RegionBinding out;
  std::vector<Node> roots;
  collect(body, region.line, roots, roots);
  for (const Node& root : roots) {
    // A join the analyser could not place is no copy of the line's test (below).
    const bool join = root.item->note.find("reached on some paths") != std::string::npos;
    if (root.then_children.empty() && root.else_children.empty() && as_one_test && !join)
      if (auto lone = as_one_test(*root.branch); lone && lone->by_empty_side) {
        ++out.as_one_test;
        apply(root, {{root.branch, lone->probability}}, origin, out.probability);
        continue;
      }
    TreeSolver solver(region, root);
    bool told = solver.solve(root, 1.0, region.internal / region.entries) && solver.fits(root);
    if (!told && solver.internal_sides() == 1) {
      // The front end tests the line otherwise than the optimised code (one
      // logical value split into two tests, or the reverse): its internal
      // edges say nothing of the model's, and the one internal side is taken
      // whenever its branch runs.
      solver.reset();
      told = solver.solve(root, 1.0, std::nullopt) && solver.fits(root);
      out.tests_differ = out.tests_differ || told;
    }
    if (!told) {
      ++out.untold;
      if (out.why.empty()) out.why = solver.why();
      std::map<const BranchItem*, double> each;
      std::function<bool(const Node&)> price = [&](const Node& n) {
        // A join the analyser could not place is no copy of the line's test:
        // its guess stays (a tail after `if (failed) report();` is certain
        // where the test is never taken).
        if (n.item->note.find("reached on some paths") != std::string::npos) return false;
        auto p = as_one_test ? as_one_test(*n.branch) : std::nullopt;
        if (!p) return false;
        each[n.branch] = p->probability;
        for (const auto* children : {&n.then_children, &n.else_children})
          for (const Node& c : *children)
            if (!price(c)) return false;
        return true;
      };
      if (price(root)) {
        ++out.as_one_test;
        apply(root, each, origin, out.probability);
      }
      continue;
    }
    ++out.bound;
    apply(root, solver.probabilities(), origin, out.probability);
  }
  return out;
}

}  // namespace perfcast::model
