// The mark shared by the analyser and a probe run's binding on a branch item
// around the arithmetic of the later test of `a || b` / `a && b` (held as one
// value in the IR, tested as two jumps by the machine code): its `then` runs
// where the earlier test does not decide (docs/program-model.md, "A later
// test's own arithmetic").
#pragma once
#include "model/program_model.h"

namespace perfcast::model {

// The item's `note` holds it and its coverage entry's `why` is it. A probe
// run binds such a branch from the earlier test's outcomes (the `first_test`
// features), never from the line's branch counts.
inline constexpr const char kLaterTestWhy[] = "the later test of an or/and, run where the earlier one does not decide";

inline bool is_later_test(const Item& item) { return item.note.find(kLaterTestWhy) != std::string::npos; }

}  // namespace perfcast::model
