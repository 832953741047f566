#include "counts/counts.h"

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <set>
#include <unordered_map>

#include "support/error.h"

namespace perfcast::counts {

int64_t FunctionCounts::flops_single() const {
  int64_t s = 0;
  for (auto v : flops[0]) s += v;
  return s;
}

int64_t FunctionCounts::flops_double() const {
  int64_t s = 0;
  for (auto v : flops[1]) s += v;
  return s;
}

int64_t FunctionCounts::math_calls_total() const {
  int64_t s = 0;
  for (const auto& [name, n] : math_calls) s += n;
  return s;
}

FunctionCounts& FunctionCounts::operator-=(const FunctionCounts& o) {
  calls -= o.calls;
  instructions -= o.instructions;
  for (size_t p = 0; p < flops.size(); ++p)
    for (size_t w = 0; w < flops[p].size(); ++w) flops[p][w] -= o.flops[p][w];
  flops_x87 -= o.flops_x87;
  fma_instructions -= o.fma_instructions;
  loads -= o.loads;
  stores -= o.stores;
  load_bytes -= o.load_bytes;
  store_bytes -= o.store_bytes;
  callgrind_dr -= o.callgrind_dr;
  callgrind_dw -= o.callgrind_dw;
  for (const auto& [name, n] : o.math_calls) {
    math_calls[name] -= n;
    if (math_calls[name] == 0) math_calls.erase(name);
  }
  unclassified_instructions -= o.unclassified_instructions;
  unknown_size_accesses -= o.unknown_size_accesses;
  masked_vector_instructions -= o.masked_vector_instructions;
  skipped_stub_instructions -= o.skipped_stub_instructions;
  return *this;
}

const FunctionCounts* ProfileCounts::find(const std::string& name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

const ObjectCode* CodeCache::get(const std::string& path) {
  auto it = code_.find(path);
  if (it != code_.end()) return it->second.get();
  std::unique_ptr<ObjectCode> code;
  if (path != "???" && !path.empty()) {
    try {
      code = std::make_unique<ObjectCode>(loader_ ? loader_(path) : disassemble(path));
    } catch (const UserError&) {
      code.reset();  // counted as unclassified instructions, and the mapping says so
    }
  }
  return code_.emplace(path, std::move(code)).first->second.get();
}

const std::map<uint64_t, std::vector<std::string>>& CodeCache::frames(const std::string& path,
                                                                      const std::vector<uint64_t>& addresses) {
  auto& known = frames_[path];
  std::vector<uint64_t> missing;
  for (auto a : addresses)
    if (!known.count(a)) missing.push_back(a);
  if (!missing.empty()) {
    auto found = inline_frames(path, missing);
    for (auto a : missing) known[a] = found.count(a) ? found[a] : std::vector<std::string>{};
  }
  return known;
}

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void add_instruction(FunctionCounts& f, const InstructionCost& cost, const InstructionClass* cls) {
  auto n = static_cast<int64_t>(cost.executions);
  f.instructions += n;
  f.callgrind_dr += static_cast<int64_t>(cost.data_reads);
  f.callgrind_dw += static_cast<int64_t>(cost.data_writes);
  if (!cls || !cls->parsed) {
    f.unclassified_instructions += n;
    return;
  }
  if (cls->precision == Precision::X87) {
    f.flops_x87 += n * cls->flops;
  } else if (cls->precision != Precision::None) {
    int p = cls->precision == Precision::Single ? 0 : 1;
    f.flops[p][static_cast<int>(cls->width)] += n * cls->flops;
    if (cls->fma) f.fma_instructions += n;
    if (cls->masked) f.masked_vector_instructions += n;
  }
  f.loads += n * cls->loads;
  f.stores += n * cls->stores;
  f.load_bytes += n * cls->load_bytes;
  f.store_bytes += n * cls->store_bytes;
  if (cls->unknown_size) f.unknown_size_accesses += n;
}

// The bias that puts every executed address on an instruction boundary.
ObjectMapping map_object(const std::string& object, const std::vector<const ProfiledFunction*>& functions,
                         const ObjectCode* code) {
  ObjectMapping mapping{object, 0, code != nullptr, 0};
  std::vector<uint64_t> addresses;
  for (const auto* f : functions) {
    for (const auto& [a, cost] : f->instructions) addresses.push_back(a);
  }
  if (!code) {
    mapping.unmatched_addresses = static_cast<int64_t>(addresses.size());
    return mapping;
  }
  auto misses = [&](uint64_t bias) {
    int64_t n = 0;
    for (auto a : addresses)
      if (!code->instructions.count(a - bias)) ++n;
    return n;
  };
  int64_t best = misses(0);
  if (best == 0) return mapping;
  std::set<uint64_t> candidates;
  for (const auto* f : functions) {
    auto symbol = code->symbols.find(f->name);
    if (symbol == code->symbols.end() || f->instructions.empty()) continue;
    uint64_t first = f->instructions.begin()->first;
    if (first >= symbol->second) candidates.insert(first - symbol->second);
    if (candidates.size() >= 16) break;
  }
  for (auto bias : candidates) {
    int64_t m = misses(bias);
    if (m < best) {
      best = m;
      mapping.bias = static_cast<int64_t>(bias);
    }
  }
  mapping.unmatched_addresses = best;
  return mapping;
}

class Aggregator {
 public:
  FunctionCounts& row(const std::string& object, const std::string& name, bool from_symbol) {
    auto key = object + '\0' + name;
    auto it = index_.find(key);
    if (it == index_.end()) {
      rows_.push_back({});
      rows_.back().object = object;
      rows_.back().name = name;
      rows_.back().inlined_only = !from_symbol;
      it = index_.emplace(key, rows_.size() - 1).first;
    }
    auto& r = rows_[it->second];
    if (from_symbol) r.inlined_only = false;
    return r;
  }
  std::vector<FunctionCounts> take() {
    return {std::make_move_iterator(rows_.begin()), std::make_move_iterator(rows_.end())};
  }

 private:
  std::deque<FunctionCounts> rows_;  // rows are referred to while new ones are added
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace

std::string math_function(const std::string& symbol) {
  static const std::set<std::string> names = {
      "sin",    "cos",       "tan",  "asin",  "acos",  "atan",  "atan2",  "sinh",    "cosh",  "tanh",      "asinh",
      "acosh",  "atanh",     "exp",  "exp2",  "exp10", "expm1", "log",    "log2",    "log10", "log1p",     "logb",
      "pow",    "sqrt",      "cbrt", "hypot", "erf",   "erfc",  "lgamma", "tgamma",  "fmod",  "remainder", "sincos",
      "ldexp",  "frexp",     "modf", "floor", "ceil",  "round", "lround", "llround", "trunc", "rint",      "lrint",
      "llrint", "nearbyint", "fma",  "j0",    "j1",    "y0",    "y1"};
  std::string s = symbol.substr(0, symbol.find('@'));
  while (!s.empty() && s.front() == '_') s.erase(0, 1);
  for (const char* prefix : {"ieee754_", "libm_"})
    if (s.rfind(prefix, 0) == 0) s.erase(0, std::string(prefix).size());
  // glibc's ifunc variants and wrappers: __sin_fma, __exp1_avx2, __log_finite...
  for (const char* suffix : {"_finite", "_fma4", "_fma", "_avx2", "_avx", "_sse41", "_sse2", "_sse4_1", "_evex"})
    if (ends_with(s, suffix)) s.erase(s.size() - std::string(suffix).size());
  if (names.count(s)) return s;
  if (s.size() > 1 && (s.back() == 'f' || s.back() == 'l') && names.count(s.substr(0, s.size() - 1))) return s;
  return {};
}

ProfileCounts count(const CallgrindProfile& profile, CodeCache& cache, const CountOptions& options) {
  ProfileCounts out;
  out.profile = profile.source;
  out.command = profile.command;
  out.total.name = "(total)";

  std::map<std::string, std::vector<const ProfiledFunction*>> by_object;
  for (const auto& f : profile.functions) by_object[f.object].push_back(&f);

  Aggregator rows;
  for (const auto& [object, functions] : by_object) {
    const ObjectCode* code = cache.get(object);
    ObjectMapping mapping = map_object(object, functions, code);
    out.objects.push_back(mapping);
    auto bias = static_cast<uint64_t>(mapping.bias);

    const std::map<uint64_t, std::vector<std::string>>* frames = nullptr;
    if (options.inlining && code && code->has_debug_info) {
      std::vector<uint64_t> addresses;
      for (const auto* f : functions) {
        for (const auto& [a, cost] : f->instructions) addresses.push_back(a - bias);
        for (const auto& call : f->calls) addresses.push_back(call.call_site - bias);
      }
      std::sort(addresses.begin(), addresses.end());
      addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
      frames = &cache.frames(object, addresses);
    }
    // The rows an address counts for: its function, and the functions inlined there.
    auto targets = [&](const ProfiledFunction& f, uint64_t address) {
      std::vector<FunctionCounts*> list{&rows.row(object, f.name, true)};
      if (frames) {
        auto it = frames->find(address);
        if (it != frames->end())
          for (const auto& name : it->second)
            if (name != f.name) list.push_back(&rows.row(object, name, false));
      }
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
      return list;
    };

    for (const auto* f : functions) {
      if (f->name == "main" && out.main_object.empty()) out.main_object = object;
      rows.row(object, f->name, true);
      std::map<uint64_t, uint64_t> calls_at;
      for (const auto& call : f->calls) calls_at[call.call_site] += call.count;
      for (const auto& [address, callgrind_cost] : f->instructions) {
        const InstructionClass* cls = nullptr;
        if (code) {
          auto it = code->instructions.find(address - bias);
          if (it != code->instructions.end()) cls = &it->second;
        }
        // With --skip-plt=yes (callgrind's default) the cost of the PLT stub a
        // call goes through is written at the call instruction's address. The
        // call itself executed as often as its call records say; the rest is
        // the stub's, which belongs to no function of the program.
        InstructionCost cost = callgrind_cost;
        int64_t skipped = 0;
        if (cls && cls->is_call) {
          auto it = calls_at.find(address);
          if (it != calls_at.end() && it->second < cost.executions) {
            skipped = static_cast<int64_t>(cost.executions - it->second);
            cost.executions = it->second;
          }
        }
        for (auto* row : targets(*f, address - bias)) {
          add_instruction(*row, cost, cls);
          row->skipped_stub_instructions += skipped;
        }
        add_instruction(out.total, cost, cls);
        out.total.skipped_stub_instructions += skipped;
      }
    }
  }

  // Calls: counted at the callee, and, for math functions, at the caller (the
  // call site's function and the functions inlined there). A math function
  // calling another (acos -> __ieee754_acos_fma) is one call from the program.
  for (const auto& f : profile.functions) {
    // The dynamic linker calls libm's ifunc resolvers, which carry the math
    // functions' names (sin, expf...): those are no calls of the program.
    bool dynamic_linker = std::filesystem::path(f.object).filename().string().rfind("ld-linux", 0) == 0;
    bool caller_is_math = dynamic_linker || !math_function(f.name).empty();
    for (const auto& call : f.calls) {
      const auto& callee = profile.functions[call.callee];
      rows.row(callee.object, callee.name, true).calls += static_cast<int64_t>(call.count);
      std::string math = math_function(callee.name);
      if (math.empty() || caller_is_math) continue;
      out.total.math_calls[math] += static_cast<int64_t>(call.count);
      rows.row(f.object, f.name, true).math_calls[math] += static_cast<int64_t>(call.count);
      if (!options.inlining) continue;
      const ObjectCode* code = cache.get(f.object);
      if (!code || !code->has_debug_info) continue;
      int64_t bias = 0;
      for (const auto& m : out.objects)
        if (m.object == f.object) bias = m.bias;
      uint64_t site = call.call_site - static_cast<uint64_t>(bias);
      const auto& frames = cache.frames(f.object, {site});
      auto it = frames.find(site);
      if (it == frames.end()) continue;
      for (const auto& name : std::set<std::string>(it->second.begin(), it->second.end()))
        if (name != f.name) rows.row(f.object, name, false).math_calls[math] += static_cast<int64_t>(call.count);
    }
  }
  out.functions = rows.take();
  std::stable_sort(out.functions.begin(), out.functions.end(),
                   [](const auto& a, const auto& b) { return a.instructions > b.instructions; });
  return out;
}

ProfileCounts subtract(const ProfileCounts& a, const ProfileCounts& b) {
  ProfileCounts out = a;
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < out.functions.size(); ++i) index[out.functions[i].object + '\0' + out.functions[i].name] = i;
  for (const auto& f : b.functions) {
    auto it = index.find(f.object + '\0' + f.name);
    if (it == index.end()) {
      FunctionCounts negated;
      negated.object = f.object;
      negated.name = f.name;
      negated.inlined_only = f.inlined_only;
      negated -= f;
      out.functions.push_back(negated);
    } else {
      out.functions[it->second] -= f;
    }
  }
  out.total -= b.total;
  std::stable_sort(out.functions.begin(), out.functions.end(),
                   [](const auto& x, const auto& y) { return x.instructions > y.instructions; });
  return out;
}

bool is_polling_call(const std::string& function) {
  std::string name;
  for (char c : function) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!name.empty() && name.back() == '_') name.pop_back();
  if (name.rfind("pmpi_", 0) == 0) name.erase(0, 1);
  static const std::set<std::string> polling = {"mpi_test",   "mpi_testall", "mpi_testany",
                                                "mpi_testsome", "mpi_iprobe", "mpi_improbe"};
  return polling.count(name) > 0;
}

nlohmann::json to_json(const FunctionCounts& f) {
  nlohmann::json by_width = nlohmann::json::object();
  const char* precision[2] = {"single", "double"};
  for (int p = 0; p < 2; ++p)
    for (int w = 0; w < vector_width_count; ++w)
      by_width[precision[p]][vector_width_name(static_cast<VectorWidth>(w))] = f.flops[p][w];
  nlohmann::json j = {
      {"function", f.name},
      {"object", f.object},
      {"inlined_only", f.inlined_only},
      {"calls", f.calls},
      {"instructions", f.instructions},
      {"flops", f.flops_total()},
      {"flops_double", f.flops_double()},
      {"flops_single", f.flops_single()},
      {"flops_double_scalar", f.flops_double_scalar()},
      {"flops_double_simd", f.flops_double_simd()},
      {"flops_single_scalar", f.flops_single_scalar()},
      {"flops_single_simd", f.flops_single_simd()},
      {"flops_x87", f.flops_x87},
      {"flops_by_width", by_width},
      {"fma_instructions", f.fma_instructions},
      {"loads", f.loads},
      {"stores", f.stores},
      {"load_bytes", f.load_bytes},
      {"store_bytes", f.store_bytes},
      {"callgrind_dr", f.callgrind_dr},
      {"callgrind_dw", f.callgrind_dw},
      {"math_calls", f.math_calls},
      {"unclassified_instructions", f.unclassified_instructions},
      {"unknown_size_accesses", f.unknown_size_accesses},
      {"masked_vector_instructions", f.masked_vector_instructions},
      {"skipped_stub_instructions", f.skipped_stub_instructions},
  };
  if (is_polling_call(f.name)) j["timing_dependent"] = true;
  return j;
}

nlohmann::json to_json(const ProfileCounts& counts) {
  nlohmann::json functions = nlohmann::json::array();
  for (const auto& f : counts.functions) functions.push_back(to_json(f));
  nlohmann::json objects = nlohmann::json::array();
  for (const auto& m : counts.objects)
    objects.push_back({{"object", m.object},
                       {"bias", m.bias},
                       {"disassembled", m.disassembled},
                       {"unmatched_addresses", m.unmatched_addresses}});
  return {{"rank", counts.rank},
          {"profile", counts.profile},
          {"command", counts.command},
          {"main_object", counts.main_object},
          {"total", to_json(counts.total)},
          {"functions", functions},
          {"objects", objects}};
}

}  // namespace perfcast::counts
