// Several branches at one source line, bound from a probe run as one region
// (docs/program-model.md, "Probe runs"): `a && b`, `a || b`, Fortran's
// `IF (a .OR. b)`. The front end the probes count and the optimised code the
// analyser prices may test such a line differently (two tests merged into
// one, or one logical value split into two), so their tests cannot be paired
// one to one. What both keep is where control goes when it leaves the line:
// the source line each side starts at. The probes' tests at one line are one
// region entered at its first test; its exits are counted by the line they
// go to, and what goes on on the line without reaching a later test leaves
// from the line itself (a statement there). Each of the model's branches at that line
// then gets the probability that makes its own exits those the run measured.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "model/probe_bind.h"
#include "model/program_model.h"

namespace perfcast::model {

// What the probes counted at one line: every `branch`, `branch#2`, ... there.
struct LineRegion {
  int line = 0;
  int tests = 0;                // the probes' branches at the line
  double entries = 0;           // evaluations of its first test in the code's order
  double internal = 0;          // evaluations of the later ones, reached from the first
  std::map<int, double> exits;  // by the source line the side starts at (the line itself: a statement there)
  // Beyond an exit to a line the probes test (`if (threads == 1)` at the
  // start of an `else`), where its tests go on to, in the region's flow: the
  // optimised code may have folded that test (a constant the optimiser
  // knows) and start the side at the line it goes on to. Lines not in `exits`.
  std::map<int, double> beyond;
  bool sides_known = true;      // every side's line recorded (a record from before them has none)
  bool in_sequence = false;     // later tests reached from every side: statements in a row, not one condition
};

// The region the run recorded at feature site `at` ("f.c:12"), or none when
// it recorded no branch there.
std::optional<LineRegion> line_region(const ProbeRun& run, const std::string& at, int line);

// The model's guessed branches at `region.line` among `body`: how many.
int guessed_branches_at(const Items& body, int line);

struct RegionBinding {
  int bound = 0, untold = 0;          // the model's trees of branches at that line, bound or not
  int as_one_test = 0;                // of the untold and the lone, priced by `as_one_test` (bind_line_region)
  bool tests_differ = false;          // bound with the probe's tests split otherwise than the model's
  std::optional<double> probability;  // `then` of the first branch bound
  std::string why;                    // why a tree was not bound
};

// The probes' one test at a line as one of the model's branches: its fraction
// on the side it was measured on, and whether the side that does nothing in
// each code said which side that is.
struct OneTest {
  double probability = 0;
  bool by_empty_side = false;
};

// Sets the probabilities of the model's guessed branches at the region's line
// in `body` (a function's items) where the run says them, noting `origin` on
// each. A lone branch whose empty side the probes' one test shares (a copy of
// the test the vectoriser made for one lane of a masked store, whose blocks
// carry other lines) and a tree of branches whose split the exits cannot tell
// get, branch by branch, what `as_one_test` gives (where the probes count one
// test there), or keep their guess.
RegionBinding bind_line_region(Items& body, const LineRegion& region, const std::string& origin,
                               const std::function<std::optional<OneTest>(const BranchItem&)>& as_one_test = {});

}  // namespace perfcast::model
