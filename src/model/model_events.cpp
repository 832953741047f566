#include "model/model_events.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "model/costs.h"
#include "model/item_walks.h"
#include "model/specialise.h"
#include "support/error.h"

namespace perfcast::model {

namespace {

using events::Event;
using events::Kind;

bool single_precision_math(const std::string& name) {
  return name.size() > 1 && name.back() == 'f' && name != "sqrt" && name != "pow";
}

// Which functions contain an MPI item, directly or through calls.
class MpiReach {
 public:
  explicit MpiReach(const ProgramModel& model) : model_(model) {}

  bool function(const std::string& name) {
    auto memo = memo_.find(name);
    if (memo != memo_.end()) return memo->second;
    auto fn = model_.functions.find(name);
    if (fn == model_.functions.end()) throw UserError(fmt::format("call to unknown function '{}'", name));
    if (!active_.insert(name).second)
      throw UserError(fmt::format("function '{}' calls itself (directly or not); recursion cannot be evaluated", name));
    const std::string* caller = in_;
    in_ = &fn->first;
    bool has = items(fn->second.body);
    in_ = caller;
    active_.erase(name);
    memo_[name] = has;
    return has;
  }

  bool items(const Items& list) {
    for (const Item& it : list)
      if (item(it)) return true;
    return false;
  }

  bool item(const Item& it) {
    if (std::holds_alternative<MpiItem>(it.body)) return true;
    if (auto* l = std::get_if<LoopItem>(&it.body)) return items(l->body);
    if (auto* b = std::get_if<BranchItem>(&it.body)) return items(b->then_items) || items(b->else_items);
    if (auto* c = std::get_if<CallItem>(&it.body)) {
      if (c->function.empty()) return false;  // an unbound indirect call: nothing
      // An unknown callee or a recursion: named at the call, in the model's file.
      try {
        return function(c->function);
      } catch (const ModelItemError&) {
        throw;
      } catch (const UserError& error) {
        throw ModelItemError(model_.file, in_ ? *in_ : model_.entry, it.line, error);
      }
    }
    return false;
  }

 private:
  const ProgramModel& model_;
  const std::string* in_ = nullptr;  // the function whose items are being read
  std::map<std::string, bool> memo_;
  std::set<std::string> active_;
};

// The compute burst a rank is gathering: its totals, and with
// EventOptions::work its items' counts in order.
struct PendingBurst {
  double flops = 0, bytes = 0;
  std::vector<BurstWork::Run> runs;
  std::uint32_t site = 0;
  bool empty() const { return flops == 0 && bytes == 0 && runs.empty(); }
  void clear() {
    flops = bytes = 0;
    runs.clear();  // keeps its capacity: a time loop gathers a burst per step
    site = 0;
  }
};

// One MPI-free item evaluated at one binding of the names its costs need:
// what it adds to a burst. `work` (EventOptions::work) holds the counts' sites,
// what pricing reads; an item with neither flops, bytes nor cycles adds nothing.
struct CountedItem {
  double flops = 0, bytes = 0;
  std::optional<RankCounts> work;
  bool empty() const { return flops == 0 && bytes == 0 && !work; }
};

// The values of the names an item's costs need (present?, integer?, integer
// value, real value), in the order of ItemCosts::names.
using BindingKey = std::vector<std::tuple<bool, bool, std::int64_t, double>>;

// Equal bursts are one BurstWork, found by their runs.
struct ByRuns {
  using is_transparent = void;
  bool operator()(const BurstWork& a, const BurstWork& b) const { return a.runs < b.runs; }
  bool operator()(const BurstWork& a, const std::vector<BurstWork::Run>& b) const { return a.runs < b; }
  bool operator()(const std::vector<BurstWork::Run>& a, const BurstWork& b) const { return a < b.runs; }
};

// A work item's symbolic costs and the names they need (shared by the ranks).
struct ItemCosts {
  SymbolicCosts costs;
  std::set<std::string> names;
};

// Where each rank's sendrecv calls are matched: (destination, site, occurrence)
// -> (source, bytes). A sendrecv names its destination only; its source is the
// rank whose call at the same site and occurrence sends to this one (SPMD code:
// every rank runs the same loop), and what that call sends is what this one
// receives.
using SendrecvKey = std::tuple<int, std::uint32_t, std::uint64_t>;
using SendrecvSources = std::map<SendrecvKey, std::pair<int, std::uint64_t>>;

bool has_sendrecv(const Items& list) {
  for (const Item& it : list) {
    if (auto* m = std::get_if<MpiItem>(&it.body); m && m->op == mpi::Op::Sendrecv) return true;
    if (auto* l = std::get_if<LoopItem>(&it.body); l && has_sendrecv(l->body)) return true;
    if (auto* b = std::get_if<BranchItem>(&it.body); b && (has_sendrecv(b->then_items) || has_sendrecv(b->else_items)))
      return true;
  }
  return false;
}

}  // namespace

// What every rank's evaluator shares: the model, its twin specialised to the
// job and the twin bodies its calls with numbers run, the work items'
// symbolic costs (computed once, by whichever rank meets the item first, each
// callee composed once for all of them) and their values per binding
// (evaluated once, whichever ranks and steps bind the names alike: the counts
// depend on those names alone), the bursts' work, the event budget, and the
// sendrecv matching.
struct ModelJobSource::Shared {
  Shared(const ProgramModel& m, int n, std::map<std::string, expr::Value> p, const EventOptions& o)
      : model(m), scratch(specialised(m, rank_independent_bindings(m, p, n))), composer(scratch), reach(m),
        options(o), np(n), parameters(std::move(p)), budget(o.max_events) {}
  const ProgramModel& model;
  // The model with the job's values every rank binds alike in place
  // (specialise.h), as predict composes it: the twin of `model` whose items
  // the work is composed from, item for item, so a size passed down the calls
  // is a number where the work composes. The walk itself, its events and its
  // errors follow `model`. The work items are added to it, each in a function
  // of its own.
  ProgramModel scratch;
  CostComposer composer;  // of `scratch`
  // A call whose arguments are numbers runs its callee's twin body with them
  // in place: per call item of the twin, the body it runs; those bodies by
  // callee and numbers.
  std::map<const CallItem*, const Items*> twin_body_of_call;
  std::map<std::string, Items> twin_bodies;
  std::map<const Item*, std::string> item_functions;
  std::map<std::string, ItemCosts> item_costs;
  std::map<std::pair<const Item*, BindingKey>, CountedItem> counted;
  std::set<BurstWork, ByRuns> bursts;
  MpiReach reach;
  EventOptions options;
  int np;
  std::map<std::string, expr::Value> parameters;
  std::uint64_t budget;
  SendrecvSources sendrecv_sources;
};

namespace {

using Shared = ModelJobSource::Shared;

// The functions an item counted on its own is put in, in the scratch copy of the model.
constexpr const char* kScratchPrefix = "__model_events_item_";

// One rank's stream, made on demand: the model's tree walked with an explicit
// stack (a frame per item list being run: a function's body, a loop's body at
// one iteration, a branch's side) so the walk can stop after any event and go
// on when the reader asks for the next one.
class RankEvaluator {
 public:
  // `mpi_only`: the sendrecv matching's first pass, which needs the MPI calls
  // alone: work is neither counted nor emitted. `budget` counts what is emitted.
  RankEvaluator(Shared& shared, int rank, const expr::Bindings& rank_bindings, std::uint64_t& budget,
                bool mpi_only = false)
      : shared_(shared), options_(shared.options), rank_(rank), size_(shared.np), budget_(budget),
        mpi_only_(mpi_only) {
    Frame root;
    root.own = rank_bindings;
    root.list = &function_body(shared.model.entry);
    root.twin = &shared.scratch.functions.at(shared.model.entry).body;
    root.function = &shared.model.entry;
    frames_.push_back(std::move(root));
    frames_.back().scope = &*frames_.back().own;
  }

  // The next event of this rank's stream, or false at its end.
  bool next(Event& out) {
    while (ready_.empty() && advance()) {
    }
    if (ready_.empty()) return false;
    out = std::move(ready_.front());
    ready_.pop_front();
    return true;
  }

 private:
  struct Frame {
    const Items* list = nullptr;
    const Items* twin = nullptr;  // `list` as the job's twin of the model has it (Shared::scratch)
    size_t index = 0;
    const expr::Bindings* scope = nullptr;  // own, or an enclosing frame's
    std::optional<expr::Bindings> own;      // a loop's or a call's names
    const LoopItem* loop = nullptr;         // set: this frame runs the loop's iterations
    const std::string* function = nullptr;  // the model function whose items these are
    std::int64_t iteration = 0, trips = 0;
  };

  // An MPI item's calls still to emit (an item stands for `count` calls).
  struct Repeat {
    const MpiItem* item = nullptr;
    int line = 0;
    const std::string* function = nullptr;
    const expr::Bindings* scope = nullptr;
    std::int64_t remaining = 0;
    std::uint64_t bytes = 0;
  };

  const Items& function_body(const std::string& name) const {
    auto fn = shared_.model.functions.find(name);
    if (fn == shared_.model.functions.end()) throw UserError(fmt::format("call to unknown function '{}'", name));
    return fn->second.body;
  }

  // The twin of the items a call runs: its callee's twin body, with the
  // arguments that are numbers in place (made once per callee and numbers,
  // kept for the job), so the work inside composes with them as predict's
  // composition does (a callee composed with its numbers in place, costs.h);
  // an argument whose name a loop index of the callee takes is left to the
  // binding, as there.
  const Items& twin_called_body(const CallItem& call) {
    auto known = shared_.twin_body_of_call.find(&call);
    if (known != shared_.twin_body_of_call.end()) return *known->second;
    const Items& body = shared_.scratch.functions.at(call.function).body;
    const std::set<std::string> indices = loop_indices(body);
    expr::Substitution numbers;
    std::string key = call.function;
    for (const auto& [name, value] : call.args)
      if (value.is_constant() && !indices.count(name)) {
        numbers.emplace(name, value);
        key += fmt::format("\n{}={}", name, expr::to_string(value));
      }
    const Items* runs = &body;
    if (!numbers.empty()) {
      auto [kept, fresh] = shared_.twin_bodies.try_emplace(std::move(key));
      if (fresh) kept->second = substituted_items(body, numbers);
      runs = &kept->second;
    }
    shared_.twin_body_of_call.emplace(&call, runs);
    return *runs;
  }

  // One step of the walk; an error the model's content raises there (a count,
  // peer, condition or argument that does not evaluate, or out of range) names the
  // model file, the function and the line of the item being run.
  bool advance() {
    try {
      return step();
    } catch (const ModelItemError& error) {
      // An item counted on its own sits in a scratch function: it belongs to this one.
      if (at_function_ && error.function().rfind(kScratchPrefix, 0) == 0) throw error.in_function(*at_function_);
      throw;
    } catch (const UserError& error) {
      if (!at_function_ || over_budget_) throw;
      throw ModelItemError(shared_.model.file, *at_function_, at_line_, error);
    }
  }

  // One step of the walk (an item, an MPI call, the end of a list); false
  // once the stream has ended. The frames live in a deque, so a reference to
  // one stays valid while frames are pushed after it.
  bool step() {
    if (repeat_.remaining > 0) {
      at_function_ = repeat_.function;
      at_line_ = repeat_.line;
      --repeat_.remaining;
      emit_mpi_call(*repeat_.item, repeat_.line, *repeat_.scope, repeat_.bytes);
      return true;
    }
    if (frames_.empty()) {
      if (ended_) return false;
      flush();
      ended_ = true;
      return true;
    }
    Frame& f = frames_.back();
    if (f.index == f.list->size()) {
      if (f.loop && ++f.iteration < f.trips) {
        f.index = 0;
        if (!f.loop->var.empty()) (*f.own)[f.loop->var] = f.iteration;
      } else {
        frames_.pop_back();
      }
      return true;
    }
    const Item& twin = (*f.twin)[f.index];
    const Item& it = (*f.list)[f.index++];
    const expr::Bindings& scope = *f.scope;
    at_function_ = f.function;
    at_line_ = it.line;
    if (!shared_.reach.item(it)) {
      if (!mpi_only_) add_work(it, twin, scope);
      return true;
    }
    if (auto* l = std::get_if<LoopItem>(&it.body)) {
      std::int64_t trips = integer(l->trip_count, scope, "trip count");
      if (trips == 0 || l->body.empty()) return true;
      Frame loop;
      loop.list = &l->body;
      loop.twin = &std::get<LoopItem>(twin.body).body;
      loop.own = scope;
      if (!l->var.empty()) (*loop.own)[l->var] = std::int64_t{0};
      loop.loop = l;
      loop.trips = trips;
      loop.function = f.function;
      frames_.push_back(std::move(loop));
      frames_.back().scope = &*frames_.back().own;
    } else if (auto* b = std::get_if<BranchItem>(&it.body)) {
      bool then_side;
      if (b->condition) {
        then_side = expr::evaluate(*b->condition, scope).real() != 0;
      } else {
        double& credit = credit_[&it];
        credit += b->share ? expr::evaluate(*b->share, scope).real() : b->probability;
        then_side = credit >= 0.5;
        if (then_side) credit -= 1;
      }
      Frame side;
      side.list = then_side ? &b->then_items : &b->else_items;
      const auto& twin_branch = std::get<BranchItem>(twin.body);
      side.twin = then_side ? &twin_branch.then_items : &twin_branch.else_items;
      side.scope = &scope;
      side.function = f.function;
      frames_.push_back(std::move(side));
    } else if (auto* c = std::get_if<CallItem>(&it.body); c && !c->function.empty()) {
      // The callee sees the caller's names (as substitution into the caller
      // does in costs.cpp) with its parameters bound to the arguments.
      Frame call;
      call.list = &function_body(c->function);
      call.twin = &twin_called_body(std::get<CallItem>(twin.body));
      call.own = scope;
      call.function = &c->function;
      for (const auto& [name, value] : c->args) (*call.own)[name] = expr::evaluate(value, scope);
      frames_.push_back(std::move(call));
      frames_.back().scope = &*frames_.back().own;
    } else if (auto* m = std::get_if<MpiItem>(&it.body)) {
      begin_mpi(*m, it.line, scope);
    }
    return true;
  }

  // A loop's trip count or an item's call count, run one by one: a whole
  // number >= 0, or an error naming the expression and its value (advance()
  // adds the file, function and line).
  std::int64_t integer(const Expr& e, const expr::Bindings& scope, const char* what) {
    double v = expr::evaluate(e, scope).real();
    std::int64_t whole = std::isfinite(v) ? std::llround(v) : 0;
    bool fractional = std::isfinite(v) && std::abs(v - static_cast<double>(whole)) > 1e-9 * std::max(1.0, std::abs(v));
    if (!std::isfinite(v) || v < 0 || fractional) {
      std::string text = expr::to_string(e);
      if (text.size() > 200) text = text.substr(0, 200) + " ...";
      throw UserError(fmt::format("the {} {} = {} is not a whole number >= 0", what, text, v), {},
                      "check the parameters bound with --param (a size or count is negative or fractional)");
    }
    return whole;
  }

  // MPI-free work (`it`: the model's item as its twin has it, Shared::scratch):
  // its symbolic costs (computed once per item), evaluated once per distinct
  // binding of the names they need, for every rank. A time
  // loop runs the same work every step: evaluating it afresh each time cost
  // about 1.5 ms per step of wave3d on 2 ranks (2 minutes for 78125 steps);
  // the loop's own counter is rarely among those names.
  void add_work(const Item& given, const Item& it, const expr::Bindings& scope) {
    auto fn = shared_.item_functions.find(&it);
    if (fn == shared_.item_functions.end()) {
      std::string name = fmt::format("{}{}", kScratchPrefix, shared_.item_functions.size());
      shared_.scratch.functions[name] = Function{name, it.line, {}, {it}};
      SymbolicCosts costs = shared_.composer.costs(name);
      std::set<std::string> names = free_names(costs);
      shared_.item_costs[name] = ItemCosts{std::move(costs), std::move(names)};
      fn = shared_.item_functions.emplace(&it, name).first;
    }
    const ItemCosts& costs = shared_.item_costs.at(fn->second);
    std::pair<const Item*, BindingKey> key{&it, {}};
    key.second.reserve(costs.names.size());
    for (const auto& name : costs.names) {
      auto v = scope.find(name);
      if (v == scope.end() || !v->second.is_known())  // no number either way (a NaN would break the order)
        key.second.emplace_back(false, false, 0, 0.0);
      else if (v->second.is_integer())
        key.second.emplace_back(true, true, v->second.integer(), 0.0);
      else
        key.second.emplace_back(true, false, 0, v->second.real());
    }
    auto done = shared_.counted.find(key);
    if (done == shared_.counted.end())
      done = shared_.counted.emplace(std::move(key), counted(costs.costs, given, scope)).first;
    const CountedItem& item = done->second;
    if (item.empty()) return;
    if (pending_.empty()) pending_.site = static_cast<std::uint32_t>(std::max(it.line, 0));
    pending_.flops += item.flops;
    pending_.bytes += item.bytes;
    if (item.work) {
      if (!pending_.runs.empty() && pending_.runs.back().counts == &*item.work)
        ++pending_.runs.back().repeats;
      else
        pending_.runs.push_back({&*item.work, 1});
    }
  }

  // count_work, or its refusal in the model's own names: an item of a model
  // small enough to compose without the job's values (item_walks.h) is
  // composed again as the model gives it (`given`), and fails there alike.
  CountedItem counted(const SymbolicCosts& costs, const Item& given, const expr::Bindings& scope) const {
    try {
      return count_work(costs, scope);
    } catch (const UserError&) {
      if (item_count(shared_.model) > kRecomposableItems) throw;
      ProgramModel as_given = shared_.model;
      const std::string name = std::string(kScratchPrefix) + "given";
      as_given.functions[name] = Function{name, given.line, {}, {given}};
      count_work(symbolic_costs(as_given, name), scope);
      throw;
    }
  }

  CountedItem count_work(const SymbolicCosts& costs, const expr::Bindings& scope) const {
    RankCounts c = evaluate_rank(costs, scope, rank_);
    double math = 0;
    for (const auto& [name, calls] : c.math_calls) {
      bool single = single_precision_math(name);
      std::string base = single ? name.substr(0, name.size() - 1) : name;
      machine::MathCosts defaults;
      const machine::MathCosts& table = options_.math ? *options_.math : defaults;
      math += calls * table.flops(base, single ? machine::Precision::Single : machine::Precision::Double);
    }
    CountedItem item;
    item.flops = c.flops_double + c.flops_single + math;
    item.bytes = c.load_bytes + c.store_bytes;
    // Work that prices at zero whatever the load (no flops, bytes or cycles)
    // is left out of the burst, as its flops and bytes are.
    if (options_.work && (item.flops != 0 || item.bytes != 0 || c.cycles != 0)) {
      // Pricing reads the sites; the MPI calls and totals are not kept.
      c.mpi.clear();
      c.math_calls.clear();
      c.memory.clear();
      item.work = std::move(c);
    }
    return item;
  }

  void flush() {
    if (pending_.empty()) return;
    Event e;
    e.kind = Kind::Compute;
    e.flops = pending_.flops;
    e.bytes_moved = pending_.bytes;
    if (options_.work) {
      // The engine prices the burst when it starts (sim::WorkPricer); equal bursts share one BurstWork.
      auto b = shared_.bursts.find(pending_.runs);
      if (b == shared_.bursts.end()) b = shared_.bursts.insert(BurstWork{pending_.runs}).first;
      e.live = const_cast<BurstWork*>(&*b);
    }
    e.site = pending_.site;
    push(std::move(e));
    pending_.clear();
  }

  void push(Event e) {
    if (budget_ == 0) {
      over_budget_ = true;  // the job's size, not an item's content
      throw UserError(fmt::format("the model gives more than {} events over all ranks", options_.max_events), {},
                      "use fewer time steps or ranks (--param), or raise --max-events");
    }
    --budget_;
    ready_.push_back(std::move(e));
  }

  // A nonblocking call's request, pending until a wait completes it.
  std::uint64_t new_request() {
    pending_requests_.push_back(++last_request_);
    return last_request_;
  }

  std::int32_t peer_of(const MpiItem& m, const expr::Bindings& scope, bool receive) {
    if (!m.peer) return receive ? events::kAnySource : (rank_ + 1) % size_;
    std::int64_t p = expr::evaluate_integer(*m.peer, scope);
    if (p < 0) return events::kProcNull;
    if (p >= size_)
      throw UserError(fmt::format("rank {} addresses rank {}, but the job has {} ranks", rank_, p, size_));
    return static_cast<std::int32_t>(p);
  }

  // An MPI item: the compute burst before it ends, then its calls, one per
  // advance() (an item may stand for many calls).
  void begin_mpi(const MpiItem& m, int line, const expr::Bindings& scope) {
    std::int64_t calls = integer(m.count, scope, "call count");
    if (calls == 0) return;
    double bytes_real = expr::evaluate(m.bytes, scope).real();
    if (!std::isfinite(bytes_real) || bytes_real < 0)
      throw UserError(fmt::format("the message size {} = {} is not a number of bytes >= 0", expr::to_string(m.bytes),
                                  bytes_real),
                      {}, "check the parameters bound with --param");
    flush();
    repeat_ = Repeat{&m, line, at_function_, &scope, calls, static_cast<std::uint64_t>(std::llround(std::max(0.0, bytes_real)))};
  }

  bool in_polling_loop() const {
    return std::any_of(frames_.begin(), frames_.end(), [](const Frame& f) { return f.loop && !f.loop->polls.empty(); });
  }

  void emit_mpi_call(const MpiItem& m, int line, const expr::Bindings& scope, std::uint64_t bytes) {
    using mpi::Op;
    auto n = static_cast<std::uint64_t>(size_);
    Event e;
    e.site = static_cast<std::uint32_t>(std::max(line, 0));
    e.bytes = bytes;
    e.kind = events::kind_of(m.op);
    bool root_rank = m.root && expr::evaluate_integer(*m.root, scope) == rank_;
    if (m.root) e.root = static_cast<std::int32_t>(expr::evaluate_integer(*m.root, scope));
    switch (m.op) {
      case Op::Send:
      case Op::Rsend:
      case Op::Bsend:
      case Op::Ssend: e.peer = peer_of(m, scope, false); break;
      case Op::Isend:
      case Op::Issend:
        e.peer = peer_of(m, scope, false);
        e.request = new_request();
        break;
      case Op::Recv: e.peer = peer_of(m, scope, true); break;
      case Op::Irecv:
        e.peer = peer_of(m, scope, true);
        e.request = new_request();
        break;
      case Op::Sendrecv: {
        e.peer = peer_of(m, scope, false);
        e.root = events::kProcNull;  // no rank sends to this one here
        e.bytes2 = 0;
        auto occurrence = sendrecvs_seen_[e.site]++;
        auto source = shared_.sendrecv_sources.find({rank_, e.site, occurrence});
        if (source != shared_.sendrecv_sources.end()) {
          e.root = source->second.first;
          e.bytes2 = source->second.second;
        }
        break;
      }
      // The model does not say which request completes: the oldest.
      case Op::Wait:
      case Op::Waitany:
      case Op::Waitsome:
        e.kind = Kind::Wait;
        if (!pending_requests_.empty()) {
          e.requests = {pending_requests_.front()};
          pending_requests_.pop_front();
        }
        e.bytes = 0;
        break;
      case Op::Waitall:
        e.requests.assign(pending_requests_.begin(), pending_requests_.end());
        pending_requests_.clear();
        e.bytes = 0;
        break;
      // The pass of a polling loop (LoopItem::polls) that finds the
      // completion: its test completes what a wait would, so the loop's
      // trips are priced as the wait they are. A test elsewhere completes none.
      case Op::Test:
      case Op::Testall:
        e.bytes = 0;
        if (in_polling_loop()) {
          e.kind = m.op == Op::Test ? Kind::Wait : Kind::Waitall;
          if (m.op == Op::Testall) {
            e.requests.assign(pending_requests_.begin(), pending_requests_.end());
            pending_requests_.clear();
          } else if (!pending_requests_.empty()) {
            e.requests = {pending_requests_.front()};
            pending_requests_.pop_front();
          }
        }
        break;
      case Op::Probe:
        e.peer = peer_of(m, scope, true);
        e.bytes = 0;
        break;
      // Calls that move no data (an iprobe is a marker: it completes nothing).
      case Op::Iprobe:
      case Op::Barrier:
      case Op::Init:
      case Op::Finalize: e.bytes = 0; break;
      // Its level, as a trace records it: 1 starts the timed region, 0 ends it;
      // -1 (no region mark) where the model does not know it.
      case Op::Pcontrol:
        e.bytes = 0;
        e.tag = m.level ? static_cast<std::int32_t>(expr::evaluate_integer(*m.level, scope)) : -1;
        break;
      case Op::Bcast:
      case Op::Reduce:
      case Op::Allreduce:
      case Op::Scan:
      case Op::Exscan:
      case Op::ReduceScatter: e.bytes2 = bytes; break;
      // Every rank assumed to contribute as much as this one.
      case Op::Gather:
      case Op::Gatherv:
        e.bytes2 = root_rank ? bytes * n : 0;
        if (m.op == Op::Gatherv && root_rank) e.counts2.assign(n, bytes);
        break;
      case Op::Scatter:
      case Op::Scatterv:
        e.bytes2 = bytes;
        e.bytes = root_rank ? bytes * n : 0;
        if (m.op == Op::Scatterv && root_rank) e.counts.assign(n, bytes);
        break;
      case Op::Allgather:
      case Op::Allgatherv:
        e.bytes2 = bytes * n;
        if (m.op == Op::Allgatherv) e.counts2.assign(n, bytes);
        break;
      // The model's bytes are the send buffer: an equal share to every rank.
      case Op::Alltoall:
      case Op::Alltoallv:
        e.bytes2 = bytes;
        if (m.op == Op::Alltoallv) {
          e.counts.assign(n, bytes / n);
          e.counts2.assign(n, bytes / n);
        }
        break;
      case Op::CartCreate:
      case Op::CommDup:
      case Op::CommSplit:
        e.color = 0;
        e.key = rank_;
        e.new_comm = next_comm_++;
        live_comms_.push_back(e.new_comm);
        e.bytes = 0;
        break;
      case Op::CommFree:
        e.bytes = 0;
        if (live_comms_.empty()) {
          e.kind = Kind::Marker;  // nothing this stream created to free
        } else {
          e.comm = live_comms_.back();
          live_comms_.pop_back();
        }
        break;
    }
    push(std::move(e));
  }

  Shared& shared_;
  const EventOptions& options_;
  int rank_, size_;
  std::uint64_t& budget_;
  bool mpi_only_;

  std::deque<Frame> frames_;
  Repeat repeat_;
  const std::string* at_function_ = nullptr;  // the item being run, for errors
  int at_line_ = 0;
  bool over_budget_ = false;
  std::deque<Event> ready_;  // made, not yet read: one burst and one call at most
  bool ended_ = false;

  PendingBurst pending_;
  std::map<const Item*, double> credit_;
  std::deque<std::uint64_t> pending_requests_;
  std::uint64_t last_request_ = 0;
  std::int32_t next_comm_ = 2;  // 0 world, 1 self
  std::vector<std::int32_t> live_comms_;
  std::map<std::uint32_t, std::uint64_t> sendrecvs_seen_;  // per site
};

class ModelRankSource : public events::RankSource {
 public:
  ModelRankSource(Shared& shared, int rank)
      : evaluator_(shared, rank, bind_rank(shared.model, shared.parameters, rank, shared.np), shared.budget) {}
  bool next(Event& out, double) override { return evaluator_.next(out); }

 private:
  RankEvaluator evaluator_;
};

}  // namespace

ModelJobSource::ModelJobSource(const ProgramModel& model, int np, const std::map<std::string, expr::Value>& parameters,
                               const EventOptions& options) {
  if (np < 1) throw UserError("the number of ranks must be at least 1", {}, "set --np");
  shared_ = std::make_unique<Shared>(model, np, parameters, options);
  shared_->reach.function(model.entry);  // refuses recursion before any walk
  bool sendrecv = false;
  for (const auto& [name, fn] : model.functions) sendrecv = sendrecv || has_sendrecv(fn.body);
  if (!sendrecv) return;
  // The first pass: every rank's MPI calls, the sendrecvs kept by where they go.
  for (int r = 0; r < np; ++r) {
    std::uint64_t budget = options.max_events;
    RankEvaluator calls(*shared_, r, bind_rank(model, shared_->parameters, r, np), budget, true);
    std::map<std::uint32_t, std::uint64_t> seen;
    for (Event e; calls.next(e);) {
      if (e.kind != Kind::Sendrecv) continue;
      std::uint64_t k = seen[e.site]++;
      if (e.peer >= 0) shared_->sendrecv_sources[{e.peer, e.site, k}] = {r, e.bytes};
    }
  }
}

ModelJobSource::~ModelJobSource() = default;

int ModelJobSource::size() const { return shared_->np; }

std::unique_ptr<events::RankSource> ModelJobSource::open_rank(int rank) {
  if (rank < 0 || rank >= shared_->np)
    throw std::out_of_range(fmt::format("rank {} of a {}-rank model job", rank, shared_->np));
  return std::make_unique<ModelRankSource>(*shared_, rank);
}

std::vector<RankEvents> model_events(const ProgramModel& model, int np,
                                     const std::map<std::string, expr::Value>& parameters,
                                     const EventOptions& options) {
  if (options.work) throw std::invalid_argument("model_events: bursts with their work need their ModelJobSource");
  ModelJobSource job(model, np, parameters, options);
  std::vector<RankEvents> out(static_cast<size_t>(np));
  for (int r = 0; r < np; ++r) {
    RankEvents& ranks_events = out[static_cast<size_t>(r)];
    ranks_events.rank = r;
    auto source = job.open_rank(r);
    for (Event e; source->next(e, 0);) {
      if (e.kind != Kind::Compute) ranks_events.mpi_calls += 1;
      ranks_events.events.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace perfcast::model
