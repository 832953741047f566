#include "analyze/source_names.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <optional>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/BinaryFormat/Dwarf.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/Path.h>

#include "analyze/site_names.h"

namespace perfcast::analyze::detail {

namespace {

bool is_name_char(char c, bool first) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (!first && (std::isdigit(static_cast<unsigned char>(c)) || c == '.'));
}

// A struct, or, with `classes`, a C++ class too.
bool is_record(const llvm::DICompositeType* c, bool classes = false) {
  return c && (c->getTag() == llvm::dwarf::DW_TAG_structure_type ||
               (classes && c->getTag() == llvm::dwarf::DW_TAG_class_type));
}

// A member a field of the record holds (no static member, which the record does not).
bool holds_member(const llvm::DIDerivedType* m) {
  return m && m->getTag() == llvm::dwarf::DW_TAG_member && !m->isStaticMember();
}

}  // namespace

// Whether `var` is declared in a system header (the C++ library's, under /usr/).
bool declared_in_system_header(const llvm::DILocalVariable& var) {
  llvm::SmallString<256> path(var.getFilename());
  if (!llvm::sys::path::is_absolute(path)) {
    path = var.getDirectory();
    llvm::sys::path::append(path, var.getFilename());
  }
  return llvm::StringRef(path).starts_with("/usr/");
}

std::string sanitize(const std::string& raw) {
  static const std::set<std::string> reserved = {"floordiv", "ceildiv", "mod", "min", "max", "select",
                                                 "zext", "trunc", "sext", "sum"};
  std::string s;
  for (size_t i = 0; i < raw.size(); ++i) s += is_name_char(raw[i], s.empty()) ? raw[i] : '_';
  if (s.empty() || !is_name_char(s[0], true)) s = "_" + s;
  if (reserved.count(s)) s += "_";
  return s;
}

const llvm::DIType* strip_qualifiers(const llvm::DIType* t) {
  for (int guard = 0; t && guard < 16; ++guard) {
    auto* d = llvm::dyn_cast<llvm::DIDerivedType>(t);
    if (!d || (d->getTag() != llvm::dwarf::DW_TAG_typedef && d->getTag() != llvm::dwarf::DW_TAG_const_type &&
               d->getTag() != llvm::dwarf::DW_TAG_volatile_type))
      break;
    t = d->getBaseType();
  }
  return t;
}

namespace {

// The main program's procedure, whose names are unprefixed as main's are.
bool is_main_program(const std::string& name) { return name == "_QQmain" || name == "main"; }

// `scope.name`, or `name` alone in the main program or at file scope.
std::string scoped(const std::string& scope, const std::string& name) {
  return scope.empty() || is_main_program(scope) ? sanitize(name) : sanitize(scope + "." + name);
}

// flang's mangled name of a variable: `_Q` then scopes, each a tag letter
// (`M` module, `S` submodule, `F` host procedure, `P` procedure, `B` block)
// and a lower-case name, then `E` and the variable. Upper case never occurs
// in a name flang mangles, so the tags are unambiguous.
std::optional<std::string> fortran_variable_name(const std::string& symbol) {
  if (symbol.rfind("_Q", 0) != 0) return std::nullopt;
  auto e = symbol.rfind('E');
  if (e == std::string::npos || e < 2 || e + 1 == symbol.size()) return std::nullopt;
  std::string scope, part;
  char tag = 0;
  for (size_t i = 2; i <= e; ++i) {
    char c = symbol[i];
    if (i == e || std::isupper(static_cast<unsigned char>(c))) {
      if (tag) scope = part;  // the innermost scope names the variable
      tag = c;
      part.clear();
    } else {
      part += c;
    }
  }
  return scoped(scope, symbol.substr(e + 1));
}

}  // namespace

std::string global_source_name(const llvm::GlobalVariable& g) {
  llvm::SmallVector<llvm::DIGlobalVariableExpression*, 1> declared;
  g.getDebugInfo(declared);
  for (const llvm::DIGlobalVariableExpression* d : declared) {
    const llvm::DIGlobalVariable* var = d->getVariable();
    if (!var || var->getName().empty()) continue;
    std::string name = var->getName().str();
    // The scalar at the variable's start: a derived type's (struct's) first
    // component, an array's first element.
    const llvm::DIType* t = strip_qualifiers(var->getType());
    for (int guard = 0; guard < 16; ++guard) {
      auto* c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t);
      if (!c) break;
      if (is_record(c) && !c->getElements().empty()) {
        auto* m = llvm::dyn_cast<llvm::DIDerivedType>(c->getElements()[0]);
        if (!holds_member(m) || m->getOffsetInBits() != 0) break;
        name += "." + m->getName().str();
        t = strip_qualifiers(m->getBaseType());
      } else if (c->getTag() == llvm::dwarf::DW_TAG_array_type) {
        name += "_0";
        t = strip_qualifiers(c->getBaseType());
      } else {
        break;
      }
    }
    const llvm::DIScope* scope = var->getScope();
    if (auto* module = llvm::dyn_cast_or_null<llvm::DIModule>(scope)) return scoped(module->getName().str(), name);
    if (auto* sp = llvm::dyn_cast_or_null<llvm::DISubprogram>(scope)) return scoped(sp->getName().str(), name);
    return sanitize(name);
  }
  if (auto name = fortran_variable_name(g.getName().str())) return *name;
  return sanitize(g.getName().str());
}

std::string file_tag(const std::string& file) {
  auto slash = file.find_last_of('/');
  std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
  std::string s;
  for (char c : base) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s;
}

void SourceNames::collect() {
  std::set<std::string> taken;
  // A variable is one per inlined copy of its function (the inlined call's location).
  using Variable = std::tuple<const llvm::DILocalVariable*, const llvm::DILocation*, std::string>;
  std::map<Variable, const llvm::Value*> by_variable;
  // The inlined copies of each callee variable: with several, each copy is
  // named after its call (`main.block2.c`).
  std::map<const llvm::DILocalVariable*, std::set<const llvm::DILocation*>> copies;
  // In main, the first integer constant the code gives each variable (field)
  // in the order of the code: `int steps = 10;` before an option may set it,
  // the default of the variable's parameter.
  using Slot = std::tuple<const llvm::DILocalVariable*, const llvm::DILocation*, std::int64_t>;
  auto slot = [](const llvm::DbgValueInst* dv) -> std::optional<Slot> {
    const llvm::DIExpression* e = dv->getExpression();
    const llvm::DILocation* copy = dv->getDebugLoc() ? dv->getDebugLoc()->getInlinedAt() : nullptr;
    if (e->getNumElements() == 0) return Slot{dv->getVariable(), copy, -1};
    if (auto frag = e->getFragmentInfo(); frag && e->getNumElements() == 3)
      return Slot{dv->getVariable(), copy, static_cast<std::int64_t>(frag->OffsetInBits)};
    return std::nullopt;
  };
  std::map<Slot, std::int64_t> first_constant;
  for (llvm::Instruction& i : llvm::instructions(s_.f))
    if (auto* dv = llvm::dyn_cast<llvm::DbgValueInst>(&i)) {
      if (const llvm::Value* v = dv->getValue();
          v && !llvm::isa<llvm::UndefValue>(v) && dv->getExpression()->getNumElements() == 0) {
        const VariableCopy key{dv->getVariable(), dv->getDebugLoc() ? dv->getDebugLoc()->getInlinedAt() : nullptr};
        values_of_[key].insert(v);
        if (!llvm::isa<llvm::Constant>(v)) variable_of_.emplace(v, key);
      }
      if (dv->getDebugLoc() && dv->getDebugLoc()->getInlinedAt() && dv->getValue() &&
          !llvm::isa<llvm::Constant>(dv->getValue()))
        copies[dv->getVariable()].insert(dv->getDebugLoc()->getInlinedAt());
      if (auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(dv->getValue()); c && s_.entry && c->getBitWidth() <= 64)
        if (auto at = slot(dv)) first_constant.emplace(*at, c->getSExtValue());
    }
  // Variables of this function first, then those of inlined callees.
  for (int pass = 0; pass < 2; ++pass)
    for (llvm::Instruction& i : llvm::instructions(s_.f)) {
      auto* dvi = llvm::dyn_cast<llvm::DbgVariableIntrinsic>(&i);
      if (!dvi) continue;
      bool inlined = dvi->getDebugLoc() && dvi->getDebugLoc()->getInlinedAt();
      if (inlined != (pass == 1)) continue;
      const llvm::DILocalVariable* var = dvi->getVariable();
      const llvm::DIExpression* e = dvi->getExpression();
      if (auto* declare = llvm::dyn_cast<llvm::DbgDeclareInst>(dvi)) {
        if (auto* a = declare->getAddress()) {
          alloca_names_.emplace(a, var->getName().str());
          struct_vars_.emplace(a, var);
        }
        continue;
      }
      auto* dv = llvm::dyn_cast<llvm::DbgValueInst>(dvi);
      if (!dv) continue;
      const llvm::Value* v = dv->getValue();
      if (v && v->getType()->isPointerTy() && e->getNumElements() == 0 && !llvm::isa<llvm::Constant>(v))
        struct_vars_.emplace(v, var);
      if (!v || llvm::isa<llvm::UndefValue>(v) || llvm::isa<llvm::Constant>(v) || debug_names_.count(v)) continue;
      // A library's parameter given a conversion of the caller's named value
      // (`std::vector<double> v(levels)`: the constructor's `__n`, levels
      // widened) is that value: no name a user knows, and the caller's is.
      if (auto* cast = llvm::dyn_cast<llvm::CastInst>(v);
          cast && inlined && declared_in_system_header(*var) && debug_names_.count(cast->getOperand(0)))
        continue;
      std::string source;
      if (e->getNumElements() == 0) {
        source = var->getName().str();
      } else if (auto frag = e->getFragmentInfo(); frag && e->getNumElements() == 3) {
        source = member_name(var, frag->OffsetInBits);
      } else {
        continue;
      }
      if (source.empty()) continue;
      // Every value one variable (or field) takes outside constants has its
      // name: the value a user binds is what the variable holds.
      const llvm::DILocation* copy = dvi->getDebugLoc() ? dvi->getDebugLoc()->getInlinedAt() : nullptr;
      // An argument's own name stands for what the caller passed: another
      // value of it (written through a reference `f(n)` gave an `int&`, merged
      // at a branch) is a value of its own. The entry's (main's argc, which
      // MPI_Init may rewrite) have no caller: the user binds them as one.
      if (auto same = by_variable.find({var, copy, source});
          same != by_variable.end() &&
          (s_.entry || copy || !llvm::isa<llvm::Argument>(same->second) || llvm::isa<llvm::Argument>(v))) {
        debug_names_[v] = debug_names_.at(same->second);
        continue;
      }
      std::string name = var->getArg() && llvm::isa<llvm::Argument>(v) ? sanitize(source) : s_.local_name(source);
      const llvm::DISubprogram* var_sp = var->getScope() ? var->getScope()->getSubprogram() : nullptr;
      if (copy && var_sp && copies[var].size() > 1)
        name = sanitize(inlined_site(s_.ctx, s_.f, var_sp, copy) + "." + source);
      // Two variables of one name: the later one of an inlined callee is named
      // by its function; then variables of one name count: name.v2, name.v3
      // (in the order of the code). Never by line: names stay when lines move.
      if (const llvm::DISubprogram* sp = var->getScope() ? var->getScope()->getSubprogram() : nullptr;
          taken.count(name) && sp && sp != s_.f.getSubprogram())
        if (std::string scoped = s_.local_name(sp->getName().str() + "." + source); !taken.count(scoped))
          name = scoped;
      if (taken.count(name)) {
        const std::string base = name;
        for (int k = 2; taken.count(name); ++k) name = fmt::format("{}.v{}", base, k);
      }
      taken.insert(name);
      by_variable[{var, copy, source}] = v;
      std::string fn = var->getScope() && var->getScope()->getSubprogram()
                           ? var->getScope()->getSubprogram()->getName().str()
                           : s_.f.getName().str();
      debug_names_[v] = {name,
                         fmt::format("source variable {} of {} ({}:{})", source, fn,
                                     file_tag(var->getFilename().str()), var->getLine()),
                         var->isArtificial(), e->getNumElements() != 0,
                         inlined && declared_in_system_header(*var)};
      // main's argc: in the programs we model it only sizes the option parsing,
      // whose options are parameters of their own; the default is a run
      // without arguments (bind it when the work depends on it).
      if (auto* dv = llvm::dyn_cast<llvm::DbgValueInst>(dvi); dv && !(s_.entry && var->getArg() == 1 && !copy))
        if (auto at = slot(dv))
          if (auto c = first_constant.find(*at); c != first_constant.end())
            s_.describe(name,
                        fmt::format("{}; default {}, {}", debug_names_[v].description, c->second,
                                    model::kFirstValueDefault),
                        std::to_string(c->second));
      if (s_.entry && var->getArg() == 1 && !copy)
        s_.describe(name, debug_names_[v].description + "; default 1, no arguments: bind it when the work depends on it",
                    "1");
    }
}

namespace {

// The variable's earlier value that `v` adds a condition to (or subtracts
// one from): `a + zext(c)`, the optimiser's `n = a; if (c) n++;`; none.
const llvm::Value* incremented(const llvm::Value* v) {
  using namespace llvm;
  auto condition = [](const Value* x) {
    const auto* cast = dyn_cast<CastInst>(x);
    return cast && (isa<ZExtInst>(cast) || isa<SExtInst>(cast)) && cast->getSrcTy()->isIntegerTy(1);
  };
  const auto* op = dyn_cast<BinaryOperator>(v);
  if (!op || (op->getOpcode() != Instruction::Add && op->getOpcode() != Instruction::Sub)) return nullptr;
  if (condition(op->getOperand(1))) return op->getOperand(0);
  if (op->getOpcode() == Instruction::Add && condition(op->getOperand(0))) return op->getOperand(1);
  return nullptr;
}

}  // namespace

bool SourceNames::clips_itself(const llvm::Value& value) const {
  const auto* clip = llvm::dyn_cast<llvm::MinMaxIntrinsic>(&value);
  auto variable = variable_of_.find(&value);
  if (!clip || variable == variable_of_.end()) return false;
  return std::any_of(clip->arg_begin(), clip->arg_end(), [&](const llvm::Use& a) {
    auto of = variable_of_.find(a.get());
    return of != variable_of_.end() && of->second == variable->second;
  });
}

bool SourceNames::merges_in_memory(const llvm::Value& value, const llvm::Value*& local,
                                   std::set<const llvm::Value*>& seen) const {
  using namespace llvm;
  // A variable kept in memory (its address went to a call that writes it):
  // a read that no one write is known to be the last for, and that every
  // write of it reaches (`n = 0; if (c) set(&n);` read after both).
  if (const auto* load = dyn_cast<LoadInst>(&value)) {
    const Value* read = load->getPointerOperand()->stripPointerCasts();
    if (!isa<AllocaInst>(read) || (local && local != read)) return false;
    local = read;
    auto all = writes_.writers(read, 0);
    if (!all || all->size() < 2 || writes_.last_writer(read, 0, load)) return false;
    return std::all_of(all->begin(), all->end(),
                       [&](const Instruction* w) { return w != load && writes_.reaches(w, load); });
  }
  const auto* phi = dyn_cast<PHINode>(&value);
  if (!phi) return false;
  if (!seen.insert(phi).second) return true;  // a cycle: as its other incoming values say
  for (unsigned i = 0; i < phi->getNumIncomingValues(); ++i) {
    const auto* constant = dyn_cast<ConstantInt>(phi->getIncomingValue(i));
    if (!constant) {
      if (!merges_in_memory(*phi->getIncomingValue(i), local, seen)) return false;
      continue;
    }
    // A constant on an edge taken only where such a read equals it: `br (x == c), here` or `br (x != c), .., here`.
    const auto* branch = dyn_cast<BranchInst>(phi->getIncomingBlock(i)->getTerminator());
    const auto* test = branch && branch->isConditional() ? dyn_cast<ICmpInst>(branch->getCondition()) : nullptr;
    if (!test || branch->getSuccessor(0) == branch->getSuccessor(1)) return false;
    const bool equal_here =
        (test->getPredicate() == ICmpInst::ICMP_EQ && branch->getSuccessor(0) == phi->getParent()) ||
        (test->getPredicate() == ICmpInst::ICMP_NE && branch->getSuccessor(1) == phi->getParent());
    const Value* tested = test->getOperand(0);
    const auto* against = dyn_cast<ConstantInt>(test->getOperand(1));
    if (!against) against = dyn_cast<ConstantInt>(tested), tested = test->getOperand(1);
    if (!equal_here || !against || against->getBitWidth() > 64 || constant->getBitWidth() > 64 ||
        against->getSExtValue() != constant->getSExtValue() || !merges_in_memory(*tested, local, seen))
      return false;
  }
  return local != nullptr;
}

bool SourceNames::merges_every_assignment(const llvm::Value& value) const {
  using namespace llvm;
  if (isa<LoadInst>(value) || isa<PHINode>(value)) {
    const Value* local = nullptr;
    std::set<const Value*> seen;
    if (merges_in_memory(value, local, seen)) return true;
    if (isa<LoadInst>(value)) return false;
  }
  auto variable = variable_of_.find(&value);
  if (variable == variable_of_.end()) return false;
  const bool merge = isa<PHINode>(value) || isa<SelectInst>(value) || clips_itself(value) ||
                     (incremented(&value) && variable_of_.count(incremented(&value)) &&
                      variable_of_.at(incremented(&value)) == variable->second);
  if (!merge) return false;
  std::set<const Value*> taken;
  std::vector<const Value*> work = {&value};
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (!taken.insert(v).second) continue;
    if (const auto* phi = dyn_cast<PHINode>(v)) {
      for (const Value* in : phi->incoming_values()) work.push_back(in);
    } else if (const auto* select = dyn_cast<SelectInst>(v)) {
      work.push_back(select->getTrueValue());
      work.push_back(select->getFalseValue());
    } else if (const auto* least_or_most = dyn_cast<MinMaxIntrinsic>(v); least_or_most && clips_itself(*v)) {
      work.push_back(least_or_most->getLHS());
      work.push_back(least_or_most->getRHS());
    } else if (const Value* earlier = incremented(v)) {
      work.push_back(earlier);
    }
  }
  const auto& values = values_of_.at(variable->second);
  return std::all_of(values.begin(), values.end(), [&](const Value* v) { return taken.count(v) > 0; });
}

std::optional<unsigned> SourceNames::assignment_line(const llvm::Value& value) const {
  using namespace llvm;
  auto variable = variable_of_.find(&value);
  if (variable == variable_of_.end() || values_of_.at(variable->second).size() < 2) return std::nullopt;
  const auto* inst = dyn_cast<Instruction>(&value);
  if (!inst || isa<PHINode>(inst) || isa<SelectInst>(inst) || clips_itself(*inst) || incremented(inst))
    return std::nullopt;
  // A read of a variable kept in memory (its address went to a call that
  // writes it) is whatever was stored or written last: where that is one call
  // handed its address, that call's line (the probes read the variable once
  // the call returns); else no one line.
  if (const auto* load = dyn_cast<LoadInst>(inst); load && isa<AllocaInst>(load->getPointerOperand()->stripPointerCasts())) {
    const Value* local = load->getPointerOperand()->stripPointerCasts();
    auto last = writes_.last_writer(local, 0, load);
    const auto* call = last ? dyn_cast_or_null<CallBase>(*last) : nullptr;
    if (!call || std::none_of(call->arg_begin(), call->arg_end(),
                              [&](const Use& a) { return a.get()->stripPointerCasts() == local; }))
      return std::nullopt;
    inst = call;
  }
  const DILocation* at = inst->getDebugLoc().get();
  const DILocalScope* scope = variable->second.first->getScope();
  if (!at || at->getLine() == 0 || !scope || at->getScope()->getSubprogram() != scope->getSubprogram())
    return std::nullopt;
  return at->getLine();
}

std::optional<unsigned> SourceNames::assignment_ordinal(const llvm::Value& value) const {
  const std::optional<unsigned> line = assignment_line(value);
  if (!line) return std::nullopt;
  std::set<unsigned> lines;
  for (const llvm::Value* v : values_of_.at(variable_of_.at(&value)))
    if (auto l = assignment_line(*v)) lines.insert(*l);
  return static_cast<unsigned>(std::distance(lines.begin(), lines.find(*line))) + 1;
}

std::string SourceNames::member_name(const llvm::DILocalVariable* var, uint64_t offset_bits) const {
  std::string name = var->getName().str();
  const llvm::DIType* t = var->getType();
  // Through typedefs, qualifiers and a pointer (a variable that points to the
  // struct) to the struct whose member sits at the offset.
  for (int guard = 0; t && guard < 16; ++guard) {
    if (auto* d = llvm::dyn_cast<llvm::DIDerivedType>(t)) {
      if (d->getTag() == llvm::dwarf::DW_TAG_typedef || d->getTag() == llvm::dwarf::DW_TAG_const_type ||
          d->getTag() == llvm::dwarf::DW_TAG_volatile_type || d->getTag() == llvm::dwarf::DW_TAG_pointer_type) {
        t = d->getBaseType();
        continue;
      }
    }
    break;
  }
  if (auto* c = llvm::dyn_cast_or_null<llvm::DICompositeType>(t)) {
    if (is_record(c))
      for (auto* e : c->getElements())
        if (auto* m = llvm::dyn_cast<llvm::DIDerivedType>(e))
          if (holds_member(m) && m->getOffsetInBits() == offset_bits)
            return name + "." + m->getName().str();
    if (c->getTag() == llvm::dwarf::DW_TAG_array_type && c->getBaseType()) {
      uint64_t elem = c->getBaseType()->getSizeInBits();
      if (elem) return fmt::format("{}_{}", name, offset_bits / elem);
    }
  }
  return fmt::format("{}_bit{}", name, offset_bits);
}

std::string SourceNames::loop_var(const llvm::Loop* l) {
  auto it = loop_vars_.find(l);
  if (it != loop_vars_.end()) return it->second;
  std::string name;
  for (const llvm::PHINode& phi : l->getHeader()->phis()) {
    auto dn = debug_names_.find(&phi);
    if (dn == debug_names_.end() || !s_.se.isSCEVable(phi.getType())) continue;
    auto* ar = llvm::dyn_cast<llvm::SCEVAddRecExpr>(s_.se.getSCEV(const_cast<llvm::PHINode*>(&phi)));
    if (!ar || ar->getLoop() != l || !ar->isAffine()) continue;
    std::string base = dn->second.name.substr(dn->second.name.rfind('.') + 1);
    bool zero_based = ar->getStart()->isZero() && ar->getStepRecurrence(s_.se)->isOne();
    name = zero_based ? base : "iter_" + base;
    break;
  }
  if (name.empty()) name = fmt::format("iter_{}", s_.where(l->getStartLoc()).line);
  name = sanitize(name);
  std::string unique = name;
  for (int k = 2; s_.out.loop_vars.count(unique) || s_.ctx.descriptions.count(unique); ++k)
    unique = fmt::format("{}_{}", name, k);
  s_.out.loop_vars.insert(unique);
  loop_vars_[l] = unique;
  return unique;
}

// The source name of an integer field that `load` reads: `var.field` (nested:
// `var.a.b`, array elements `var.a_2`) when the address is a constant offset
// into a struct variable (a local whose address is taken, or what a named
// pointer points to) and the loops around the load do not write it: one value
// each time the code runs (the options after parsing, the sizes after set-up). Loop bounds and
// loop guards read from such structs (`p->nloc`, `o.iters`) become parameters
// of their own, so every loop the optimiser makes of one source loop (vector
// body, remainder, unrolled copies) counts exactly in terms of the field.
std::optional<std::string> SourceNames::field_name(const llvm::LoadInst* load, bool of_a_class) {
  using namespace llvm;
  if (!load->getType()->isIntegerTy() || load->isVolatile()) return std::nullopt;
  int64_t offset = 0;
  const Value* base = GetPointerBaseWithConstantOffset(load->getPointerOperand(), offset, s_.dl);
  auto it = struct_vars_.find(base);
  if (it == struct_vars_.end() || offset < 0) return std::nullopt;
  const DILocalVariable* var = it->second;
  const DIType* t = strip_qualifiers(var->getType());
  bool through_pointer = false;
  if (auto* d = dyn_cast_or_null<DIDerivedType>(t);
      d && (d->getTag() == dwarf::DW_TAG_pointer_type || (of_a_class && d->getTag() == dwarf::DW_TAG_reference_type))) {
    // A pointer's value (dbg.value): its fields are what it points to. An
    // alloca holds the variable itself.
    if (isa<AllocaInst>(base)) return std::nullopt;
    t = strip_qualifiers(d->getBaseType());
    through_pointer = true;
  } else if (!isa<AllocaInst>(base)) {
    return std::nullopt;
  }
  uint64_t bits = static_cast<uint64_t>(offset) * 8;
  const uint64_t size = s_.dl.getTypeStoreSizeInBits(load->getType());
  std::string path = var->getName().str();
  bool member = false;
  const DIDerivedType* field = nullptr;  // the innermost struct member read
  // Structs only: a local array (neighbour ranks, MPI_Dims_create's dims) is
  // no set of named sizes; MPI peers and roots read from one get a parameter
  // per element (element_rank).
  if (!is_record(dyn_cast_or_null<DICompositeType>(t), of_a_class)) return std::nullopt;
  // A method's `this` (the compiler's variable) is its class: `Atom.nlocal`.
  if (var->isArtificial() && path == "this" && !t->getName().empty()) path = t->getName().str();
  for (int guard = 0; t && guard < 16; ++guard) {
    auto* c = dyn_cast<DICompositeType>(t);
    if (!c) break;
    if (is_record(c, of_a_class)) {
      const DIDerivedType* found = nullptr;
      for (auto* e : c->getElements())
        if (auto* m = dyn_cast<DIDerivedType>(e); holds_member(m) && !m->isBitField()) {
          uint64_t msize =
              m->getSizeInBits() ? m->getSizeInBits() : (m->getBaseType() ? m->getBaseType()->getSizeInBits() : 0);
          if (m->getOffsetInBits() <= bits && bits < m->getOffsetInBits() + msize) found = m;
        }
      if (!found || found->getName().empty()) return std::nullopt;
      path += "." + found->getName().str();
      field = found;
      bits -= found->getOffsetInBits();
      t = strip_qualifiers(found->getBaseType());
      member = true;
    } else if (c->getTag() == dwarf::DW_TAG_array_type && c->getBaseType()) {
      const DIType* elem = strip_qualifiers(c->getBaseType());
      uint64_t esize = elem ? elem->getSizeInBits() : 0;
      if (!esize) return std::nullopt;
      path += fmt::format("_{}", bits / esize);
      bits %= esize;
      t = elem;
      member = true;
    } else {
      return std::nullopt;
    }
  }
  // A whole scalar field, read as what it is.
  if (!member || !t || bits != 0 || t->getSizeInBits() != size || isa<DICompositeType>(t)) return std::nullopt;
  if (auto* d = dyn_cast<DIDerivedType>(t); d && d->getTag() == dwarf::DW_TAG_pointer_type) return std::nullopt;
  if (const Loop* l = s_.li.getLoopFor(load->getParent())) {
    // A pointer that moves with a loop around the load (one struct per
    // iteration) reads a different field each time.
    if (auto* def = dyn_cast<Instruction>(base))
      if (const Loop* around = s_.li.getLoopFor(def->getParent()); around && around->contains(load->getParent()))
        return std::nullopt;
    while (l->getParentLoop()) l = l->getParentLoop();
    if (writes_.written_in_loop(l, base, offset)) {
      if (s_.ctx.debugging())
        s_.ctx.input->progress(fmt::format("{} at line {}: not a parameter, the loop at line {} may write it", path,
                                           s_.where(load->getDebugLoc()).line, s_.where(l->getStartLoc()).line));
      return std::nullopt;
    }
  }
  std::string name = through_pointer && isa<Argument>(base) ? sanitize(path) : s_.local_name(path);
  std::string fn = var->getScope() && var->getScope()->getSubprogram()
                       ? var->getScope()->getSubprogram()->getName().str()
                       : s_.f.getName().str();
  // Where the variable read through is declared (the feature probes name the
  // field's reads by it; a method's `this`, which has no line, by its
  // function's) and where the field is (they name its stores by that).
  const llvm::DISubprogram* sp = var->getScope() ? var->getScope()->getSubprogram() : nullptr;
  const bool declared = var->getLine() != 0 || !sp;
  s_.describe(name, fmt::format("field {} of {} ({}:{}), read from memory (a value the loops that read it leave "
                                "alone); the field is declared at {}:{}",
                                path, fn, file_tag((declared ? var->getFilename() : sp->getFilename()).str()),
                                declared ? var->getLine() : sp->getLine(),
                                file_tag(field->getFilename().str()), field->getLine()));
  return name;
}

// The source name of the array a gather reads: its pointer's variable, which
// may hold the pointer cast to its type (ScalarEvolution sees through the
// casts: `double *pe = calloc(...)` is the i8* calloc returns).
std::string SourceNames::gathered_name(const llvm::Value* base) const {
  std::vector<const llvm::Value*> named = {base, base->stripPointerCasts()};
  for (const llvm::User* u : base->users())
    if (llvm::isa<llvm::BitCastInst>(u)) named.push_back(u);
  for (const llvm::Value* v : named)
    if (auto dn = debug_names_.find(v); dn != debug_names_.end()) return dn->second.name;
  if (auto an = alloca_names_.find(base); an != alloca_names_.end()) return an->second;
  if (const auto* g = llvm::dyn_cast<llvm::GlobalVariable>(base)) return g->getName().str();
  // A pointer read from a field (t->nodes, p->val): the field's name.
  if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(base->stripPointerCasts())) {
    std::int64_t offset = 0;
    const llvm::Value* holder = llvm::GetPointerBaseWithConstantOffset(load->getPointerOperand(), offset, s_.dl);
    if (auto var = struct_vars_.find(holder); var != struct_vars_.end() && offset >= 0)
      return member_name(var->second, static_cast<std::uint64_t>(offset) * 8);
  }
  return "data";
}

}  // namespace perfcast::analyze::detail
