#include "modelsim/model_work.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <set>
#include <tuple>

#include "model/item_walks.h"
#include "model/specialise.h"
#include "support/error.h"

namespace perfcast::modelsim {

struct ModelWork::Model {
  model::ProgramModel program;
  // A function composed as predict composes a job's model, with the values
  // every rank binds alike in place (model/specialise.h): its costs and the
  // names they still read. Kept by function and those values.
  struct Composed {
    model::SymbolicCosts costs;
    std::set<std::string> free_names;
  };
  std::vector<Composed> composed;
  std::unordered_map<std::string, int> composed_of;
};

struct ModelWork::Work {
  model::RankCounts counts;
  // Prices kept per node group and load: (group, streaming, time share) -> seconds.
  mutable std::map<std::tuple<const machine::NodeGroup*, int, double>, double> seconds;
};

struct ModelWork::Burst {
  Items items;
};

ModelWork::ModelWork(model::PredictOptions options) : options_(std::move(options)) {}
ModelWork::~ModelWork() = default;

int ModelWork::load(const std::string& path) {
  if (auto it = model_of_path_.find(path); it != model_of_path_.end()) return it->second;
  auto m = std::make_unique<Model>();
  m->program = model::load_program_model(path);
  models_.push_back(std::move(m));
  const int index = static_cast<int>(models_.size()) - 1;
  model_of_path_.emplace(path, index);
  return index;
}

namespace {

// A key's bytes for a double: exact, and cheap to append.
void append_double(std::string& key, double v) {
  char bytes[sizeof v];
  std::memcpy(bytes, &v, sizeof v);
  key.append(bytes, sizeof v);
}

// A key's bytes for a bound value: its kind and its number, exact.
void append_value(std::string& key, const expr::Value& v) {
  key.push_back(!v.is_known() ? '?' : v.is_integer() ? 'i' : 'r');
  if (!v.is_known()) return;
  if (v.is_integer()) {
    const std::int64_t i = v.integer();
    key.append(reinterpret_cast<const char*>(&i), sizeof i);
  } else {
    append_double(key, v.real());
  }
}

expr::Value value_of(double v) {
  // An integral value binds as an integer: the model's integer parameters
  // (grid sizes, process counts) take only those.
  if (std::floor(v) == v && std::fabs(v) < 9007199254740992.0) return static_cast<std::int64_t>(v);
  return v;
}

}  // namespace

int ModelWork::work(int model_index, std::string_view function, const std::vector<Parameter>& parameters, int rank,
                    int size) {
  // A skeleton's step loop calls this every step: the key's buffer is reused,
  // so a call already seen costs one hash lookup and no allocation.
  thread_local std::string call_key;
  call_key.clear();
  call_key.append(reinterpret_cast<const char*>(&model_index), sizeof model_index);
  call_key.append(function);
  call_key.push_back('\0');
  call_key.append(reinterpret_cast<const char*>(&rank), sizeof rank);
  call_key.append(reinterpret_cast<const char*>(&size), sizeof size);
  for (const auto& [name, value] : parameters) {
    call_key.append(name);
    call_key.push_back('=');
    append_double(call_key, value);
  }
  if (auto it = work_of_call_.find(call_key); it != work_of_call_.end()) return it->second;

  if (model_index < 0 || model_index >= static_cast<int>(models_.size()))
    throw UserError(fmt::format("{} is not a model loaded here", model_index));
  Model& m = *models_[static_cast<std::size_t>(model_index)];
  const std::string name = function.empty() ? m.program.entry : std::string(function);
  if (!m.program.functions.count(name)) {
    std::string known;
    for (const auto& [f, body] : m.program.functions) known += (known.empty() ? "" : ", ") + f;
    throw UserError(fmt::format("the model has no function '{}' (it has: {})", name, known),
                    {m.program.file, std::nullopt, "/functions"}, "name a function of the model's \"functions\"");
  }
  std::map<std::string, expr::Value> bound;
  for (const auto& [pname, value] : parameters) {
    if (!std::isfinite(value))
      throw UserError(fmt::format("parameter '{}' = {} is not a finite number", pname, value),
                      {m.program.file, std::nullopt, "/parameters/" + std::string(pname)});
    bound[std::string(pname)] = value_of(value);
  }
  const expr::Bindings bindings = model::bind_rank(m.program, bound, rank, size);

  // Composed with the call's shared values in place: a large model's counts
  // stay numbers, where composing every name symbolically grows without end.
  const expr::Bindings fixed = model::rank_independent_bindings(m.program, bound, size);
  std::string composed_key = name;
  composed_key.push_back('\0');
  for (const auto& [n, v] : fixed) {
    composed_key.append(n);
    append_value(composed_key, v);
  }
  auto [composed_at, fresh] = m.composed_of.try_emplace(std::move(composed_key), static_cast<int>(m.composed.size()));
  if (fresh) {
    try {
      Model::Composed c;
      c.costs = model::symbolic_costs(model::specialised(m.program, fixed), name);
      c.free_names = model::free_names(c.costs);
      m.composed.push_back(std::move(c));
    } catch (...) {
      m.composed_of.erase(composed_at);
      throw;
    }
  }
  const int composed_index = composed_at->second;
  const Model::Composed& composed = m.composed[static_cast<std::size_t>(composed_index)];

  // Ranks whose bindings agree on every name the costs read have the same counts.
  std::string counts_key;
  counts_key.append(reinterpret_cast<const char*>(&model_index), sizeof model_index);
  counts_key.append(reinterpret_cast<const char*>(&composed_index), sizeof composed_index);
  for (const std::string& n : composed.free_names) {
    auto b = bindings.find(n);
    counts_key.append(n);
    append_value(counts_key, b != bindings.end() ? b->second : expr::Value::unknown());
  }
  int id;
  if (auto it = work_of_counts_.find(counts_key); it != work_of_counts_.end()) {
    id = it->second;
  } else {
    auto w = std::make_unique<Work>();
    try {
      w->counts = model::evaluate_rank(composed.costs, bindings, rank);
    } catch (const UserError&) {
      // The refusal in the model's own names, where it is small enough to
      // compose without the call's values (the same counts fail there).
      if (model::item_count(m.program) > model::kRecomposableItems) throw;
      model::evaluate_rank(model::symbolic_costs(m.program, name), bindings, rank);
      throw;
    }
    works_.push_back(std::move(w));
    id = static_cast<int>(works_.size()) - 1;
    work_of_counts_.emplace(std::move(counts_key), id);
  }
  work_of_call_.emplace(call_key, id);
  return id;
}

const void* ModelWork::burst(const Items& items) {
  auto it = bursts_.find(items);
  if (it == bursts_.end()) it = bursts_.emplace(items, std::make_unique<Burst>(Burst{items})).first;
  return it->second.get();
}

const model::RankCounts& ModelWork::counts(int work) const { return works_.at(static_cast<std::size_t>(work))->counts; }

double ModelWork::item_s(const Work& work, const machine::NodeGroup& group, const machine::NodeLoad& load) const {
  const auto key = std::make_tuple(&group, load.streaming, load.time_share);
  if (auto it = work.seconds.find(key); it != work.seconds.end()) return it->second;
  double seconds = 0;
  for (const auto& site : model::price_sites(work.counts, group, load, options_)) seconds += site.refined_s;
  work.seconds.emplace(key, seconds);
  return seconds;
}

double ModelWork::work_s(const void* burst, int world_rank, std::uint64_t /*number*/, const machine::Pricing& pricing,
                         int computing) const {
  const auto& b = *static_cast<const Burst*>(burst);
  const int node = pricing.node(world_rank);
  const machine::NodeGroup& group = pricing.machine().group_of_node(node);
  const machine::NodeLoad load = machine::Pricing::node_load(group, computing, pricing.ranks_on_node(node));
  double seconds = 0;
  for (const auto& [work, multiplier] : b.items)
    seconds += multiplier * item_s(*works_[static_cast<std::size_t>(work)], group, load);
  return seconds;
}

}  // namespace perfcast::modelsim
