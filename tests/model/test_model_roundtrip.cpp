// The program model's writer against its reader: a model with every item kind
// and every optional field written, read back and compared field by field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "model/model_write.h"
#include "model/program_model.h"
#include "scratch.h"
#include "support/error.h"
#include "support/expr.h"

using namespace perfcast;
using namespace perfcast::model;

namespace {

Expr e(const char* text) { return expr::parse(text); }

void expect_same(const Items& a, const Items& b, const std::string& where);

void expect_same(const std::optional<Expr>& a, const std::optional<Expr>& b, const std::string& where) {
  ASSERT_EQ(a.has_value(), b.has_value()) << where;
  if (a) {
    EXPECT_EQ(*a, *b) << where << ": " << expr::to_string(*a) << " vs " << expr::to_string(*b);
  }
}

void expect_same(const Expr& a, const Expr& b, const std::string& where) {
  EXPECT_EQ(a, b) << where << ": " << expr::to_string(a) << " vs " << expr::to_string(b);
}

void expect_same(const std::vector<std::pair<std::string, Expr>>& a, const std::vector<std::pair<std::string, Expr>>& b,
                 const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].first, b[i].first) << where;
    expect_same(a[i].second, b[i].second, where + "/" + a[i].first);
  }
}

void expect_same(const Item& a, const Item& b, const std::string& where) {
  EXPECT_EQ(a.line, b.line) << where;
  EXPECT_EQ(a.note, b.note) << where;
  ASSERT_EQ(a.body.index(), b.body.index()) << where;
  if (const auto* x = std::get_if<ComputeItem>(&a.body)) {
    const auto& y = std::get<ComputeItem>(b.body);
    expect_same(x->flops_double, y.flops_double, where + "/flops_double");
    expect_same(x->flops_single, y.flops_single, where + "/flops_single");
    expect_same(x->loads, y.loads, where + "/loads");
    expect_same(x->stores, y.stores, where + "/stores");
    expect_same(x->load_bytes, y.load_bytes, where + "/load_bytes");
    expect_same(x->store_bytes, y.store_bytes, where + "/store_bytes");
    expect_same(x->math_calls, y.math_calls, where + "/math");
  } else if (const auto* x = std::get_if<LoopItem>(&a.body)) {
    const auto& y = std::get<LoopItem>(b.body);
    EXPECT_EQ(x->var, y.var) << where;
    expect_same(x->trip_count, y.trip_count, where + "/trip_count");
    expect_same(x->working_set_bytes, y.working_set_bytes, where + "/working_set_bytes");
    ASSERT_EQ(x->footprint.has_value(), y.footprint.has_value()) << where;
    if (x->footprint) {
      expect_same(x->footprint->bytes, y.footprint->bytes, where + "/footprint/bytes");
      expect_same(x->footprint->load_bytes, y.footprint->load_bytes, where + "/footprint/load_bytes");
      expect_same(x->footprint->store_bytes, y.footprint->store_bytes, where + "/footprint/store_bytes");
    }
    EXPECT_EQ(x->streams, y.streams) << where;
    ASSERT_EQ(x->stream_offsets.size(), y.stream_offsets.size()) << where;
    for (size_t k = 0; k < x->stream_offsets.size(); ++k) {
      ASSERT_EQ(x->stream_offsets[k].size(), y.stream_offsets[k].size()) << where;
      for (size_t s = 0; s < x->stream_offsets[k].size(); ++s)
        expect_same(x->stream_offsets[k][s], y.stream_offsets[k][s], where + "/stream_offsets");
    }
    expect_same(x->cycles_per_iteration, y.cycles_per_iteration, where + "/cycles_per_iteration");
    expect_same(x->overhead_cycles_per_iteration, y.overhead_cycles_per_iteration,
                where + "/overhead_cycles_per_iteration");
    EXPECT_EQ(x->ports_cycles_per_iteration, y.ports_cycles_per_iteration) << where;
    ASSERT_EQ(x->mca.has_value(), y.mca.has_value()) << where;
    if (x->mca) {
      EXPECT_EQ(x->mca->cpi, y.mca->cpi) << where;
      EXPECT_EQ(x->mca->rthroughput, y.mca->rthroughput) << where;
      EXPECT_EQ(x->mca->uops, y.mca->uops) << where;
      EXPECT_EQ(x->mca->chain_restarts, y.mca->chain_restarts) << where;
      EXPECT_EQ(x->mca->busiest_resource, y.mca->busiest_resource) << where;
      EXPECT_EQ(x->mca->busiest_resource_cycles, y.mca->busiest_resource_cycles) << where;
      EXPECT_EQ(x->mca->divides, y.mca->divides) << where;
      EXPECT_EQ(x->mca->rthroughput_without_divides, y.mca->rthroughput_without_divides) << where;
    }
    expect_same(x->body, y.body, where + "/body");
  } else if (const auto* x = std::get_if<BranchItem>(&a.body)) {
    const auto& y = std::get<BranchItem>(b.body);
    expect_same(x->condition, y.condition, where + "/condition");
    expect_same(x->share, y.share, where + "/share");
    EXPECT_EQ(x->probability, y.probability) << where;
    EXPECT_EQ(x->then_line, y.then_line) << where;
    EXPECT_EQ(x->else_line, y.else_line) << where;
    expect_same(x->then_items, y.then_items, where + "/then");
    expect_same(x->else_items, y.else_items, where + "/else");
  } else if (const auto* x = std::get_if<CallItem>(&a.body)) {
    const auto& y = std::get<CallItem>(b.body);
    EXPECT_EQ(x->function, y.function) << where;
    expect_same(x->args, y.args, where + "/args");
  } else if (const auto* x = std::get_if<MpiItem>(&a.body)) {
    const auto& y = std::get<MpiItem>(b.body);
    EXPECT_EQ(x->op, y.op) << where;
    expect_same(x->bytes, y.bytes, where + "/bytes");
    expect_same(x->peer, y.peer, where + "/peer");
    expect_same(x->root, y.root, where + "/root");
    expect_same(x->count, y.count, where + "/count");
  }
}

void expect_same(const Items& a, const Items& b, const std::string& where) {
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i) expect_same(a[i], b[i], where + "/" + std::to_string(i));
}

void expect_same(const ProgramModel& a, const ProgramModel& b) {
  EXPECT_EQ(a.program, b.program);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.origin, b.origin);
  EXPECT_EQ(a.mca_cpu, b.mca_cpu);
  EXPECT_EQ(a.mca.cpu_chosen, b.mca.cpu_chosen);
  EXPECT_EQ(a.mca.code_for, b.mca.code_for);
  EXPECT_EQ(a.mca.loops_priced, b.mca.loops_priced);
  EXPECT_EQ(a.mca.loops_unpriced, b.mca.loops_unpriced);
  EXPECT_EQ(a.mca.outer_loops_priced, b.mca.outer_loops_priced);
  EXPECT_EQ(a.mca.outer_loops_unpriced, b.mca.outer_loops_unpriced);
  EXPECT_EQ(a.mca.window_uops, b.mca.window_uops);
  ASSERT_EQ(a.mca.host_cycles.has_value(), b.mca.host_cycles.has_value());
  if (a.mca.host_cycles) {
    EXPECT_EQ(a.mca.host_cycles->source, b.mca.host_cycles->source);
    EXPECT_EQ(a.mca.host_cycles->applied, b.mca.host_cycles->applied);
  }
  EXPECT_EQ(a.mca.note, b.mca.note);
  ASSERT_EQ(a.coverage.has_value(), b.coverage.has_value());
  if (a.coverage) {
    const Coverage &x = *a.coverage, &y = *b.coverage;
    EXPECT_EQ(x.functions_defined, y.functions_defined);
    EXPECT_EQ(x.functions_reachable, y.functions_reachable);
    EXPECT_EQ(x.instructions, y.instructions);
    EXPECT_EQ(x.instructions_priced, y.instructions_priced);
    ASSERT_EQ(x.unresolved_calls.size(), y.unresolved_calls.size());
    for (size_t i = 0; i < x.unresolved_calls.size(); ++i) {
      EXPECT_EQ(x.unresolved_calls[i].kind, y.unresolved_calls[i].kind) << i;
      EXPECT_EQ(x.unresolved_calls[i].callee, y.unresolved_calls[i].callee) << i;
      EXPECT_EQ(x.unresolved_calls[i].caller, y.unresolved_calls[i].caller) << i;
      EXPECT_EQ(x.unresolved_calls[i].site, y.unresolved_calls[i].site) << i;
    }
    ASSERT_EQ(x.guessed_branches.size(), y.guessed_branches.size());
    for (size_t i = 0; i < x.guessed_branches.size(); ++i) {
      EXPECT_EQ(x.guessed_branches[i].function, y.guessed_branches[i].function) << i;
      EXPECT_EQ(x.guessed_branches[i].site, y.guessed_branches[i].site) << i;
      EXPECT_EQ(x.guessed_branches[i].probability, y.guessed_branches[i].probability) << i;
      EXPECT_EQ(x.guessed_branches[i].why, y.guessed_branches[i].why) << i;
    }
    ASSERT_EQ(x.unknown_loops.size(), y.unknown_loops.size());
    for (size_t i = 0; i < x.unknown_loops.size(); ++i) {
      EXPECT_EQ(x.unknown_loops[i].function, y.unknown_loops[i].function) << i;
      EXPECT_EQ(x.unknown_loops[i].site, y.unknown_loops[i].site) << i;
      EXPECT_EQ(x.unknown_loops[i].trip_count, y.unknown_loops[i].trip_count) << i;
      EXPECT_EQ(x.unknown_loops[i].why, y.unknown_loops[i].why) << i;
      EXPECT_EQ(x.unknown_loops[i].recursion, y.unknown_loops[i].recursion) << i;
    }
  }
  EXPECT_EQ(a.entry, b.entry);
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  for (size_t i = 0; i < a.parameters.size(); ++i) {
    EXPECT_EQ(a.parameters[i].name, b.parameters[i].name);
    EXPECT_EQ(a.parameters[i].description, b.parameters[i].description);
    expect_same(a.parameters[i].default_value, b.parameters[i].default_value, "/parameters/" + a.parameters[i].name);
    EXPECT_EQ(a.parameters[i].integer, b.parameters[i].integer) << a.parameters[i].name;
  }
  expect_same(a.lets, b.lets, "/let");
  ASSERT_EQ(a.functions.size(), b.functions.size());
  for (const auto& [name, f] : a.functions) {
    ASSERT_TRUE(b.functions.count(name)) << name;
    const Function& g = b.functions.at(name);
    EXPECT_EQ(f.name, g.name);
    EXPECT_EQ(f.line, g.line) << name;
    EXPECT_EQ(f.parameters, g.parameters) << name;
    expect_same(f.body, g.body, "/functions/" + name + "/body");
  }
}

Item item(int line, std::string note, decltype(Item::body) body) {
  Item it;
  it.line = line;
  it.note = std::move(note);
  it.body = std::move(body);
  return it;
}

// Every item kind, each optional field given somewhere and left out elsewhere.
ProgramModel every_kind() {
  ProgramModel m;
  m.program = "every_kind";
  m.source = "every_kind.c";
  m.origin = "written by hand";
  m.mca_cpu = "znver3";
  m.mca.cpu_chosen = "the host is newer than LLVM 19 knows: znver5 stands in";
  m.mca.code_for = "x86_64-pc-linux-gnu x86-64";
  m.mca.loops_priced = 2;
  m.mca.loops_unpriced = 0;
  m.mca.outer_loops_priced = 1;
  m.mca.outer_loops_unpriced = 1;
  m.mca.window_uops = 256;
  m.mca.host_cycles = McaRecord::HostCycles{"machines/host.toml", {"FP add latency 3 -> 2.05 cycles"}};
  m.mca.note = "LLVM 19 MCA";
  // The reader keeps parameters in name order (a JSON object's).
  m.parameters = {{"n", "points per rank", std::nullopt, true}, {"steps", "time steps", e("10")}};
  m.lets = {{"half", e("floordiv(n, 2)")}, {"twice", e("2 * half")}};
  m.entry = "main";

  ComputeItem work;
  work.flops_double = e("2 * n");
  work.flops_single = e("n");
  work.loads = e("3 * n");
  work.stores = e("n");
  work.load_bytes = e("24 * n");
  work.store_bytes = e("8 * n");
  work.math_calls = {{"exp", e("n")}, {"sqrtf", e("1")}};
  LoopItem inner;
  inner.var = "i";
  inner.trip_count = e("n - 2");
  inner.working_set_bytes = e("16 * n");
  inner.footprint = LoopItem::Footprint{e("16 * n"), e("8 * n"), e("8 * n")};
  inner.streams = 3;
  inner.stream_offsets = {{e("0"), e("8 * n")}};
  inner.cycles_per_iteration = e("max(1.5, 2.25 * (n - 2) / (n - 2 + 12.5))");
  inner.ports_cycles_per_iteration = 1.25;
  // An innermost loop's figures, divides included.
  inner.mca = LoopItem::McaFigures{2.25, 1.5, 23, true, "Zn3FPP1", 1.5, 2, 1.25};
  inner.body.push_back(item(12, "", work));
  LoopItem outer;
  outer.var = "";
  outer.trip_count = e("steps");
  outer.overhead_cycles_per_iteration = expr::real(3.5);
  // An outer loop's: no chain_restarts, no divides.
  outer.mca = LoopItem::McaFigures{3.5, 3.0, 12, std::nullopt, "dispatch width", 3.0, 0, 0};
  outer.body.push_back(item(11, "inlined from step (called at line 30)", inner));
  // The code after a loop's exit in the middle of its body.
  BranchItem after_exit;
  after_exit.share = e("max(steps - 1, 0) / max(steps, 1)");
  after_exit.then_items.push_back(item(13, "", work));
  outer.body.push_back(item(13, "after the loop's exit", after_exit));
  LoopItem constant_cycles;
  constant_cycles.var = "k";
  constant_cycles.trip_count = e("4");
  constant_cycles.cycles_per_iteration = expr::real(2.75);

  MpiItem send;
  send.op = perfcast::mpi::Op::Isend;
  send.bytes = e("8 * n");
  send.peer = e("mod(rank + 1, size)");
  MpiItem reduce;
  reduce.op = perfcast::mpi::Op::Reduce;
  reduce.bytes = e("8");
  reduce.root = e("0");
  reduce.count = e("2");
  MpiItem barrier;
  barrier.op = perfcast::mpi::Op::Barrier;
  BranchItem on_root;
  on_root.condition = e("rank == 0");
  on_root.then_items.push_back(item(40, "", reduce));
  BranchItem sometimes;
  sometimes.probability = 0.25;
  sometimes.then_line = 41;
  sometimes.else_line = 43;
  sometimes.else_items.push_back(item(0, "", barrier));
  CallItem call;
  call.function = "step";
  call.args = {{"len", e("n + 1")}};

  Function main_fn;
  main_fn.name = "main";
  main_fn.line = 25;
  main_fn.body.push_back(item(26, "", outer));
  main_fn.body.push_back(item(35, "", constant_cycles));
  main_fn.body.push_back(item(36, "", send));
  main_fn.body.push_back(item(38, "", on_root));
  main_fn.body.push_back(item(42, "", sometimes));
  main_fn.body.push_back(item(44, "", call));
  Function step;
  step.name = "step";
  step.line = 5;
  step.parameters = {"len"};
  ComputeItem little;
  little.flops_double = e("len");
  step.body.push_back(item(6, "", little));
  m.functions.emplace("main", std::move(main_fn));
  m.functions.emplace("step", std::move(step));
  Coverage c;
  c.functions_defined = 4;
  c.functions_reachable = 3;
  c.instructions = 120;
  c.instructions_priced = 90;
  c.unresolved_calls = {{"indirect", "", "main", "every_kind.c:31"}, {"external", "solve", "step", "every_kind.c:7"}};
  c.guessed_branches = {{"main", "every_kind.c:42", 0.25, "one of 4 switch cases"}};
  c.unknown_loops = {{"main", "every_kind.c:26", "main.loop2.trips", "its exit depends on data"},
                     {"step", "every_kind.c:5", "step.calls_per_entry", "a recursion", std::nullopt, false, true, "", "",
                      "", {"every_kind.c:9"}}};
  m.coverage = c;
  return m;
}

std::string dump(const ProgramModel& m) { return program_model_json(m).dump(2); }

}  // namespace

TEST(ModelRoundtrip, EveryItemKindReadsBackEqual) {
  ProgramModel m = every_kind();
  auto file = perfcast::testing::scratch() / "every_kind.model.json";
  write_program_model(m, file);
  ProgramModel back = load_program_model(file);
  expect_same(m, back);
  // Written again, the model read back is the same document.
  EXPECT_EQ(dump(back), dump(m));
  std::filesystem::remove(file);
}

// Constant cycles are numbers (as the analyser writes MCA's figures), the
// rest of the expressions text; fields left at their defaults are left out.
TEST(ModelRoundtrip, ConstantCyclesAreNumbersAndDefaultsAreLeftOut) {
  auto j = program_model_json(every_kind());
  const auto& body = j["functions"]["main"]["body"];
  EXPECT_TRUE(body[0]["overhead_cycles_per_iteration"].is_number_float());
  EXPECT_EQ(body[0]["overhead_cycles_per_iteration"].get<double>(), 3.5);
  EXPECT_TRUE(body[1]["cycles_per_iteration"].is_number_float());
  EXPECT_TRUE(body[0]["body"][0]["cycles_per_iteration"].is_string());
  EXPECT_EQ(body[0]["trip_count"], "steps");
  EXPECT_FALSE(body[2].contains("count"));  // one call: the default
  EXPECT_FALSE(body[4].contains("condition"));
  EXPECT_TRUE(body[0]["body"][1]["share"].is_string());
  EXPECT_FALSE(body[0]["body"][1].contains("probability"));
  EXPECT_EQ(body[4]["probability"].get<double>(), 0.25);
  EXPECT_EQ(body[3]["then"][0]["count"], "2");
  EXPECT_FALSE(j["functions"]["main"].contains("parameters"));
  EXPECT_EQ(j["functions"]["step"]["parameters"][0], "len");
}

// MPI operations are written by their names; MCA's figures as the analyser
// writes them, in its key order, the ones that do not apply left out.
TEST(ModelRoundtrip, OperationsByNameAndMcaFiguresInTheirOrder) {
  auto j = program_model_json(every_kind());
  const auto& body = j["functions"]["main"]["body"];
  EXPECT_EQ(body[2]["op"], "isend");
  EXPECT_EQ(body[3]["then"][0]["op"], "reduce");
  std::vector<std::string> keys;
  for (const auto& [key, value] : body[0]["body"][0]["mca"].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"cpi", "rthroughput", "uops", "chain_restarts", "busiest_resource",
                                            "busiest_resource_cycles", "divides", "rthroughput_without_divides"}));
  const auto& outer = body[0]["mca"];
  EXPECT_FALSE(outer.contains("chain_restarts"));
  EXPECT_FALSE(outer.contains("divides"));
  EXPECT_FALSE(outer.contains("rthroughput_without_divides"));
  // The loop's keys: mca between the priced cycles and the ports' cycles.
  keys.clear();
  for (const auto& [key, value] : body[0]["body"][0].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"kind", "line", "note", "var", "trip_count", "working_set_bytes",
                                            "cycles_per_iteration", "mca", "ports_cycles_per_iteration", "streams",
                                            "stream_offsets", "footprint", "body"}));
  keys.clear();
  for (const auto& [key, value] : j["mca"].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"cpu", "cpu_chosen", "code_for", "loops_priced", "loops_unpriced",
                                            "outer_loops_priced", "outer_loops_unpriced", "window_uops",
                                            "host_cycles", "note"}));
}

// The "mca" record of a hand-written model may hold the CPU alone.
TEST(ModelRoundtrip, McaRecordOfTheCpuAlone) {
  ProgramModel m = every_kind();
  m.mca = McaRecord{};
  auto j = program_model_json(m);
  EXPECT_EQ(j["mca"], nlohmann::ordered_json({{"cpu", "znver3"}}));
  auto file = perfcast::testing::scratch() / "cpu_alone.model.json";
  write_program_model(m, file);
  ProgramModel back = load_program_model(file);
  EXPECT_EQ(back.mca_cpu, "znver3");
  EXPECT_TRUE(back.mca.empty());
  std::filesystem::remove(file);
}

// The reader checks MCA's figures as it checks the rest: a misspelt figure or
// one of the wrong type is an error that points at it.
TEST(ModelRoundtrip, McaFiguresAreChecked) {
  auto file = perfcast::testing::scratch() / "bad_mca.model.json";
  auto message_for = [&](const std::string& mca) {
    std::ofstream(file) << R"({"format": "perfcast-program-model", "version": 1, "functions": {"main": {"body": [
      {"kind": "loop", "var": "i", "trip_count": "n", "body": [], "mca": )"
                        << mca << "}]}}}";
    try {
      load_program_model(file);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message_for(R"({"cpi": 1.5, "uopz": 3})").find("/functions/main/body/0/mca/uopz"), std::string::npos);
  EXPECT_NE(message_for(R"({"cpi": "fast"})").find("/functions/main/body/0/mca/cpi"), std::string::npos);
  EXPECT_EQ(message_for(R"({"cpi": 1.5, "rthroughput": 1.0, "uops": 4})"), "no error");
  std::filesystem::remove(file);
}

// The coverage section: the share is written for the reader and recomputed
// on reading; a model without the section (written by hand) has none; a
// malformed entry (a probability, a recursion's site) is refused naming its path.
// What a probe run binds (probe_bind.h) is read back as written, and a
// measured probability outside 0..1 is an error naming its path.
TEST(ModelRoundtrip, ProbeRunFieldsSurviveAWriteAndARead) {
  ProgramModel m = every_kind();
  m.parameters[1].origin = "probe run: `./app 8` on 2 ranks";
  m.coverage->probe_run = "`./app 8` on 2 ranks";
  m.coverage->guessed_branches[0].probe_probability = 0.3;
  m.coverage->unknown_loops[0].probe_not_reached = true;
  auto file = perfcast::testing::scratch() / "probe.model.json";
  std::ofstream(file) << program_model_json(m).dump(2);
  ProgramModel back = load_program_model(file);
  EXPECT_EQ(back.parameters[1].origin, "probe run: `./app 8` on 2 ranks");
  EXPECT_EQ(back.parameters[0].origin, "");
  EXPECT_EQ(back.coverage->probe_run, "`./app 8` on 2 ranks");
  EXPECT_EQ(back.coverage->guessed_branches[0].probe_probability, 0.3);
  EXPECT_FALSE(back.coverage->unknown_loops[0].probe_trips.has_value());
  EXPECT_TRUE(back.coverage->unknown_loops[0].probe_not_reached);
  auto j = program_model_json(m);
  j["coverage"]["guessed_branches"][0]["probe_probability"] = 2;
  std::ofstream(file) << j.dump(2);
  try {
    load_program_model(file);
    ADD_FAILURE() << "a measured probability of 2 was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/coverage/guessed_branches/0/probe_probability"), std::string::npos)
        << e.what();
  }
  std::filesystem::remove(file);
}

// A call through a pointer: unbound (no function) and bound, its site and
// positional arguments, the callee's arguments by position, the coverage's
// measured targets and candidates; an unbound one without its site is refused.
TEST(ModelRoundtrip, IndirectCallsAndTheirTargetsSurviveAWriteAndARead) {
  ProgramModel m = every_kind();
  CallItem unbound;
  unbound.indirect = true;
  unbound.site = "f.c:12:7";
  unbound.positional_args = {std::nullopt, expr::parse("2 * n")};
  CallItem bound = unbound;
  bound.function = "main";
  m.functions["main"].body.push_back(Item{12, "", unbound});
  m.functions["main"].body.push_back(Item{12, "", bound});
  m.functions["main"].arguments = {"", "n"};
  m.coverage->unresolved_calls.push_back({"indirect", "", "main", "f.c:12"});
  m.coverage->unresolved_calls.back().probe_targets = {{"jacobi", 0.75}, {"libsolve", 0.25}};
  m.coverage->candidate_instructions_priced = {{"jacobi", 12}};
  auto file = perfcast::testing::scratch() / "indirect.model.json";
  std::ofstream(file) << program_model_json(m).dump(2);
  ProgramModel back = load_program_model(file);
  EXPECT_EQ(program_model_json(back).dump(), program_model_json(m).dump());
  const auto& body = back.functions.at("main").body;
  const auto& first = std::get<CallItem>(body[body.size() - 2].body);
  EXPECT_TRUE(first.indirect);
  EXPECT_EQ(first.function, "");
  EXPECT_EQ(first.site, "f.c:12:7");
  ASSERT_EQ(first.positional_args.size(), 2u);
  EXPECT_FALSE(first.positional_args[0].has_value());
  EXPECT_EQ(back.coverage->unresolved_calls.back().probe_targets[1].first, "libsolve");
  EXPECT_EQ(back.coverage->candidate_instructions_priced.at("jacobi"), 12);
  auto j = program_model_json(m);
  j["functions"]["main"]["body"].back().erase("site");
  j["functions"]["main"]["body"].back().erase("function");
  std::ofstream(file) << j.dump(2);
  try {
    load_program_model(file);
    ADD_FAILURE() << "an indirect call without its site was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/site"), std::string::npos) << e.what();
  }
  std::filesystem::remove(file);
}

TEST(ModelRoundtrip, CoverageSection) {
  auto j = program_model_json(every_kind());
  ASSERT_TRUE(j.contains("coverage"));
  EXPECT_EQ(j["coverage"]["priced_share"].get<double>(), 0.75);
  EXPECT_FALSE(j["coverage"]["unresolved_calls"][0].contains("callee"));  // indirect: none
  EXPECT_EQ(j["coverage"]["unresolved_calls"][1]["callee"], "solve");
  ProgramModel m = every_kind();
  m.coverage.reset();
  EXPECT_FALSE(program_model_json(m).contains("coverage"));
  j["coverage"]["guessed_branches"][0]["probability"] = 1.5;
  auto file = perfcast::testing::scratch() / "bad_coverage.model.json";
  std::ofstream(file) << j.dump(2);
  try {
    load_program_model(file);
    ADD_FAILURE() << "a probability of 1.5 was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/coverage/guessed_branches/0/probability"), std::string::npos) << e.what();
  }
  // A recursion's sites of its calls back: strings, each named by its path where one is not.
  EXPECT_EQ(j["coverage"]["unknown_loops"][1]["called_back_at"][0], "every_kind.c:9");
  j["coverage"]["guessed_branches"][0]["probability"] = 0.5;
  j["coverage"]["unknown_loops"][1]["called_back_at"][0] = 9;
  std::ofstream(file) << j.dump(2);
  try {
    load_program_model(file);
    ADD_FAILURE() << "a site of 9 was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/coverage/unknown_loops/1/called_back_at/0"), std::string::npos) << e.what();
  }
  std::filesystem::remove(file);
}

// A polling loop's `polls` and the coverage's polling_loops survive a write
// and a read; `polls` naming no MPI function is refused at its path.
TEST(ModelRoundtrip, PollingLoopsSurviveAWriteAndARead) {
  ProgramModel m = every_kind();
  MpiItem test;
  test.op = perfcast::mpi::Op::Test;
  test.bytes = expr::parse("0");
  LoopItem polling;
  polling.trip_count = expr::parse("1");
  polling.polls = "MPI_Test";
  polling.body.push_back(Item{47, "", test});
  m.functions["main"].body.push_back(Item{46, "", polling});
  m.coverage->polling_loops.push_back({"main", "every_kind.c:46", "main.loop3", "MPI_Test"});
  auto file = perfcast::testing::scratch() / "polling.model.json";
  std::ofstream(file) << program_model_json(m).dump(2);
  ProgramModel back = load_program_model(file);
  EXPECT_EQ(program_model_json(back).dump(), program_model_json(m).dump());
  EXPECT_EQ(std::get<LoopItem>(back.functions.at("main").body.back().body).polls, "MPI_Test");
  ASSERT_EQ(back.coverage->polling_loops.size(), 1u);
  EXPECT_EQ(back.coverage->polling_loops[0].loop, "main.loop3");
  EXPECT_EQ(back.coverage->polling_loops[0].call, "MPI_Test");
  EXPECT_NE(coverage_summary(*back.coverage).find("1 polling loops"), std::string::npos)
      << coverage_summary(*back.coverage);
  auto j = program_model_json(m);
  j["functions"]["main"]["body"].back()["polls"] = "";
  std::ofstream(file) << j.dump(2);
  try {
    load_program_model(file);
    ADD_FAILURE() << "an empty polls was read";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/polls"), std::string::npos) << e.what();
  }
  std::filesystem::remove(file);
}
