// Internal: the names and descriptions of the source variables' values the
// model reads, once every function is analysed. A variable assigned at
// several places holds a value of each: where the model reads one
// assignment's, the conversion names it `<name>.<k>` (k: that assignment's
// place among the variable's in line order, SourceNames::assignment_ordinal),
// and merges and values of no one line by the variable's name, so that a
// probe run measures each apart. Where the model reads only one of those
// values, it goes by the variable's name, as the user knows it.
#pragma once

#include "analyze/module_context.h"
#include "model/program_model.h"

namespace perfcast::analyze::detail {

// `<name>.<k>` for the k-th assignment of the variable `name`.
std::string assignment_name(const std::string& name, unsigned ordinal);

// Renames each `<name>.<k>` that is the only value of its variable the model
// reads to `<name>` (parameters, expressions, the coverage's and items' text),
// then ends each variable's description with how the model reads it (merged,
// or one assignment's line: model::kReadWhereMergeNote, kAssignedAtLineNote).
void name_variable_reads(model::ProgramModel& model, ModuleContext& ctx);

}  // namespace perfcast::analyze::detail
