// The double-precision flops callgrind counts in a test program's own code: every
// function of its executable that ran out of line (rows known from inline frames
// only repeat part of those). The figure the analyse-and-count tests compare the
// model and the hand count with.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "counts/run.h"

namespace perfcast::testing {

// `program` (its path and arguments) run once under callgrind, labelled `label`;
// one rank expected.
inline double callgrind_program_flops(std::vector<std::string> program, const std::string& label) {
  counts::CallgrindRunOptions run;
  run.program = std::move(program);
  run.cache_sim = false;
  run.label = label;
  counts::CodeCache cache;
  auto ranks = counts::count_ranks(counts::run_callgrind(run), cache);
  EXPECT_EQ(ranks.size(), 1u);
  if (ranks.empty()) return -1;
  double measured = 0;
  for (const auto& f : ranks[0].functions)
    if (f.object == ranks[0].main_object && !f.inlined_only) measured += f.flops_double();
  return measured;
}

}  // namespace perfcast::testing
