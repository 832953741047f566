// Writing a program model as JSON; model_load.cpp reads it.
#include "model/model_write.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>

#include "support/error.h"

namespace perfcast::model {

namespace {

using json = nlohmann::ordered_json;

std::string text(const Expr& e) { return expr::to_string(e); }

// Cycles: a number when the expression is a constant, else its text.
json cycles(const Expr& e) {
  if (e.kind() == expr::Kind::Integer) return e.int_value();
  if (e.kind() == expr::Kind::Real) return e.real_value();
  return text(e);
}

json items_json(const Items& items) {
  json a = json::array();
  for (const Item& it : items) a.push_back(item_json(it));
  return a;
}

void put_compute(json& j, const ComputeItem& c) {
  auto put = [&](const char* key, const Expr& e) {
    if (!(e == Expr(0))) j[key] = text(e);
  };
  put("flops_double", c.flops_double);
  put("flops_single", c.flops_single);
  put("loads", c.loads);
  put("stores", c.stores);
  put("load_bytes", c.load_bytes);
  put("store_bytes", c.store_bytes);
  if (!c.math_calls.empty()) {
    json m = json::object();
    for (const auto& [name, calls] : c.math_calls) m[name] = text(calls);
    j["math"] = m;
  }
}

void put_loop(json& j, const LoopItem& l) {
  j["var"] = l.var;
  if (l.levels) j["levels"] = true;
  j["trip_count"] = text(l.trip_count);
  if (!l.polls.empty()) j["polls"] = l.polls;
  if (l.working_set_bytes) j["working_set_bytes"] = text(*l.working_set_bytes);
  if (l.cycles_per_iteration) j["cycles_per_iteration"] = cycles(*l.cycles_per_iteration);
  if (l.overhead_cycles_per_iteration) j["overhead_cycles_per_iteration"] = cycles(*l.overhead_cycles_per_iteration);
  if (l.mca) {
    const LoopItem::McaFigures& f = *l.mca;
    json m = {{"cpi", f.cpi}, {"rthroughput", f.rthroughput}, {"uops", f.uops}};
    if (f.chain_restarts) m["chain_restarts"] = *f.chain_restarts;
    m["busiest_resource"] = f.busiest_resource;
    m["busiest_resource_cycles"] = f.busiest_resource_cycles;
    if (f.divides) {
      m["divides"] = f.divides;
      m["rthroughput_without_divides"] = f.rthroughput_without_divides;
    }
    j["mca"] = std::move(m);
  }
  if (l.ports_cycles_per_iteration) j["ports_cycles_per_iteration"] = *l.ports_cycles_per_iteration;
  if (l.streams) j["streams"] = *l.streams;
  if (!l.stream_offsets.empty()) {
    json bases = json::array();
    for (const auto& offsets : l.stream_offsets) {
      json list = json::array();
      for (const Expr& e : offsets) list.push_back(text(e));
      bases.push_back(std::move(list));
    }
    j["stream_offsets"] = std::move(bases);
  }
  if (l.footprint)
    j["footprint"] = {{"bytes", text(l.footprint->bytes)},
                      {"load_bytes", text(l.footprint->load_bytes)},
                      {"store_bytes", text(l.footprint->store_bytes)}};
  j["body"] = items_json(l.body);
}

void put_branch(json& j, const BranchItem& b) {
  if (b.condition)
    j["condition"] = text(*b.condition);
  else if (b.share)
    j["share"] = text(*b.share);
  else
    j["probability"] = b.probability;
  j["then"] = items_json(b.then_items);
  j["else"] = items_json(b.else_items);
  if (b.then_line) j["then_line"] = b.then_line;
  if (b.else_line) j["else_line"] = b.else_line;
}

void put_call(json& j, const CallItem& c) {
  if (c.indirect) {
    j["indirect"] = true;
    j["site"] = c.site;
  }
  if (!c.function.empty() || !c.indirect) j["function"] = c.function;
  if (!c.positional_args.empty()) {
    json a = json::array();
    for (const auto& e : c.positional_args) a.push_back(e ? json(text(*e)) : json());
    j["arguments"] = a;
  }
  json a = json::object();
  for (const auto& [param, value] : c.args) a[param] = text(value);
  j["args"] = a;
}

void put_mpi(json& j, const MpiItem& m) {
  j["op"] = std::string(mpi::name(m.op));
  if (!(m.bytes == Expr(0))) j["bytes"] = text(m.bytes);
  if (m.peer) j["peer"] = text(*m.peer);
  if (m.root) j["root"] = text(*m.root);
  if (m.level) j["level"] = text(*m.level);
  if (!(m.count == Expr(1))) j["count"] = text(m.count);
}

json mca_json(const std::string& cpu, const McaRecord& r) {
  json m = json::object();
  if (!cpu.empty()) m["cpu"] = cpu;
  if (r.cpu_chosen) m["cpu_chosen"] = *r.cpu_chosen;
  if (r.code_for) m["code_for"] = *r.code_for;
  if (r.loops_priced) m["loops_priced"] = *r.loops_priced;
  if (r.loops_unpriced) m["loops_unpriced"] = *r.loops_unpriced;
  if (r.outer_loops_priced) m["outer_loops_priced"] = *r.outer_loops_priced;
  if (r.outer_loops_unpriced) m["outer_loops_unpriced"] = *r.outer_loops_unpriced;
  if (r.window_uops) m["window_uops"] = *r.window_uops;
  if (r.host_cycles) m["host_cycles"] = {{"source", r.host_cycles->source}, {"applied", r.host_cycles->applied}};
  if (r.note) m["note"] = *r.note;
  return m;
}

}  // namespace

json item_json(const Item& item) {
  static const char* kinds[] = {"compute", "loop", "branch", "call", "mpi"};
  json j;
  j["kind"] = kinds[item.body.index()];
  if (item.line) j["line"] = item.line;
  if (!item.note.empty()) j["note"] = item.note;
  if (const auto* c = std::get_if<ComputeItem>(&item.body))
    put_compute(j, *c);
  else if (const auto* l = std::get_if<LoopItem>(&item.body))
    put_loop(j, *l);
  else if (const auto* b = std::get_if<BranchItem>(&item.body))
    put_branch(j, *b);
  else if (const auto* call = std::get_if<CallItem>(&item.body))
    put_call(j, *call);
  else if (const auto* m = std::get_if<MpiItem>(&item.body))
    put_mpi(j, *m);
  return j;
}

json coverage_json(const Coverage& c) {
  json j;
  j["functions_defined"] = c.functions_defined;
  j["functions_reachable"] = c.functions_reachable;
  j["instructions"] = c.instructions;
  j["instructions_priced"] = c.instructions_priced;
  j["priced_share"] = std::round(c.priced_share() * 1e4) / 1e4;  // for the reader; the loader recomputes it
  json calls = json::array();
  for (const auto& k : c.unresolved_calls) {
    json one = {{"kind", k.kind}};
    if (!k.callee.empty()) one["callee"] = k.callee;
    one["caller"] = k.caller;
    one["site"] = k.site;
    if (!k.probe_targets.empty()) {
      json targets = json::object();
      for (const auto& [name, per_execution] : k.probe_targets) targets[name] = per_execution;
      one["probe_targets"] = targets;
    }
    if (k.probe_not_reached) one["probe_not_reached"] = true;
    calls.push_back(std::move(one));
  }
  j["unresolved_calls"] = std::move(calls);
  if (!c.candidate_instructions_priced.empty()) {
    json candidates = json::object();
    for (const auto& [name, n] : c.candidate_instructions_priced) candidates[name] = n;
    j["candidate_instructions_priced"] = std::move(candidates);
  }
  json branches = json::array();
  for (const auto& b : c.guessed_branches) {
    json one = {{"function", b.function}, {"site", b.site}, {"probability", b.probability}, {"why", b.why}};
    if (b.probe_probability) one["probe_probability"] = *b.probe_probability;
    if (b.probe_not_reached) one["probe_not_reached"] = true;
    branches.push_back(std::move(one));
  }
  j["guessed_branches"] = std::move(branches);
  json loops = json::array();
  for (const auto& l : c.unknown_loops) {
    json one = {{"function", l.function}, {"site", l.site}, {"trip_count", l.trip_count}, {"why", l.why}};
    if (l.probe_trips) one["probe_trips"] = *l.probe_trips;
    if (l.probe_not_reached) one["probe_not_reached"] = true;
    if (l.recursion) one["recursion"] = true;
    if (!l.virtual_call.empty()) one["virtual_call"] = l.virtual_call;
    if (!l.instance.empty()) one["instance"] = l.instance;
    if (!l.merged_site.empty()) one["merged_site"] = l.merged_site;
    if (!l.called_back_at.empty()) one["called_back_at"] = l.called_back_at;
    loops.push_back(std::move(one));
  }
  j["unknown_loops"] = std::move(loops);
  if (!c.polling_loops.empty()) {
    json polling = json::array();
    for (const auto& l : c.polling_loops)
      polling.push_back({{"function", l.function}, {"site", l.site}, {"loop", l.loop}, {"call", l.call}});
    j["polling_loops"] = std::move(polling);
  }
  if (!c.probe_run.empty()) j["probe_run"] = c.probe_run;
  return j;
}

std::string coverage_summary(const Coverage& c) {
  return fmt::format(
      "coverage: {} of {} functions reachable, {:.1f} % of their IR instructions priced; {} unresolved calls, "
      "{} guessed branches, {} loops of unknown trip count{}{}",
      c.functions_reachable, c.functions_defined, 100.0 * c.priced_share(), c.unresolved_calls.size(),
      c.guessed_branches.size(), c.unknown_loops.size(),
      c.polling_loops.empty()
          ? ""
          : fmt::format(", {} polling loops priced at one pass (their trips are timing, their MPI calls lower bounds)",
                        c.polling_loops.size()),
      c.guesses() || !c.polling_loops.empty() ? " (perfcast model show lists them)" : "");
}

json program_model_json(const ProgramModel& model) {
  json doc;
  doc["format"] = "perfcast-program-model";
  doc["version"] = 1;
  doc["program"] = model.program;
  doc["source"] = model.source;
  doc["origin"] = model.origin;
  if (!model.mca_cpu.empty() || !model.mca.empty()) doc["mca"] = mca_json(model.mca_cpu, model.mca);
  json params = json::object();
  for (const Parameter& p : model.parameters) {
    json one;
    one["description"] = p.description;
    if (p.default_value) one["default"] = text(*p.default_value);
    if (p.integer) one["integer"] = true;
    if (!p.origin.empty()) one["origin"] = p.origin;
    params[p.name] = one;
  }
  doc["parameters"] = params;
  if (!model.lets.empty()) {
    json lets = json::array();
    for (const auto& [name, value] : model.lets) lets.push_back({name, text(value)});
    doc["let"] = lets;
  }
  doc["entry"] = model.entry;
  json functions = json::object();
  for (const auto& [name, f] : model.functions) {
    json one;
    if (f.line) one["line"] = f.line;
    if (!f.file.empty()) one["file"] = f.file;
    if (!f.parameters.empty()) one["parameters"] = f.parameters;
    if (!f.arguments.empty()) one["arguments"] = f.arguments;
    one["body"] = items_json(f.body);
    functions[name] = one;
  }
  doc["functions"] = functions;
  if (model.coverage) doc["coverage"] = coverage_json(*model.coverage);
  return doc;
}

void write_program_model(const ProgramModel& model, const std::filesystem::path& file) {
  std::ofstream out(file);
  if (!out || !(out << program_model_json(model).dump(2) << "\n"))
    throw UserError(fmt::format("cannot write program model '{}'", file.string()));
}

}  // namespace perfcast::model
