// Reading a program model from JSON, with errors that point into the file.
#include <cstdint>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/program_model.h"
#include "support/error.h"

namespace perfcast::model {

namespace {

using nlohmann::json;

// Walks the document keeping the JSON path, so every error can say where.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw UserError(message, {file_, std::nullopt, path.empty() ? "/" : path});
  }

  const json& member(const json& object, const std::string& path, const char* key) const {
    if (!object.contains(key)) fail(path, fmt::format("missing key '{}'", key));
    return object.at(key);
  }

  std::string string_at(const json& value, const std::string& path) const {
    if (!value.is_string()) fail(path, fmt::format("expected a string, found {}", value.type_name()));
    return value.get<std::string>();
  }

  // Expressions may be written as JSON numbers or as strings.
  Expr expr_at(const json& value, const std::string& path) const {
    if (value.is_number_integer()) return expr::integer(value.get<std::int64_t>());
    if (value.is_number()) return expr::real(value.get<double>());
    if (!value.is_string())
      fail(path, fmt::format("expected an expression (a string such as \"nx * ny\" or a number), found {}",
                             value.type_name()));
    try {
      return expr::parse(value.get<std::string>());
    } catch (const UserError& e) {
      fail(path, e.what());
    }
  }

  std::optional<Expr> optional_expr(const json& object, const std::string& path, const char* key) const {
    if (!object.contains(key)) return std::nullopt;
    return expr_at(object.at(key), path + "/" + key);
  }

  Expr expr_or_zero(const json& object, const std::string& path, const char* key) const {
    return optional_expr(object, path, key).value_or(Expr(0));
  }

  void only_keys(const json& object, const std::string& path, std::initializer_list<const char*> allowed) const {
    for (auto it = object.begin(); it != object.end(); ++it) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || it.key() == a;
      if (!ok) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        fail(path + "/" + it.key(), fmt::format("unknown key '{}'; expected one of: {}", it.key(), list));
      }
    }
  }

  double number_at(const json& value, const std::string& path) const {
    if (!value.is_number()) fail(path, fmt::format("expected a number, found {}", value.type_name()));
    return value.get<double>();
  }

  int count_at(const json& value, const std::string& path) const {
    if (!value.is_number_integer() || value.get<long long>() < 0 || value.get<long long>() > 1000000000)
      fail(path, "expected a whole number >= 0");
    return static_cast<int>(value.get<long long>());
  }

  // A loop's "mca": MCA's own figures, for the reader; absent ones are 0.
  LoopItem::McaFigures mca_figures(const json& m, const std::string& path) const {
    if (!m.is_object()) fail(path, "expected an object: {\"cpi\": ..., \"rthroughput\": ..., ...}");
    only_keys(m, path, {"cpi", "rthroughput", "uops", "chain_restarts", "busiest_resource", "busiest_resource_cycles",
                        "divides", "rthroughput_without_divides"});
    LoopItem::McaFigures f;
    if (m.contains("cpi")) f.cpi = number_at(m["cpi"], path + "/cpi");
    if (m.contains("rthroughput")) f.rthroughput = number_at(m["rthroughput"], path + "/rthroughput");
    if (m.contains("uops")) f.uops = count_at(m["uops"], path + "/uops");
    if (m.contains("chain_restarts")) {
      if (!m["chain_restarts"].is_boolean()) fail(path + "/chain_restarts", "expected true or false");
      f.chain_restarts = m["chain_restarts"].get<bool>();
    }
    if (m.contains("busiest_resource")) f.busiest_resource = string_at(m["busiest_resource"], path + "/busiest_resource");
    if (m.contains("busiest_resource_cycles"))
      f.busiest_resource_cycles = number_at(m["busiest_resource_cycles"], path + "/busiest_resource_cycles");
    if (m.contains("divides")) f.divides = count_at(m["divides"], path + "/divides");
    if (m.contains("rthroughput_without_divides"))
      f.rthroughput_without_divides = number_at(m["rthroughput_without_divides"], path + "/rthroughput_without_divides");
    return f;
  }

  // The model's "mca" record: the CPU, and the rest for the reader.
  void mca_record(const json& m, ProgramModel& model) const {
    const std::string path = "/mca";
    if (!m.is_object()) fail(path, "expected an object: {\"cpu\": ..., ...}");
    only_keys(m, path, {"cpu", "cpu_chosen", "code_for", "loops_priced", "loops_unpriced", "outer_loops_priced",
                        "outer_loops_unpriced", "window_uops", "host_cycles", "note"});
    McaRecord& r = model.mca;
    if (m.contains("cpu")) model.mca_cpu = string_at(m["cpu"], path + "/cpu");
    if (m.contains("cpu_chosen")) r.cpu_chosen = string_at(m["cpu_chosen"], path + "/cpu_chosen");
    if (m.contains("code_for")) r.code_for = string_at(m["code_for"], path + "/code_for");
    auto count = [&](const char* key, std::optional<int>& out) {
      if (m.contains(key)) out = count_at(m[key], path + "/" + key);
    };
    count("loops_priced", r.loops_priced);
    count("loops_unpriced", r.loops_unpriced);
    count("outer_loops_priced", r.outer_loops_priced);
    count("outer_loops_unpriced", r.outer_loops_unpriced);
    count("window_uops", r.window_uops);
    if (m.contains("host_cycles")) {
      const json& h = m["host_cycles"];
      std::string hp = path + "/host_cycles";
      if (!h.is_object()) fail(hp, "expected an object with source and applied");
      only_keys(h, hp, {"source", "applied"});
      McaRecord::HostCycles hc;
      hc.source = string_at(member(h, hp, "source"), hp + "/source");
      const json& applied = member(h, hp, "applied");
      if (!applied.is_array()) fail(hp + "/applied", "expected an array of strings");
      for (size_t i = 0; i < applied.size(); ++i)
        hc.applied.push_back(string_at(applied[i], fmt::format("{}/applied/{}", hp, i)));
      r.host_cycles = std::move(hc);
    }
    if (m.contains("note")) r.note = string_at(m["note"], path + "/note");
  }

  // The analyser's "coverage" section: what it could not follow.
  Coverage coverage(const json& c) const {
    const std::string path = "/coverage";
    if (!c.is_object()) fail(path, "expected an object: {\"functions_defined\": ..., \"unresolved_calls\": [...], ...}");
    only_keys(c, path, {"functions_defined", "functions_reachable", "instructions", "instructions_priced",
                        "priced_share", "unresolved_calls", "guessed_branches", "unknown_loops", "probe_run",
                        "candidate_instructions_priced", "polling_loops"});
    Coverage out;
    auto whole = [&](const char* key) -> std::int64_t {
      const json& v = member(c, path, key);
      if (!v.is_number_integer() || v.get<long long>() < 0) fail(path + "/" + key, "expected a whole number >= 0");
      return v.get<std::int64_t>();
    };
    out.functions_defined = count_at(member(c, path, "functions_defined"), path + "/functions_defined");
    out.functions_reachable = count_at(member(c, path, "functions_reachable"), path + "/functions_reachable");
    out.instructions = whole("instructions");
    out.instructions_priced = whole("instructions_priced");
    if (out.instructions_priced > out.instructions)
      fail(path + "/instructions_priced", "more than the reachable functions' instructions");
    auto list = [&](const char* key, auto&& one) {
      if (!c.contains(key)) return;
      const json& a = c[key];
      std::string lp = path + "/" + key;
      if (!a.is_array()) fail(lp, "expected an array of objects");
      for (size_t i = 0; i < a.size(); ++i) {
        std::string ip = fmt::format("{}/{}", lp, i);
        if (!a[i].is_object()) fail(ip, "expected an object");
        one(a[i], ip);
      }
    };
    auto text = [&](const json& o, const std::string& p, const char* key) {
      return string_at(member(o, p, key), p + "/" + key);
    };
    auto texts = [&](const json& o, const std::string& p, const char* key) {
      const json& a = member(o, p, key);
      const std::string ap = p + "/" + key;
      if (!a.is_array()) fail(ap, "expected an array of strings");
      std::vector<std::string> out;
      for (size_t i = 0; i < a.size(); ++i) out.push_back(string_at(a[i], fmt::format("{}/{}", ap, i)));
      return out;
    };
    if (c.contains("candidate_instructions_priced")) {
      const json& a = c["candidate_instructions_priced"];
      const std::string ap = path + "/candidate_instructions_priced";
      if (!a.is_object()) fail(ap, "expected an object: function -> instructions priced in it");
      for (auto f = a.begin(); f != a.end(); ++f) {
        if (!f.value().is_number_integer() || f.value().get<long long>() < 0)
          fail(ap + "/" + f.key(), "expected a whole number >= 0");
        out.candidate_instructions_priced[f.key()] = f.value().get<std::int64_t>();
      }
    }
    if (c.contains("probe_run")) out.probe_run = string_at(c["probe_run"], path + "/probe_run");
    // A probe run's fields on a guessed branch or an unknown loop.
    auto probe_fields = [&](const json& o, const std::string& p, const char* value_key, double most,
                            std::optional<double>& value, bool& not_reached) {
      if (o.contains(value_key)) {
        const json& v = o[value_key];
        if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > most)
          fail(p + "/" + value_key, most == 1 ? "expected a number between 0 and 1" : "expected a number >= 0");
        value = v.get<double>();
      }
      if (o.contains("probe_not_reached")) {
        if (!o["probe_not_reached"].is_boolean()) fail(p + "/probe_not_reached", "expected true or false");
        not_reached = o["probe_not_reached"].get<bool>();
      }
    };
    list("unresolved_calls", [&](const json& o, const std::string& p) {
      only_keys(o, p, {"kind", "callee", "caller", "site", "probe_targets", "probe_not_reached"});
      Coverage::Call k{text(o, p, "kind"), o.contains("callee") ? text(o, p, "callee") : "", text(o, p, "caller"),
                       text(o, p, "site")};
      if (o.contains("probe_targets")) {
        const json& t = o["probe_targets"];
        if (!t.is_object()) fail(p + "/probe_targets", "expected an object: function -> calls per execution");
        for (auto e = t.begin(); e != t.end(); ++e) {
          if (!e.value().is_number() || e.value().get<double>() < 0)
            fail(p + "/probe_targets/" + e.key(), "expected a number >= 0 (calls per execution of the site)");
          k.probe_targets.emplace_back(e.key(), e.value().get<double>());
        }
      }
      if (o.contains("probe_not_reached")) {
        if (!o["probe_not_reached"].is_boolean()) fail(p + "/probe_not_reached", "expected true or false");
        k.probe_not_reached = o["probe_not_reached"].get<bool>();
      }
      if (k.kind != "indirect" && k.kind != "external" && k.kind != "recursive")
        fail(p + "/kind", fmt::format("unknown kind '{}'; expected indirect, external or recursive", k.kind));
      out.unresolved_calls.push_back(std::move(k));
    });
    list("guessed_branches", [&](const json& o, const std::string& p) {
      only_keys(o, p, {"function", "site", "probability", "why", "probe_probability", "probe_not_reached"});
      const json& pr = member(o, p, "probability");
      if (!pr.is_number() || pr.get<double>() < 0 || pr.get<double>() > 1)
        fail(p + "/probability", "expected a number between 0 and 1");
      Coverage::Branch b{text(o, p, "function"), text(o, p, "site"), pr.get<double>(),
                         o.contains("why") ? text(o, p, "why") : ""};
      probe_fields(o, p, "probe_probability", 1, b.probe_probability, b.probe_not_reached);
      out.guessed_branches.push_back(std::move(b));
    });
    list("unknown_loops", [&](const json& o, const std::string& p) {
      only_keys(o, p, {"function", "site", "trip_count", "why", "probe_trips", "probe_not_reached", "recursion",
                         "virtual_call", "instance", "merged_site", "called_back_at"});
      Coverage::Loop l{text(o, p, "function"), text(o, p, "site"), text(o, p, "trip_count"),
                       o.contains("why") ? text(o, p, "why") : ""};
      probe_fields(o, p, "probe_trips", 1e300, l.probe_trips, l.probe_not_reached);
      if (o.contains("recursion")) {
        if (!o["recursion"].is_boolean()) fail(p + "/recursion", "expected true or false");
        l.recursion = o["recursion"].get<bool>();
      }
      if (o.contains("virtual_call")) l.virtual_call = text(o, p, "virtual_call");
      if (o.contains("instance")) l.instance = text(o, p, "instance");
      if (o.contains("merged_site")) l.merged_site = text(o, p, "merged_site");
      if (o.contains("called_back_at")) l.called_back_at = texts(o, p, "called_back_at");
      out.unknown_loops.push_back(std::move(l));
    });
    list("polling_loops", [&](const json& o, const std::string& p) {
      only_keys(o, p, {"function", "site", "loop", "call"});
      out.polling_loops.push_back({text(o, p, "function"), text(o, p, "site"), o.contains("loop") ? text(o, p, "loop") : "",
                                   text(o, p, "call")});
    });
    return out;
  }

  Items items(const json& array, const std::string& path) const {
    if (!array.is_array()) fail(path, fmt::format("expected an array of items, found {}", array.type_name()));
    Items out;
    for (size_t i = 0; i < array.size(); ++i) out.push_back(item(array[i], path + "/" + std::to_string(i)));
    return out;
  }

  Item item(const json& j, const std::string& path) const {
    if (!j.is_object()) fail(path, "expected an item object with a \"kind\"");
    Item it;
    if (j.contains("line")) {
      if (!j["line"].is_number_integer()) fail(path + "/line", "expected a source line number");
      it.line = j["line"].get<int>();
    }
    if (j.contains("note")) it.note = string_at(j["note"], path + "/note");
    std::string kind = string_at(member(j, path, "kind"), path + "/kind");
    if (kind == "compute") {
      only_keys(j, path, {"kind", "line", "note", "flops_double", "flops_single", "loads", "stores",
                          "load_bytes", "store_bytes", "math"});
      ComputeItem c;
      c.flops_double = expr_or_zero(j, path, "flops_double");
      c.flops_single = expr_or_zero(j, path, "flops_single");
      c.loads = expr_or_zero(j, path, "loads");
      c.stores = expr_or_zero(j, path, "stores");
      c.load_bytes = expr_or_zero(j, path, "load_bytes");
      c.store_bytes = expr_or_zero(j, path, "store_bytes");
      if (j.contains("math")) {
        const json& m = j["math"];
        if (!m.is_object()) fail(path + "/math", "expected an object: function name -> calls");
        for (auto f = m.begin(); f != m.end(); ++f) {
          static const std::set<std::string> known = {"sin", "cos", "tan", "exp", "log", "sqrt", "pow"};
          std::string base = f.key();
          if (base.size() > 1 && base.back() == 'f' && !known.count(base)) base.pop_back();
          if (!known.count(base))
            fail(path + "/math/" + f.key(),
                 fmt::format("unknown math function '{}'; expected sin cos tan exp log sqrt pow "
                             "(add 'f' for single precision)",
                             f.key()));
          c.math_calls.emplace_back(f.key(), expr_at(f.value(), path + "/math/" + f.key()));
        }
      }
      it.body = std::move(c);
    } else if (kind == "loop") {
      only_keys(j, path,
                {"kind", "line", "note", "var", "levels", "trip_count", "working_set_bytes", "footprint",
                 "cycles_per_iteration", "overhead_cycles_per_iteration", "ports_cycles_per_iteration", "mca", "streams",
                 "stream_offsets", "body", "polls"});
      LoopItem l;
      if (j.contains("var")) l.var = string_at(j["var"], path + "/var");
      if (j.contains("levels")) {
        if (!j["levels"].is_boolean()) fail(path + "/levels", "expected true or false");
        l.levels = j["levels"].get<bool>();
        if (l.levels && l.var.empty()) fail(path + "/levels", "a loop of levels needs a 'var', its level");
      }
      if (j.contains("polls")) {
        l.polls = string_at(j["polls"], path + "/polls");
        if (l.polls.empty()) fail(path + "/polls", "expected the MPI function the loop polls with (\"MPI_Test\")");
      }
      l.trip_count = expr_at(member(j, path, "trip_count"), path + "/trip_count");
      l.working_set_bytes = optional_expr(j, path, "working_set_bytes");
      l.cycles_per_iteration = optional_expr(j, path, "cycles_per_iteration");
      l.overhead_cycles_per_iteration = optional_expr(j, path, "overhead_cycles_per_iteration");
      if (j.contains("ports_cycles_per_iteration")) {
        const json& d = j["ports_cycles_per_iteration"];
        if (!d.is_number() || !(d.get<double>() >= 0))
          fail(path + "/ports_cycles_per_iteration", "expected a number of cycles >= 0");
        l.ports_cycles_per_iteration = d.get<double>();
      }
      if (j.contains("streams")) {
        const json& d = j["streams"];
        if (!d.is_number_integer() || d.get<long long>() < 1 || d.get<long long>() > 1000000)
          fail(path + "/streams", "expected a whole number of address streams >= 1");
        l.streams = static_cast<int>(d.get<long long>());
      }
      if (j.contains("stream_offsets")) {
        const json& bases = j["stream_offsets"];
        std::string sp = path + "/stream_offsets";
        if (!bases.is_array()) fail(sp, "expected an array (one per array) of arrays of byte offsets");
        for (size_t b = 0; b < bases.size(); ++b) {
          std::string bp = fmt::format("{}/{}", sp, b);
          if (!bases[b].is_array() || bases[b].size() < 2)
            fail(bp, "expected an array of at least 2 byte offsets (expressions), the first stream's 0");
          std::vector<Expr> offsets;
          for (size_t k = 0; k < bases[b].size(); ++k) offsets.push_back(expr_at(bases[b][k], fmt::format("{}/{}", bp, k)));
          l.stream_offsets.push_back(std::move(offsets));
        }
        if (!l.streams) fail(sp, "given without streams (the count they belong to)");
      }
      if (j.contains("mca")) l.mca = mca_figures(j["mca"], path + "/mca");
      if (j.contains("footprint")) {
        const json& f = j["footprint"];
        std::string fp = path + "/footprint";
        if (!f.is_object()) fail(fp, "expected an object with bytes, load_bytes, store_bytes");
        only_keys(f, fp, {"bytes", "load_bytes", "store_bytes"});
        l.footprint = LoopItem::Footprint{expr_at(member(f, fp, "bytes"), fp + "/bytes"),
                                          expr_at(member(f, fp, "load_bytes"), fp + "/load_bytes"),
                                          expr_at(member(f, fp, "store_bytes"), fp + "/store_bytes")};
      }
      l.body = items(member(j, path, "body"), path + "/body");
      it.body = std::move(l);
    } else if (kind == "branch") {
      only_keys(j, path,
                {"kind", "line", "note", "condition", "share", "probability", "then", "else", "then_line", "else_line"});
      BranchItem b;
      b.condition = optional_expr(j, path, "condition");
      b.share = optional_expr(j, path, "share");
      if (b.condition && b.share) fail(path, "give one of a condition, a share or a probability, not two");
      if (j.contains("probability")) {
        if (b.condition || b.share) fail(path, "give one of a condition, a share or a probability, not two");
        const json& p = j["probability"];
        if (!p.is_number() || p.get<double>() < 0 || p.get<double>() > 1)
          fail(path + "/probability", "expected a number between 0 and 1");
        b.probability = p.get<double>();
      }
      if (j.contains("then")) b.then_items = items(j["then"], path + "/then");
      if (j.contains("else")) b.else_items = items(j["else"], path + "/else");
      for (auto [key, line] : {std::pair{"then_line", &b.then_line}, std::pair{"else_line", &b.else_line}})
        if (j.contains(key)) {
          const json& v = j[key];
          if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > INT32_MAX)
            fail(path + "/" + key, "expected a source line (an integer from 1)");
          *line = v.get<int>();
        }
      it.body = std::move(b);
    } else if (kind == "call") {
      only_keys(j, path, {"kind", "line", "note", "function", "args", "indirect", "site", "arguments"});
      CallItem c;
      if (j.contains("indirect")) {
        if (!j["indirect"].is_boolean()) fail(path + "/indirect", "expected true or false");
        c.indirect = j["indirect"].get<bool>();
      }
      // An indirect call no probe run has bound has no function: it prices nothing.
      if (!c.indirect || j.contains("function"))
        c.function = string_at(member(j, path, "function"), path + "/function");
      if (j.contains("site")) c.site = string_at(j["site"], path + "/site");
      if (c.indirect && c.site.empty())
        fail(path + "/site", "an indirect call needs its site (file:line:column), by which a probe run binds it");
      if (j.contains("arguments")) {
        const json& a = j["arguments"];
        if (!a.is_array()) fail(path + "/arguments", "expected an array: an expression or null per argument");
        for (size_t i = 0; i < a.size(); ++i)
          c.positional_args.push_back(a[i].is_null() ? std::nullopt
                                                     : std::optional<Expr>(expr_at(a[i], fmt::format("{}/arguments/{}", path, i))));
      }
      if (j.contains("args")) {
        const json& a = j["args"];
        if (!a.is_object()) fail(path + "/args", "expected an object: callee parameter -> expression");
        for (auto arg = a.begin(); arg != a.end(); ++arg)
          c.args.emplace_back(arg.key(), expr_at(arg.value(), path + "/args/" + arg.key()));
      }
      it.body = std::move(c);
    } else if (kind == "mpi") {
      only_keys(j, path, {"kind", "line", "note", "op", "bytes", "peer", "root", "level", "count"});
      MpiItem m;
      std::string op = string_at(member(j, path, "op"), path + "/op");
      auto parsed = mpi::parse_op(op);
      if (!parsed)
        fail(path + "/op", fmt::format("unknown MPI operation '{}' (lower case, without the MPI_ prefix); "
                                       "expected one of: {}",
                                       op, mpi::op_names_list()));
      m.op = *parsed;
      m.bytes = expr_or_zero(j, path, "bytes");
      m.peer = optional_expr(j, path, "peer");
      m.root = optional_expr(j, path, "root");
      m.level = optional_expr(j, path, "level");
      if (j.contains("count")) m.count = expr_at(j["count"], path + "/count");
      if ((mpi::facts(m.op).sends || mpi::facts(m.op).receives) && !m.peer)
        fail(path, fmt::format("a point-to-point '{}' needs a \"peer\"", mpi::name(m.op)));
      it.body = std::move(m);
    } else {
      fail(path + "/kind",
           fmt::format("unknown item kind '{}'; expected compute, loop, branch, call or mpi", kind));
    }
    return it;
  }

 private:
  std::string file_;
};

}  // namespace

ProgramModel load_program_model(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw UserError(fmt::format("cannot open program model '{}'", file.string()));
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw UserError(fmt::format("{}: not valid JSON: {}", file.string(), e.what()));
  }
  Reader r(file.string());
  if (!doc.is_object()) r.fail("", "expected a JSON object");
  r.only_keys(doc, "", {"format", "version", "program", "source", "origin", "description", "parameters", "let",
                        "entry", "functions", "mca", "coverage"});
  if (!doc.contains("format") || doc["format"] != "perfcast-program-model")
    r.fail("/format", "expected \"perfcast-program-model\" (is this a program model?)");
  if (!doc.contains("version") || doc["version"] != 1) r.fail("/version", "expected version 1");

  ProgramModel m;
  m.file = file.string();
  if (doc.contains("program")) m.program = r.string_at(doc["program"], "/program");
  if (doc.contains("source")) m.source = r.string_at(doc["source"], "/source");
  if (doc.contains("origin")) m.origin = r.string_at(doc["origin"], "/origin");
  if (doc.contains("entry")) m.entry = r.string_at(doc["entry"], "/entry");
  if (doc.contains("mca")) r.mca_record(doc["mca"], m);
  if (doc.contains("coverage")) m.coverage = r.coverage(doc["coverage"]);

  if (doc.contains("parameters")) {
    const json& ps = doc["parameters"];
    if (!ps.is_object()) r.fail("/parameters", "expected an object: name -> {description, default}");
    for (auto p = ps.begin(); p != ps.end(); ++p) {
      std::string path = "/parameters/" + p.key();
      if (!p.value().is_object()) r.fail(path, "expected an object with \"description\" and optional \"default\"");
      r.only_keys(p.value(), path, {"description", "default", "integer", "origin"});
      Parameter param{p.key(), "", r.optional_expr(p.value(), path, "default")};
      if (p.value().contains("description"))
        param.description = r.string_at(p.value()["description"], path + "/description");
      if (p.value().contains("integer")) {
        if (!p.value()["integer"].is_boolean()) r.fail(path + "/integer", "expected true or false");
        param.integer = p.value()["integer"].get<bool>();
      }
      if (p.value().contains("origin")) param.origin = r.string_at(p.value()["origin"], path + "/origin");
      m.parameters.push_back(std::move(param));
    }
  }
  if (doc.contains("let")) {
    const json& lets = doc["let"];
    if (!lets.is_array()) r.fail("/let", "expected an array of [name, expression] pairs");
    for (size_t i = 0; i < lets.size(); ++i) {
      std::string path = "/let/" + std::to_string(i);
      if (!lets[i].is_array() || lets[i].size() != 2) r.fail(path, "expected a [name, expression] pair");
      m.lets.emplace_back(r.string_at(lets[i][0], path + "/0"), r.expr_at(lets[i][1], path + "/1"));
    }
  }
  const json& fs = r.member(doc, "", "functions");
  if (!fs.is_object()) r.fail("/functions", "expected an object: function name -> {line, parameters, body}");
  for (auto f = fs.begin(); f != fs.end(); ++f) {
    std::string path = "/functions/" + f.key();
    if (!f.value().is_object()) r.fail(path, "expected an object with a \"body\"");
    r.only_keys(f.value(), path, {"line", "file", "parameters", "arguments", "body", "note"});
    Function fn;
    fn.name = f.key();
    if (f.value().contains("line")) {
      if (!f.value()["line"].is_number_integer()) r.fail(path + "/line", "expected a source line number");
      fn.line = f.value()["line"].get<int>();
    }
    if (f.value().contains("file")) fn.file = r.string_at(f.value()["file"], path + "/file");
    if (f.value().contains("parameters")) {
      const json& ps = f.value()["parameters"];
      if (!ps.is_array()) r.fail(path + "/parameters", "expected an array of parameter names");
      for (const auto& p : ps) fn.parameters.push_back(r.string_at(p, path + "/parameters"));
    }
    if (f.value().contains("arguments")) {
      const json& as = f.value()["arguments"];
      if (!as.is_array()) r.fail(path + "/arguments", "expected an array of argument names by position (\"\" for none)");
      for (const auto& a : as) fn.arguments.push_back(r.string_at(a, path + "/arguments"));
    }
    fn.body = r.items(r.member(f.value(), path, "body"), path + "/body");
    m.functions.emplace(fn.name, std::move(fn));
  }
  if (!m.functions.count(m.entry))
    r.fail("/entry", fmt::format("entry function '{}' is not among the functions", m.entry));
  return m;
}

}  // namespace perfcast::model
