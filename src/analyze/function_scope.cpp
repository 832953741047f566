#include "analyze/function_scope.h"

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>

#include "analyze/openmp_runtime.h"
#include "analyze/site_names.h"
#include "analyze/source_names.h"

namespace perfcast::analyze::detail {

namespace ex = perfcast::expr;

FunctionScope::FunctionScope(ModuleContext& context, llvm::Function& function, FunctionModel& model)
    : ctx(context),
      f(function),
      out(model),
      dl(*context.dl),
      li(context.fam->getResult<llvm::LoopAnalysis>(function)),
      se(context.fam->getResult<llvm::ScalarEvolutionAnalysis>(function)),
      dt(context.fam->getResult<llvm::DominatorTreeAnalysis>(function)),
      pdt(context.fam->getResult<llvm::PostDominatorTreeAnalysis>(function)),
      entry(function.getName() == "main" || function.getName() == "_QQmain") {}

std::string site_of(const Where& w) {
  std::string file = w.file.substr(w.file.rfind('/') == std::string::npos ? 0 : w.file.rfind('/') + 1);
  return fmt::format("{}:{}", file.empty() ? "?" : file, w.line);
}

Where FunctionScope::where(const llvm::DebugLoc& dl) const {
  Where w;
  const llvm::DILocation* loc = dl.get();
  if (!loc) return w;
  w.line = static_cast<int>(loc->getLine());
  w.column = static_cast<int>(loc->getColumn());
  w.file = loc->getFilename().str();
  if (auto* sp = loc->getScope() ? loc->getScope()->getSubprogram() : nullptr) w.origin = sp->getName().str();
  if (loc->getInlinedAt() && !w.origin.empty() && w.origin != f.getName()) {
    const llvm::DILocation* call = loc->getInlinedAt();
    while (call->getInlinedAt()) call = call->getInlinedAt();
    w.note = fmt::format("inlined from {} (called at line {})", w.origin, call->getLine());
    if (const llvm::DISubprogram* sp = loc->getScope()->getSubprogram(); sp->getLinkageName() != f.getName())
      w.instance = sp->getLinkageName().str();
  }
  return w;
}

std::optional<double> FunctionScope::probability_override(const Where& w) const {
  for (const auto& [key, p] : ctx.input->branch_probabilities) {
    auto colon = key.rfind(':');
    if (colon == std::string::npos) continue;
    std::string file = key.substr(0, colon);
    if (std::to_string(w.line) != key.substr(colon + 1)) continue;
    auto ends_with = [](const std::string& a, const std::string& b) {
      return a.size() >= b.size() && a.compare(a.size() - b.size(), b.size(), b) == 0;
    };
    if (ends_with(w.file, file) || ends_with(file, w.file)) return p;
  }
  return std::nullopt;
}

std::string FunctionScope::local_name(const std::string& source_name) const {
  return entry ? sanitize(source_name) : sanitize(function_source_name(f) + "." + source_name);
}

void FunctionScope::describe(const std::string& name, const std::string& description,
                             std::optional<std::string> default_value) {
  if (!ctx.descriptions.count(name)) ctx.descriptions[name] = {description, std::move(default_value)};
}

bool FunctionScope::model_wide(const ex::Expr& e) const {
  // The thread and its team's size are every function's implicit parameters
  // (openmp_runtime.h), passed at each call like an argument: no default can
  // name them.
  for (const std::string& name : ex::free_names(ex::simplify(e)))
    if (out.loop_vars.count(name) || (!entry && arguments.count(name)) || name == kOmpThread || name == kOmpTeam)
      return false;
  return true;
}

bool FunctionScope::inlined_from_ignored(const llvm::DebugLoc& dl) const {
  for (const llvm::DILocation* at = dl.get(); at && at->getInlinedAt(); at = at->getInlinedAt())
    if (const llvm::DISubprogram* sp = at->getScope()->getSubprogram();
        sp && !sp->getLinkageName().empty() && ctx.ignores(sp->getLinkageName().str()))
      return true;
  return false;
}

}  // namespace perfcast::analyze::detail
