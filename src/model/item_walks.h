// Walks over a program model's items that several of the model's modules
// share: every expression of a subtree substituted, the loop indices a body
// binds, how many items a model has.
#pragma once

#include <cstddef>
#include <set>
#include <string>

#include "model/program_model.h"
#include "support/expr.h"

namespace perfcast::model {

// What substitute_in does with an expression the substitution changed.
enum class AfterSubstitution {
  Kept,        // as substituted: a name put for a name keeps the model's text
  Simplified,  // simplified where its constants fold, else kept for evaluation to report
};

// `values` substituted in every expression of `item` and of the items it
// holds (for_each_expression, then loop bodies and both sides of branches).
// The caller leaves out names a loop index of the subtree takes (loop_indices).
void substitute_in(Item& item, const expr::Substitution& values, AfterSubstitution after);
void substitute_in(Items& items, const expr::Substitution& values, AfterSubstitution after);

// `body` with `values` substituted in every expression, each changed one
// simplified (substitute_in, AfterSubstitution::Simplified).
Items substituted_items(Items body, const expr::Substitution& values);

// The index names of every loop in `body`, nested ones too.
std::set<std::string> loop_indices(const Items& body);

// The items of `body`, nested ones too (a loop, its body's items and so on).
std::size_t item_count(const Items& body);
// Of every function of `model`.
std::size_t item_count(const ProgramModel& model);

// A model of at most this many items composes without the job's values in
// bounded time: a refusal of its counts composed with those values in place
// (specialise.h) may be composed again to name its parameters. A
// 900-function application has ~30 000; composing it so does not end.
constexpr std::size_t kRecomposableItems = 10'000;

}  // namespace perfcast::model
