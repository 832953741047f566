#include "analyze/variable_reads.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include <llvm/IR/User.h>

#include "model/item_walks.h"

namespace perfcast::analyze::detail {
namespace {

constexpr std::string_view kSourceVariable = "source variable ";

bool name_character(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// `text` with each whole-name occurrence of a key of `renames` replaced.
std::string renamed_text(std::string text, const std::map<std::string, std::string>& renames) {
  for (const auto& [from, to] : renames)
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
      const std::size_t end = at + from.size();
      if ((at > 0 && name_character(text[at - 1])) || (end < text.size() && name_character(text[end]))) {
        at = end;
        continue;
      }
      text.replace(at, from.size(), to);
      at += to.size();
    }
  return text;
}

void rename_in(model::Items& items, const expr::Substitution& names, const std::map<std::string, std::string>& renames) {
  model::substitute_in(items, names, model::AfterSubstitution::Kept);
  std::function<void(model::Items&)> notes = [&](model::Items& list) {
    for (model::Item& item : list) {
      if (!item.note.empty()) item.note = renamed_text(item.note, renames);
      if (auto* l = std::get_if<model::LoopItem>(&item.body)) notes(l->body);
      if (auto* b = std::get_if<model::BranchItem>(&item.body)) notes(b->then_items), notes(b->else_items);
    }
  };
  notes(items);
}

}  // namespace

std::string assignment_name(const std::string& name, unsigned ordinal) { return fmt::format("{}.{}", name, ordinal); }

void name_variable_reads(model::ProgramModel& model, ModuleContext& ctx) {
  // The assignments' names of each variable the model reads, and whether it
  // reads the variable's own name too.
  std::map<std::string, std::vector<std::string>> assignments;
  std::set<std::string> read;
  for (const model::Parameter& p : model.parameters) read.insert(p.name);
  for (const auto& [own, variable] : ctx.assignment_names)
    if (read.count(own)) assignments[variable].push_back(own);
  std::map<std::string, std::string> renames;
  for (const auto& [variable, owns] : assignments)
    if (owns.size() == 1 && !read.count(variable)) renames[owns.front()] = variable;
  if (!renames.empty()) {
    expr::Substitution names;
    for (const auto& [from, to] : renames) names.emplace(from, expr::var(to));
    for (model::Parameter& p : model.parameters) {
      if (auto r = renames.find(p.name); r != renames.end()) {
        ctx.variable_reads[r->second] = ctx.variable_reads[r->first];
        p.name = r->second;
        // What the variable's name says (main's variable's first value in the
        // source, `int first = 0;`, its default), as before any read.
        if (auto d = ctx.descriptions.find(p.name); d != ctx.descriptions.end()) {
          p.description = d->second.description;
          if (d->second.default_value) p.default_value = expr::parse(*d->second.default_value);
        }
      }
      if (p.default_value) p.default_value = expr::substitute(*p.default_value, names);
    }
    std::sort(model.parameters.begin(), model.parameters.end(),
              [](const model::Parameter& a, const model::Parameter& b) { return a.name < b.name; });
    for (auto& [name, f] : model.functions) rename_in(f.body, names, renames);
    if (model.coverage) {
      for (auto& b : model.coverage->guessed_branches) b.why = renamed_text(b.why, renames);
      for (auto& l : model.coverage->unknown_loops)
        l.why = renamed_text(l.why, renames), l.trip_count = renamed_text(l.trip_count, renames);
    }
  }
  // A local the model reads where its assignments merge: a probe run measures its reads there.
  // A local the model reads as one of its assignments: a probe run measures that one's values.
  for (model::Parameter& p : model.parameters) {
    auto reads = ctx.variable_reads.find(p.name);
    if (reads == ctx.variable_reads.end() || !p.description.starts_with(kSourceVariable)) continue;
    const ModuleContext::VariableReads& r = reads->second;
    if (r.merges.empty() && !r.not_one_assignment && r.assignment_lines.size() == 1)
      p.description += fmt::format("{}{}", model::kAssignedAtLineNote, *r.assignment_lines.begin());
    if (r.merges.empty()) continue;
    bool others = false;  // read apart from the merges, not as one's operand
    for (const llvm::Value* v : r.others)
      others = others || std::none_of(r.merges.begin(), r.merges.end(), [&](const llvm::Value* m) {
                 const auto* user = llvm::dyn_cast<llvm::User>(m);
                 return user && llvm::is_contained(user->operands(), v);
               });
    p.description += others ? model::kReadWhereMergeAndAtOneNote : model::kReadWhereMergeNote;
  }
}

}  // namespace perfcast::analyze::detail
