// perfcast analyze, one IR pattern per case: each asserts a symbolic count,
// named by the source's variables, evaluated at several sizes.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "analyze/analyze.h"
#include "machine/machine_io.h"
#include "model/costs.h"
#include "model/model_write.h"
#include "model/predict.h"
#include "modelsim/model_simulation.h"
#include "model/program_model.h"
#include "model/later_test.h"
#include "support/error.h"
#include "support/expr.h"
#include "scratch.h"

using namespace perfcast;
namespace fs = std::filesystem;

namespace {

const std::string kSource = PERFCAST_SOURCE_DIR;

// The IR's counts: without MCA, so no machine-code accesses are added
// (AddsTheMachineCodesOwnAccessesWithMca tests those).
nlohmann::ordered_json analyse(const std::string& path, const std::vector<std::string>& flags = {}) {
  analyze::AnalyzeOptions o;
  o.sources = {path};
  o.compile_flags = flags;
  o.mca = false;
  return analyze::analyze(o);
}

nlohmann::ordered_json analyse_case(const std::string& name, const std::vector<std::string>& flags = {}) {
  return analyse(kSource + "/tests/analyze/cases/" + name, flags);
}

model::ProgramModel load(const nlohmann::ordered_json& j, const std::string& name) {
  fs::path file = perfcast::testing::scratch() / (name + ".json");
  std::ofstream(file) << j.dump(2);
  return model::load_program_model(file);
}

// MPI calls of one rank summed by operation ("allreduce" -> calls).
std::map<std::string, double> calls_by_op(const model::RankCounts& c) {
  std::map<std::string, double> calls;
  for (const auto& call : c.mpi) calls[std::string(mpi::name(call.op))] += call.calls;
  return calls;
}

model::RankCounts counts(const model::ProgramModel& m, const std::string& function, expr::Bindings b,
                         int rank = 0, int size = 1) {
  b["rank"] = rank;
  b["size"] = size;
  return model::evaluate_rank(model::symbolic_costs(m, function), b, rank);
}

// The parameters a test does not set (an option loop's trips, argc): their
// default, else an arbitrary 3 (the counts asserted must not depend on them).
void bind_the_rest(const model::ProgramModel& m, expr::Bindings& b) {
  // Those without a default first: a default may name them (a range's, its loop's trips).
  for (const auto& p : m.parameters)
    if (!b.count(p.name) && !p.default_value) b[p.name] = expr::Value(3);
  for (const auto& p : m.parameters)
    if (!b.count(p.name)) b[p.name] = expr::evaluate(*p.default_value, b);
}

}  // namespace

TEST(Analyze, NestedAffineLoopsCountEveryPoint) {
  auto m = load(analyse_case("nested_affine.c"), "nested");
  for (auto [nx, ny] : {std::pair{1, 1}, {3, 5}, {17, 9}, {64, 33}}) {
    auto c = counts(m, "scale", {{"nx", nx}, {"ny", ny}});
    EXPECT_EQ(c.flops_double, 2.0 * nx * ny) << nx << " x " << ny;
    EXPECT_EQ(c.load_bytes, 8.0 * nx * ny) << nx << " x " << ny;
    EXPECT_EQ(c.store_bytes, 8.0 * nx * ny) << nx << " x " << ny;
  }
  EXPECT_EQ(m.functions.at("scale").parameters, (std::vector<std::string>{"nx", "ny"}));
}

TEST(Analyze, TriangularLoopsSumOverTheOuterIndex) {
  auto m = load(analyse_case("triangular.c"), "triangular");
  for (int n : {0, 1, 2, 5, 10, 33, 100}) {
    auto c = counts(m, "outer", {{"n", n}});
    EXPECT_EQ(c.flops_double, n * (n - 1) / 2.0) << "n = " << n;
    EXPECT_EQ(c.store_bytes, 8.0 * n * (n - 1) / 2.0) << "n = " << n;
  }
}

TEST(Analyze, VectorisedLoopsWithRemaindersStayExact) {
  auto m = load(analyse_case("vector_remainder.c"), "vector");
  for (int n = 0; n <= 40; ++n) {
    auto c = counts(m, "saxpy", {{"n", n}});
    EXPECT_EQ(c.flops_single, 2.0 * n) << "n = " << n;
    EXPECT_EQ(c.load_bytes, 8.0 * n) << "n = " << n;
    EXPECT_EQ(c.store_bytes, 4.0 * n) << "n = " << n;
  }
}

TEST(Analyze, CallsBindTheCalleesParameters) {
  auto m = load(analyse_case("calls.c"), "calls");
  EXPECT_EQ(m.functions.at("work").parameters, (std::vector<std::string>{"m"}));
  for (int n : {0, 1, 7, 50}) EXPECT_EQ(counts(m, "driver", {{"n", n}}).flops_double, 3.0 * n + 3) << "n = " << n;
}

// An argument a call may rewrite through a reference (cases/argument_rewritten.cpp):
// read after that call, it is a parameter of its own, not what the caller
// passed (0 here, which the model would divide by).
TEST(Analyze, AnArgumentACallRewritesIsNotTheCallersValue) {
  auto m = load(analyse_case("argument_rewritten.cpp"), "argument_rewritten");
  const auto p = std::find_if(m.parameters.begin(), m.parameters.end(),
                              [](const model::Parameter& q) { return q.name == "grid.npx"; });
  ASSERT_NE(p, m.parameters.end());
  EXPECT_FALSE(p->default_value);
  for (int npx : {1, 2, 4})
    EXPECT_EQ(counts(m, "_Z4gridiii", {{"nx", 64}, {"npx", 0}, {"grid.npx", npx}}).flops_double, 2.0 * (64 / npx))
        << "npx = " << npx;
}

TEST(Analyze, UserLibraryCostsPriceCallsTheAnalysisCannotSee) {
  // my_kernel(n, x) costs 3n flops and 8n bytes loaded per call, by the user's table.
  fs::path table = perfcast::testing::scratch() / "library-costs.json";
  std::ofstream(table) << R"({"functions": {"my_kernel": {"args": ["n", null], "flops_double": "3 * n",
                                                          "load_bytes": "8 * n"}}})";
  analyze::AnalyzeOptions o;
  o.sources = {kSource + "/tests/analyze/cases/library_call.c"};
  o.library_cost_files = {table};
  auto m = load(analyze::analyze(o), "library_call");
  for (int n : {1, 10, 100}) {
    auto c = counts(m, "driver", {{"steps", 7}, {"n", n}});
    EXPECT_EQ(c.flops_double, 7.0 * 3 * n) << "n = " << n;
    EXPECT_EQ(c.load_bytes, 7.0 * 8 * n) << "n = " << n;
  }
}

TEST(Analyze, LibcStringRoutinesOfAParserLeaveNothingToBind) {
  auto j = analyse_case("parse_strings.c");
  std::vector<std::string> library;
  for (const auto& [name, p] : j["parameters"].items())
    if (name.rfind("lib_", 0) == 0) library.push_back(name);
  EXPECT_TRUE(library.empty()) << "parameters for libc calls: " << j["parameters"].dump(1);
  // The memcpy of the item stays: a copy of `len` bytes, len from strcspn.
  EXPECT_FALSE(j["parameters"].empty());
}

TEST(Analyze, RankDependentBranchesAreConditions) {
  auto m = load(analyse_case("rank_branch.c"), "rank");
  for (int n : {1, 10, 99}) {
    EXPECT_EQ(counts(m, "main", {{"n", n}}, 0, 4).flops_double, n);
    EXPECT_EQ(counts(m, "main", {{"n", n}}, 3, 4).flops_double, 0);
  }
}

TEST(Analyze, TheRankAndSizeThroughTheProgramsOwnWrappersAreNotParameters) {
  auto j = analyse_case("rank_wrapper.c");
  for (const auto& [name, p] : j["parameters"].items())
    EXPECT_TRUE(name.find("id") == std::string::npos && name.find("size") == std::string::npos)
        << name << ": " << p.dump();
  auto m = load(j, "rank_wrapper");
  for (int n : {1, 10, 99}) {
    EXPECT_EQ(counts(m, "main", {{"n", n}}, 3, 4).flops_double, n);
    EXPECT_EQ(counts(m, "main", {{"n", n}}, 0, 4).flops_double, 0);
  }
}

TEST(Analyze, TheCountMainHandedToMpiInitIsArgcAfterIt) {
  auto j = analyse_case("init_options.c");
  for (const auto& [name, p] : j["parameters"].items())
    EXPECT_EQ(name.find("argc_p"), std::string::npos) << name << ": " << p.dump();
  // The command line's count, which a probe run binds from main's argc.
  ASSERT_TRUE(j["parameters"].contains("argc")) << j["parameters"].dump(1);
  EXPECT_NE(j["parameters"]["argc"].value("description", "").find("source variable argc of main"), std::string::npos);
}

TEST(Analyze, MpiBytesAreElementsTimesDatatypeSize) {
  auto m = load(analyse_case("datatypes.c"), "datatypes");
  auto c = counts(m, "main", {{"n", 10}}, 1, 4);
  std::vector<double> sends;
  for (const auto& call : c.mpi)
    if (call.op == mpi::Op::Send) {
      sends.push_back(call.bytes_per_call);
      EXPECT_EQ(call.peer, 2);
    }
  EXPECT_EQ(sends, (std::vector<double>{80, 40, 40, 10, 240}));
  bool bcast = false;
  for (const auto& call : c.mpi)
    if (call.op == mpi::Op::Bcast) bcast = call.bytes_per_call == 160;
  EXPECT_TRUE(bcast);
}

TEST(Analyze, TheDatatypeAWrapperIsHandedIsPricedAtEachCallersType) {
  auto j = analyse_case("datatype_wrapper.c");
  for (const auto& [name, p] : j["parameters"].items())
    EXPECT_EQ(name.find("bytes"), std::string::npos) << name << ": " << p.dump();
  auto m = load(j, "datatype_wrapper");
  auto c = counts(m, "main", {{"n", 10}}, 0, 4);
  // The wrapper's one call site: 4 calls of 80, 40, 10 and 160 bytes.
  double reductions = 0, reduced = 0, broadcast = 0;
  for (const auto& call : c.mpi) {
    if (call.op == mpi::Op::Allreduce) reductions += call.calls, reduced += call.calls * call.bytes_per_call;
    if (call.op == mpi::Op::Bcast) broadcast += call.calls * call.bytes_per_call;
  }
  EXPECT_EQ(reductions, 4);
  EXPECT_EQ(reduced, 80 + 40 + 10 + 160);
  EXPECT_EQ(broadcast, 40);
}

TEST(Analyze, APeerAWrapperIsHandedFromMemoryDefaultsToARealNeighbour) {
  auto j = analyse_case("peer_wrapper.c");
  for (const auto& [name, p] : j["parameters"].items())
    if (name != "n") EXPECT_TRUE(p.contains("default")) << name << ": " << p.dump();
  auto m = load(j, "peer_wrapper");
  expr::Bindings b{{"n", 10}, {"rank", 1}, {"size", 4}};
  bind_the_rest(m, b);
  auto c = counts(m, "main", b, 1, 4);
  int sends = 0, receives = 0;
  for (const auto& call : c.mpi) {
    if (call.op != mpi::Op::Isend && call.op != mpi::Op::Irecv) continue;
    (call.op == mpi::Op::Isend ? sends : receives) += static_cast<int>(call.calls);
    ASSERT_TRUE(call.peer.has_value());
    EXPECT_GE(*call.peer, 0) << "a message to no one at line " << call.line;
    EXPECT_LT(*call.peer, 4);
  }
  EXPECT_EQ(sends, 2);
  EXPECT_EQ(receives, 2);
}

TEST(Analyze, TimeLoopBoundedByAGlobalKeepsItsTripCount) {
  auto j = analyse_case("time_loop.c");
  EXPECT_FALSE(j["parameters"].contains("main.loop1.trips")) << j["parameters"].dump();
  auto m = load(j, "time");
  for (auto [steps, n] : {std::pair{1, 1}, {5, 7}, {20, 100}}) {
    auto c = counts(m, "main", {{"steps", steps}, {"n", n}});
    EXPECT_EQ(c.mpi_calls, steps + 2) << "init, finalize and one allreduce per step";  // init + finalize
    EXPECT_EQ(c.flops_double, 2.0 * steps * n);
  }
}

TEST(Analyze, CompileErrorsCarryClangsMessage) {
  fs::path bad = perfcast::testing::scratch() / "bad.c";
  std::ofstream(bad) << "int main(void) { return undeclared_thing; }\n";
  try {
    analyse(bad.string());
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("undeclared_thing"), std::string::npos) << e.what();
  }
}

namespace {

const nlohmann::ordered_json* find_loop(const nlohmann::ordered_json& items, int line) {
  for (const auto& it : items) {
    if (it["kind"] == "loop" && it.value("line", 0) == line) return &it;
    for (const char* side : {"body", "then", "else"})
      if (it.contains(side))
        if (auto* r = find_loop(it[side], line)) return r;
  }
  return nullptr;
}

// The line of the first source line containing `text` (1-based), so tests that
// point at a loop keep pointing at it when the file above it changes.
int line_of(const std::string& path, const std::string& text) {
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  ADD_FAILURE() << "no line of " << path << " contains " << text;
  return 0;
}

}  // namespace

// The analysed wave3d against the hand-written model, over the timed step loop
// (`for (s = 0; s < opt.steps; s++)`) only, which is what the hand model covers. The analysis names the
// block sizes lx, ly, lz and the step count opt.steps (source variables of
// main); they are bound from the hand model's lets. At grid sizes whose blocks
// leave no scalar remainder in the vectorised loops, the flops are exact.
TEST(Analyze, Wave3dStepLoopMatchesTheHandModel) {
  const std::string source = kSource + "/apps/wave3d/wave3d.c";
  auto j = analyse(source);
  const auto* step = find_loop(j["functions"]["main"]["body"], line_of(source, "for (s = 0; s < opt.steps; s++)"));
  ASSERT_NE(step, nullptr);
  EXPECT_EQ((*step)["trip_count"], "opt.steps");
  nlohmann::ordered_json sub = j;
  sub["functions"]["main"]["body"] = nlohmann::ordered_json::array({*step});
  auto analysed = load(sub, "wave3d");
  auto hand = model::load_program_model(kSource + "/apps/wave3d/wave3d.model.json");
  auto hand_costs = model::symbolic_costs(hand);
  auto analysed_costs = model::symbolic_costs(analysed);
  for (int n : {8, 16, 32}) {
    const int ranks = 1;
    auto hb = model::bind_rank(hand, {{"n", n}, {"steps", 5}}, 0, ranks);
    auto h = model::evaluate_rank(hand_costs, hb, 0);
    expr::Bindings b = {{"lx", hb.at("lx")}, {"ly", hb.at("ly")}, {"lz", hb.at("lz")}, {"opt.steps", 5},
                        {"rank", 0}, {"size", ranks}};
    for (int d = 0; d < 3; ++d) b[fmt::format("dims3_{}", d)] = hb.at(fmt::format("dims3_{}", d));
    for (const auto& p : analysed.parameters)
      if (!b.count(p.name))
        b[p.name] = p.default_value                 ? expr::evaluate(*p.default_value, b)
                    : p.name.rfind("opt.n", 0) == 0 ? expr::Value(n)
                    : p.name.rfind("loop_", 0) == 0 || p.name.rfind("c_", 0) == 0 ? expr::Value(0)
                                                    : expr::Value(1);
    auto a = model::evaluate_rank(analysed_costs, b, 0);
    std::cout << "wave3d n=" << n << " step loop, hand vs analysed: flops " << h.flops_double << " / "
              << a.flops_double << ", loads " << h.loads << " / " << a.loads << ", load bytes " << h.load_bytes
              << " / " << a.load_bytes << ", stores " << h.stores << " / " << a.stores << ", store bytes "
              << h.store_bytes << " / " << a.store_bytes << ", mpi calls " << h.mpi_calls << " / " << a.mpi_calls
              << "\n";
    EXPECT_EQ(a.flops_double, h.flops_double) << "n = " << n;
    EXPECT_EQ(a.mpi_calls, h.mpi_calls) << "n = " << n;
  }
}

// `if (rc != 0) { MPI_Finalize(); return rc; }` after an option loop that
// returns early (paths that share the exit's block): the work after it runs
// whenever the program gets there, so it is counted in full, not behind a
// branch that is "reached on some paths".
TEST(Analyze, CodeAfterAnEarlyExitIsCertain) {
  const std::string source = kSource + "/tests/analyze/cases/early_return.c";
  auto j = analyse(source);
  const auto* outer = find_loop(j["functions"]["main"]["body"], line_of(source, "for (int s = 0; s < k; s++)"));
  ASSERT_NE(outer, nullptr);
  EXPECT_EQ((*outer)["trip_count"], "k");
  auto m = load(j, "early");
  for (auto [k, n] : {std::pair{1, 1}, {3, 8}, {7, 33}}) {
    expr::Bindings b = {{"n", n}, {"k", k}};
    bind_the_rest(m, b);
    auto c = counts(m, "main", b);
    EXPECT_EQ(c.flops_double, 2.0 * k * n) << "k = " << k << ", n = " << n;
    EXPECT_EQ(calls_by_op(c)["allreduce"], 1) << "k = " << k << ", n = " << n;
  }
}

// cg's option handling (tests/analyze/cases/early_exit_shared.c): the parser
// loops while `rc == 0`, `--help` returns from inside that loop, and one
// `MPI_Finalize(); return rc;` block serves the parser's failures and the
// later checks, so the work reaches it too. The work is counted in full, and
// only the program's own MPI_Finalize is: not the help path's, not the shared
// failure block's (both were counted before, at 1 and 0.5, with the work
// behind a branch taken half the time in cg).
TEST(Analyze, SharedExitBlocksAndHelpInsideTheParserLoopAreEarlyExits) {
  const std::string source = kSource + "/tests/analyze/cases/early_exit_shared.c";
  auto j = analyse(source);
  auto m = load(j, "early_exit_shared");
  for (auto [k, n] : {std::pair{1, 1}, {3, 8}, {7, 33}}) {
    expr::Bindings b = {{"n", n}, {"k", k}};
    bind_the_rest(m, b);
    auto c = counts(m, "main", b);
    EXPECT_EQ(c.flops_double, 2.0 * k * n) << "k = " << k << ", n = " << n;
    auto calls = calls_by_op(c);
    EXPECT_EQ(calls["allreduce"], 1) << "k = " << k << ", n = " << n;
    EXPECT_EQ(calls["init"], 1);
    EXPECT_EQ(calls["finalize"], 1) << "the help path's and the failure block's are early exits";
  }
}

namespace {

// The first loop (depth first) that carries a footprint.
const nlohmann::ordered_json* outermost_footprint(const nlohmann::ordered_json& items) {
  for (const auto& it : items) {
    if (it["kind"] == "loop" && it.contains("footprint")) return &it;
    for (const char* key : {"body", "then", "else"})
      if (it.contains(key))
        if (const auto* f = outermost_footprint(it[key])) return f;
  }
  return nullptr;
}

double footprint_value(const nlohmann::ordered_json& loop, const char* key, const expr::Bindings& b) {
  return expr::evaluate(expr::parse(loop["footprint"][key].get<std::string>()), b).real();
}

// Every branch of a function's body (and of the loops and branches inside it).
void branches(const nlohmann::ordered_json& items, std::vector<nlohmann::ordered_json>& out) {
  for (const auto& it : items) {
    if (it["kind"] == "branch") out.push_back(it);
    for (const char* side : {"body", "then", "else"})
      if (it.contains(side)) branches(it[side], out);
  }
}

}  // namespace

// A 7-point stencil over the interior of (n+2)^3 grids: u spans from the
// first point's x-neighbour below to the last point's above, up and un from
// the first interior point to the last (the union of the seven sweeps over u,
// not seven times the grid). A gather through an index read from memory
// (x[col[k]]) is bounded by its count: each access distinct.
TEST(Analyze, LoopFootprintsSpanTheStencilsDistinctBytes) {
  auto j = analyse_case("footprint.c");
  const auto* nest = outermost_footprint(j["functions"]["stencil"]["body"]);
  ASSERT_NE(nest, nullptr) << j["functions"]["stencil"].dump(1);
  // From n = 2: at n = 1 the vector loop never runs, and its count reads
  // through a truncation the proof of its guard does not follow; it wraps,
  // and the nest's footprint is refused there, not priced at its low bits.
  for (double n : {2, 3, 5, 16, 40}) {
    double sx = (n + 2) * (n + 2), sy = n + 2;
    auto idx = [&](double i, double jj, double k) { return i * sx + jj * sy + k; };
    double u = 8 * (idx(n + 1, n, n) - idx(0, 1, 1) + 1);  // p - sx at the first point .. p + sx at the last
    double point = 8 * (idx(n, n, n) - idx(1, 1, 1) + 1);  // up and un: the interior's first to last point
    auto whole = [](double v) { return static_cast<std::int64_t>(v); };
    // The source's own names for the strides, as `perfcast model params` lists them.
    expr::Bindings b = {{"n", whole(n)}, {"stencil.sx", whole(sx)}, {"stencil.sy", whole(sy)}};
    // An upper bound, exact up to one row per array: the vector loop's
    // remainder has its start and its count bounded separately.
    double row = 8 * (n + 2);
    auto expect_within_a_row = [&](const char* key, double exact, int arrays) {
      double got = footprint_value(*nest, key, b);
      EXPECT_GE(got, exact) << key << ", n = " << n;
      EXPECT_LE(got, exact + arrays * row) << key << ", n = " << n;
    };
    expect_within_a_row("load_bytes", u + point, 2);
    expect_within_a_row("store_bytes", point, 1);
    expect_within_a_row("bytes", u + 2 * point, 3);
  }
  // gather(m, col, x), unrolled by 4 after a remainder loop: each loop
  // reads its part of col (an interval: 4 bytes an index) and gathers 8 bytes
  // of x per index. m is an argument of gather, not a name of the model, so
  // no range parameter bounds the gather (its default could not say m).
  std::vector<const nlohmann::ordered_json*> gathers;
  for (const auto& it : j["functions"]["gather"]["body"]) {
    std::function<void(const nlohmann::ordered_json&)> walk = [&](const nlohmann::ordered_json& item) {
      if (item["kind"] == "loop") gathers.push_back(&item);
      for (const char* side : {"body", "then", "else"})
        if (item.contains(side))
          for (const auto& c : item[side]) walk(c);
    };
    walk(it);
  }
  ASSERT_EQ(gathers.size(), 2u) << j["functions"]["gather"].dump(1);
  for (const auto& [name, p] : j["parameters"].items())
    EXPECT_EQ(name.rfind("range_", 0), std::string::npos) << name << ": " << p.dump();
  // From m = 1: below 4 the unrolled loop never runs, and its count is that
  // of a run, not 2^62.
  for (std::int64_t m : {1, 3, 4, 7, 100, 1001}) {
    double bytes = 0;
    for (const auto* loop : gathers) {
      ASSERT_TRUE(loop->contains("footprint")) << loop->dump(1);
      EXPECT_EQ(footprint_value(*loop, "store_bytes", {{"m", m}}), 0);
      bytes += footprint_value(*loop, "bytes", {{"m", m}});
    }
    // The remainder's few indices are less than a cache line: counted whole.
    EXPECT_GE(bytes, 12.0 * m) << "m = " << m;
    EXPECT_LE(bytes, 12.0 * m + 64) << "m = " << m;
  }
}

// Address streams per innermost loop (streams.c): every innermost loop of a
// function (the vector loop and its remainder alike) walks the same streams.
TEST(Analyze, InnermostLoopsCountTheirAddressStreams) {
  auto j = analyse_case("streams.c");
  std::function<void(const nlohmann::ordered_json&, std::vector<int>&)> innermost =
      [&](const nlohmann::ordered_json& items, std::vector<int>& out) {
        for (const auto& it : items) {
          bool has_subloop = false;
          std::function<void(const nlohmann::ordered_json&)> find = [&](const nlohmann::ordered_json& inner) {
            for (const auto& x : inner) {
              if (x["kind"] == "loop") has_subloop = true;
              for (const char* side : {"then", "else"})
                if (x.contains(side)) find(x[side]);
            }
          };
          if (it["kind"] == "loop") {
            find(it["body"]);
            if (!has_subloop) out.push_back(it.value("streams", 0));
          }
          for (const char* side : {"body", "then", "else"})
            if (it.contains(side)) innermost(it[side], out);
        }
      };
  for (auto [function, expected] : {std::pair{"triad", 3}, {"neighbours", 3}, {"rows", 5}, {"stencil", 7},
                                    {"gather", 2}}) {
    std::vector<int> found;
    innermost(j["functions"][function]["body"], found);
    ASSERT_FALSE(found.empty()) << function << ": no innermost loop\n" << j["functions"][function].dump(1);
    for (int streams : found) EXPECT_EQ(streams, expected) << function;
  }
}

// A CSR product (csr_rows.c): the rows loop's footprint counts the streams
// val[e] and col[e] (their starts read from rowptr, each entry distinct:
// 12 bytes an entry, exact for CSR), rowptr and y (intervals of the rows),
// and, for the gather x[col[e]], a parameter spmv.loop1.x.range (the
// distinct bytes of x one run of the rows loop reaches) whose default is
// every gather distinct. The entries loops inside count the smaller of their
// gathers and the range.
TEST(Analyze, CsrRowsCountTheirStreamsAndBoundTheGatherByARange) {
  const std::string source = kSource + "/tests/analyze/cases/csr_rows.c";
  auto j = analyse(source);
  int entries_line = line_of(source, "for (int e = a->rowptr[row]");
  ASSERT_GT(entries_line, 0);
  // The rows loop is spmv's first, the entries loop its second.
  std::string trips = "spmv.loop2.trips";
  std::string range = "spmv.loop1.x.range";
  ASSERT_TRUE(j["parameters"].contains(range)) << j["parameters"].dump(1);
  const auto* rows = find_loop(j["functions"]["spmv"]["body"], line_of(source, "for (int row = 0;"));
  ASSERT_NE(rows, nullptr);
  ASSERT_TRUE(rows->contains("footprint")) << rows->dump(1);
  auto m = load(j, "csr_range");
  const auto& parameter = *std::find_if(m.parameters.begin(), m.parameters.end(),
                                        [&](const model::Parameter& p) { return p.name == range; });
  ASSERT_TRUE(parameter.default_value);
  for (std::int64_t n : {1, 10, 37})
    for (std::int64_t t : {0, 1, 5, 7, 9}) {
      expr::Bindings b = {{"a.nrows", n}, {trips, t}};
      EXPECT_EQ(expr::evaluate(*parameter.default_value, b).real(), 8.0 * n * t) << "every gather distinct";
      for (std::int64_t reach : {std::int64_t{800}, 8 * n * t}) {
        b[range] = reach;
        // Fields of *a read in the loop: a few bytes; rowptr: one int a row.
        double streams = 12.0 * n * t, rowptr = 4.0 * n, y = 8.0 * n;
        double load = footprint_value(*rows, "load_bytes", b), bytes = footprint_value(*rows, "bytes", b);
        EXPECT_GE(load, streams + reach + rowptr) << "n " << n << ", t " << t << ", range " << reach;
        EXPECT_LE(load, streams + reach + rowptr + 64) << "n " << n << ", t " << t << ", range " << reach;
        EXPECT_EQ(footprint_value(*rows, "store_bytes", b), y);
        EXPECT_EQ(bytes, load + y) << "n " << n << ", t " << t;
      }
    }
  // The entries loops: the remainder (t mod 4 entries) and the unrolled loop.
  std::vector<const nlohmann::ordered_json*> entries;
  for (const auto& it : (*rows)["body"]) {
    std::function<void(const nlohmann::ordered_json&)> walk = [&](const nlohmann::ordered_json& item) {
      if (item["kind"] == "loop") entries.push_back(&item);
      for (const char* side : {"then", "else"})
        if (item.contains(side))
          for (const auto& c : item[side]) walk(c);
    };
    walk(it);
  }
  ASSERT_EQ(entries.size(), 2u);
  for (std::int64_t t : {1, 5, 8, 9})
    for (std::int64_t reach : {8, 1000}) {
      expr::Bindings b = {{trips, t}, {range, reach}};
      double sum = 0;
      for (const auto* e : entries) sum += footprint_value(*e, "bytes", b);
      // Each gathers at most its count, at most the range: 12 t of streams.
      EXPECT_LE(sum, 12.0 * t + std::min(8.0 * t, 2.0 * reach)) << "t " << t << ", range " << reach;
      EXPECT_GE(sum, 12.0 * t + std::min(8.0 * t, 1.0 * reach)) << "t " << t << ", range " << reach;
    }
}

// Loop bounds and guards read from struct fields (p->n through a pointer, o.reps
// of a local whose address is taken): parameters named after the fields, so the
// unrolled loop and its remainder count exactly and the guards are conditions.
TEST(Analyze, StructFieldsAreParametersOfTheirLoops) {
  auto j = analyse_case("struct_fields.c");
  for (const auto& [name, p] : j["parameters"].items())
    EXPECT_EQ(name.rfind("loop_", 0), std::string::npos) << name << ": " << p.dump();
  EXPECT_TRUE(j["parameters"].contains("o.reps")) << j["parameters"].dump();
  EXPECT_TRUE(j["parameters"].contains("p.n")) << j["parameters"].dump();
  std::vector<nlohmann::ordered_json> bs;
  for (const auto& [name, f] : j["functions"].items()) branches(f["body"], bs);
  for (const auto& b : bs) EXPECT_TRUE(b.contains("condition")) << b.dump();
  auto m = load(j, "struct_fields");
  for (auto [reps, n] : {std::pair{1, 0}, {1, 1}, {3, 7}, {2, 33}, {5, 100}, {0, 10}}) {
    expr::Bindings b = {{"o.reps", reps}, {"p.n", n}};
    bind_the_rest(m, b);
    auto c = counts(m, "main", b);
    // per call: x[i] * y[i] summed (2 n), result += a * s (2)
    EXPECT_EQ(c.flops_double, (2.0 * n + 2) * reps) << "reps = " << reps << ", n = " << n;
    EXPECT_GE(c.load_bytes, 16.0 * n * reps) << "reps = " << reps << ", n = " << n;
    EXPECT_LE(c.load_bytes, 16.0 * n * reps + 64.0 * reps + 64) << "reps = " << reps << ", n = " << n;
  }
}

// A CSR product: the entries loop's count is data (rowptr[row + 1] -
// rowptr[row]); LLVM unrolls it by 4 with a run-time remainder loop, both on
// one source line, behind guards on the same data. One parameter, the entries
// per row T, gives each IR loop its share (T mod 4, T div 4), and the guards
// are "the loop runs" (T > 0), not coin flips.
TEST(Analyze, UnrolledLoopsWithDataBoundsShareTheSourceLoopsCount) {
  const std::string source = kSource + "/tests/analyze/cases/csr_rows.c";
  auto j = analyse(source);
  std::string trips = "spmv.loop2.trips";
  ASSERT_TRUE(j["parameters"].contains(trips)) << j["parameters"].dump();
  EXPECT_TRUE(j["parameters"].contains("a.nrows")) << j["parameters"].dump();
  std::vector<nlohmann::ordered_json> bs;
  branches(j["functions"]["spmv"]["body"], bs);
  for (const auto& b : bs) EXPECT_TRUE(b.contains("condition")) << b.dump();
  auto m = load(j, "csr_rows");
  for (int rows : {0, 1, 10, 37})
    for (int t = 0; t <= 9; ++t) {
      auto c = counts(m, "spmv", {{"a.nrows", rows}, {trips, t}});
      EXPECT_EQ(c.flops_double, 2.0 * rows * t) << "rows = " << rows << ", entries per row = " << t;
      // per entry: val (8) + col (4) + x (8); per row: rowptr and the like
      EXPECT_GE(c.load_bytes, 20.0 * rows * t) << "rows = " << rows << ", entries per row = " << t;
      EXPECT_LE(c.load_bytes, 20.0 * rows * t + 64.0 * rows + 64) << "rows = " << rows << ", t = " << t;
      EXPECT_EQ(c.store_bytes, 8.0 * rows) << "rows = " << rows << ", entries per row = " << t;
    }
}

// The overlap refinement: a receive and a send posted before a compute loop
// and waited for after it. The plain formula adds the message to the loop; the
// model's calls on the simulator hide the shorter behind the longer. Two nodes
// of one core: 1 Gflop/s, memory fast enough not to matter, 1 GB/s network.
TEST(Analyze, PostedMessagesOverlapTheComputeBeforeTheirWait) {
  auto m = load(analyse_case("overlap.c"), "overlap");
  auto machine = machine::load_machine_string(R"(
name = "overlap"
[node]
count = 2
cores = 1
flops_per_core = "1 Gflop/s"
[memory]
DRAM = { bandwidth = "1 TB/s" }
[network]
latency = "1 us"
bandwidth = "1 GB/s"
)",
                                              "overlap.toml");
  // relax: 2 flops per element; the message: 8 bytes per double.
  for (auto [n, doubles] : {std::pair{500'000, 125'000}, {500'000, 250'000}, {1'000'000, 62'500}}) {
    std::map<std::string, expr::Value> params = {{"n", n}, {"m", doubles}};
    double compute = 2.0 * n / 1e9, message = 1e-6 + 8.0 * doubles / 1e9;
    auto plain = model::predict(m, model::symbolic_costs(m), machine, 2, params);
    auto simulated = modelsim::simulate_model(m, machine, 2, params);
    std::cout << "n " << n << ", message " << 8 * doubles << " B: compute " << compute << " s, message " << message
              << " s; plain " << plain.predicted_time_s << " s, simulated " << simulated.predicted_time_s << " s\n";
    EXPECT_NEAR(plain.predicted_time_s, compute + message, 0.02 * (compute + message));
    EXPECT_NEAR(simulated.predicted_time_s, std::max(compute, message), 0.02 * std::max(compute, message));
  }
}

// What the ranks of a node share, priced with the ranks computing at the
// moment: rank 0 streams through 8n bytes while the other three wait at a
// barrier (imbalance.c), so on the simulator its loop has the node's DRAM to
// itself (a = 1: 10 GB/s); built with -DBALANCED all four stream at once
// (a = 4: 2.5 GB/s each). predict without --simulate assumes every rank on
// the node computes together: a = 4 for both. One node of 4 cores; flops and
// L1 fast enough that the traffic sets each loop's time.
TEST(Analyze, SimulatedBurstsShareTheNodeWithTheRanksComputingThen) {
  auto node = [](const std::string& busy, const std::string& dram) {
    return machine::load_machine_string(R"(
name = "shared-dram"
[node]
count = 1
cores = 4
flops_per_core = "1000 Gflop/s"
)" + busy + R"(
[memory]
L1 = { size = "32 KiB", bandwidth = "10 TB/s" }
DRAM = { bandwidth = "10 GB/s", )" + dram + R"( }
[network]
latency = "1 us"
bandwidth = "10 GB/s"
)",
                                        "shared-dram.toml");
  };
  const int np = 4;
  const std::int64_t n = 100'000'000;
  const std::map<std::string, expr::Value> params = {{"n", n}};
  const double alone_s = 8.0 * n / 10e9, four_s = 8.0 * n / 2.5e9;  // 0.08 s and 0.32 s
  // The rest of main and the loop's flops are far below the tolerance.
  const double tolerance = 1e-3;
  auto imbalanced = load(analyse_case("imbalance.c"), "imbalance");
  auto balanced = load(analyse_case("imbalance.c", {"-DBALANCED"}), "balance");

  // A table of what each core gets at 1 and 4 streaming, or the node's
  // bandwidth shared (min(10 GB/s, 10 GB/s / a)): the same a = 1 and a = 4.
  for (const char* dram : {R"(bandwidth_by_cores = { cores = [1, 4], per_core = ["10 GB/s", "2.5 GB/s"] })",
                           R"(node_bandwidth = "10 GB/s")"}) {
    SCOPED_TRACE(dram);
    const auto shared = node("busy_slowdown = 1.5", dram);
    const auto lone = modelsim::simulate_model(imbalanced, shared, np, params);
    const auto all = modelsim::simulate_model(balanced, shared, np, params);
    std::cout << dram << ": rank 0 alone expected " << alone_s << " s, simulated calc " << lone.ranks[0].calc_s
              << " s; all four expected " << four_s << " s, simulated calc " << all.ranks[0].calc_s << " s\n";
    EXPECT_NEAR(lone.ranks[0].calc_s, alone_s, tolerance * alone_s);
    for (int r = 1; r < np; ++r) EXPECT_LT(lone.ranks[r].calc_s, tolerance * alone_s) << "rank " << r << " waits";
    EXPECT_NEAR(lone.predicted_time_s, alone_s, tolerance * alone_s);
    for (int r = 0; r < np; ++r) EXPECT_NEAR(all.ranks[r].calc_s, four_s, tolerance * four_s) << "rank " << r;

    // predict without --simulate: every rank on the node computes at once.
    const auto plain = model::predict(imbalanced, model::symbolic_costs(imbalanced), shared, np, params);
    EXPECT_EQ(plain.ranks[0].ranks_on_node, np);
    EXPECT_NEAR(plain.ranks[0].refined_time_s - plain.ranks[0].refined_comm_s, four_s, tolerance * four_s);
  }

  // Without busy_slowdown or a table, the simulator takes a = every rank
  // placed on the node, as predict does and as before the keys existed.
  const auto unmeasured = node("", R"(node_bandwidth = "10 GB/s")");
  const auto lone = modelsim::simulate_model(imbalanced, unmeasured, np, params);
  EXPECT_NEAR(lone.ranks[0].calc_s, four_s, tolerance * four_s);
}

// With MCA on, the machine code's own accesses (constant-pool reads, register
// spills and reloads: what callgrind counts and the IR does not have) join the
// counts as items of their own: the IR's 8 bytes per element stay, whole
// 8-byte accesses per iteration are added, each said to come from machine code.
// constant_pool.c's loop has more constants than registers, so it reads some
// from the constant pool every iteration whatever the register allocation.
TEST(Analyze, AddsTheMachineCodesOwnAccessesWithMca) {
  analyze::AnalyzeOptions o;
  o.sources = {kSource + "/tests/analyze/cases/constant_pool.c"};
  o.mcpu = "znver3";
  auto j = analyze::analyze(o);
  std::vector<nlohmann::ordered_json> machine_items;
  std::function<void(const nlohmann::ordered_json&)> walk = [&](const nlohmann::ordered_json& items) {
    for (const auto& it : items) {
      if (it.contains("note") && it["note"].get<std::string>().rfind("machine code:", 0) == 0)
        machine_items.push_back(it);
      for (const char* side : {"body", "then", "else"})
        if (it.contains(side)) walk(it[side]);
    }
  };
  walk(j["functions"]["poly"]["body"]);
  ASSERT_FALSE(machine_items.empty()) << j["functions"]["poly"].dump(1);
  auto m = load(j, "machine");
  for (int n : {5, 17, 64}) {
    auto c = counts(m, "poly", {{"n", n}});
    EXPECT_GT(c.load_bytes, 8.0 * n) << "n = " << n;
    EXPECT_EQ(std::fmod(c.load_bytes - 8.0 * n, 8.0), 0.0) << "n = " << n;
    EXPECT_EQ(c.store_bytes, 8.0 * n) << "n = " << n;  // the stores are the IR's
    EXPECT_EQ(c.flops_double, 46.0 * n) << "n = " << n;
  }
}

// The model's writer (model_write.h) writes what the analyser writes: its
// model, read and written again, is the same text (without MCA, whose loop
// figures for the reader the model does not keep). Sources with every item
// kind: calls with arguments, conditions and probabilities, MPI peers and
// roots, footprints and streams, library calls.
TEST(Analyze, TheModelWriterWritesWhatTheAnalyserWrites) {
  for (const std::string source : {"/tests/analyze/cases/calls.c", "/tests/analyze/cases/rank_branch.c",
                                   "/tests/analyze/cases/csr_rows.c", "/tests/analyze/cases/cart_halo.c",
                                   "/tests/analyze/cases/library_call.c", "/apps/wave3d/wave3d.c"}) {
    auto j = analyse(kSource + source);
    auto m = load(j, fs::path(source).stem().string() + "_rewritten");
    // The analyser writes a count of merged compute items that sums to 0 as
    // "0" (it tests the sum before simplifying it); the model holds 0, which
    // goes unwritten.
    std::function<void(nlohmann::ordered_json&)> drop_zero_counts = [&](nlohmann::ordered_json& items) {
      for (auto& it : items) {
        if (it["kind"] == "compute")
          for (const char* key : {"flops_double", "flops_single", "loads", "stores", "load_bytes", "store_bytes"})
            if (it.contains(key) && it[key] == "0") it.erase(key);
        for (const char* side : {"body", "then", "else"})
          if (it.contains(side)) drop_zero_counts(it[side]);
      }
    };
    for (auto& [name, f] : j["functions"].items()) drop_zero_counts(f["body"]);
    EXPECT_EQ(model::program_model_json(m).dump(2), j.dump(2)) << source;
  }
}

// The debug option adds the analysis's reasoning to the progress lines (a loop
// without a trip count and what ScalarEvolution said of it, each priced loop's
// machine code) and leaves the model as it is; without it, neither is said.
TEST(Analyze, DebugOptionReportsTheReasoningAndKeepsTheModel) {
  auto dir = perfcast::testing::scratch() / "debug";
  fs::create_directories(dir);
  auto source = dir / "converge.c";
  std::ofstream(source) << R"(#include <mpi.h>
double a[1000];
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  double r = 1;
  int it = 0;
  while (r > 1e-6) { r *= a[it % 1000] + 0.5; it++; }
  for (int i = 0; i < 1000; i++) a[i] = 2.0 * a[i] + r;
  MPI_Finalize();
  return (int)a[3] + it;
}
)";
  auto run = [&](bool debug, std::vector<std::string>& lines) {
    analyze::AnalyzeOptions o;
    o.sources = {source};
    o.mcpu = "znver3";
    o.debug = debug;
    o.progress = [&](const std::string& line) { lines.push_back(line); };
    return analyze::analyze(o);
  };
  auto said = [](const std::vector<std::string>& lines, const std::string& start) {
    return std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(start, 0) == 0; });
  };
  std::vector<std::string> quiet, debug;
  auto plain = run(false, quiet);
  auto debugged = run(true, debug);
  EXPECT_EQ(plain.dump(), debugged.dump());
  EXPECT_EQ(said(quiet, "no trip count for the loop at line 7"), 0);
  EXPECT_EQ(said(quiet, "MCA: loop at line"), 0);
  EXPECT_GE(said(debug, "no trip count for the loop at line 7"), 1);
  EXPECT_GE(said(debug, "MCA: loop at line 8"), 1);
  fs::remove_all(dir);
}

namespace {

// What MPI_Cart_shift(cart, d, 1, &nbr[2d], &nbr[2d + 1]) gives `rank` on the
// grid of MPI_Cart_create over MPI_Dims_create(size, 3) with every dimension
// free, by hand: the rank's coordinates in row-major order (the last
// dimension varies fastest), one step down (nbr[2d]) and up (nbr[2d + 1])
// along each dimension; off the grid -1 (MPI_PROC_NULL) unless the dimension
// wraps around.
std::vector<long long> cart_neighbours(int rank, int size, std::array<bool, 3> periodic) {
  auto dims = model::dims_create(size, 3);
  const int coord[3] = {rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
  std::vector<long long> nbr;
  for (int d = 0; d < 3; ++d)
    for (int step : {-1, 1}) {
      int c[3] = {coord[0], coord[1], coord[2]};
      c[d] += step;
      if (c[d] < 0 || c[d] >= dims[d]) {
        if (!periodic[d]) {
          nbr.push_back(-1);
          continue;
        }
        c[d] = (c[d] + dims[d]) % dims[d];
      }
      nbr.push_back((c[0] * dims[1] + c[1]) * dims[2] + c[2]);
    }
  return nbr;
}

// The peers of one rank's calls of `op` in program order, per run of the
// code (`runs` times the calls each site makes: the step loop's count), as
// `perfcast predict` evaluates them: parameters by their defaults unless given.
std::vector<long long> peers_of(const model::ProgramModel& m, const std::string& op, int rank, int size,
                                const std::map<std::string, expr::Value>& params, int runs) {
  auto c = model::evaluate_rank(model::symbolic_costs(m), model::bind_rank(m, params, rank, size), rank);
  std::vector<long long> out;
  for (const auto& call : c.mpi)
    if (mpi::name(call.op) == op)
      for (int k = 0; k < static_cast<int>(call.calls) / runs; ++k) out.push_back(call.peer.value_or(-99));
  return out;
}

// Every rank's sends have a matching receive: rank r sends to s exactly as
// often as s receives from r.
void expect_paired(const model::ProgramModel& m, int size, const std::map<std::string, expr::Value>& params) {
  std::map<std::pair<long long, long long>, int> sent, received;
  for (int r = 0; r < size; ++r) {
    for (long long p : peers_of(m, "isend", r, size, params, 1))
      if (p >= 0) ++sent[{r, p}];
    for (long long p : peers_of(m, "irecv", r, size, params, 1))
      if (p >= 0) ++received[{p, r}];
  }
  EXPECT_EQ(sent, received) << size << " ranks";
}

// At 1, 2, 8 and 12 ranks, every rank's receives and sends (the face loop's,
// `runs` times each) go to MPI_Cart_shift's neighbours, face by face, and
// the sends pair up with the receives.
void expect_cart_peers(const model::ProgramModel& m, const std::map<std::string, expr::Value>& params, int runs,
                       std::array<bool, 3> periodic) {
  for (int size : {1, 2, 8, 12}) {
    for (int rank = 0; rank < size; ++rank) {
      auto expected = cart_neighbours(rank, size, periodic);
      EXPECT_EQ(peers_of(m, "irecv", rank, size, params, runs), expected) << "rank " << rank << " of " << size;
      EXPECT_EQ(peers_of(m, "isend", rank, size, params, runs), expected) << "rank " << rank << " of " << size;
    }
    expect_paired(m, size, params);
  }
}

const char* kTwoNodes = R"(
name = "two"
[node]
count = 2
cores = 8
flops_per_core = "1 Gflop/s"
[memory]
DRAM = { bandwidth = "10 GB/s" }
[network]
latency = "1 us"
bandwidth = "1 GB/s"
)";

}  // namespace

// The six receives and six sends of an unrolled face loop read their peers
// from nbr[f], which MPI_Cart_shift wrote. With every dimension left to
// MPI_Dims_create (dims = {0, 0, 0}) and periods, direction and displacement
// constants, each peer is the neighbour's rank itself, an expression of rank
// and the grid (dims3_0 x dims3_1 x dims3_2): no parameter to bind.
TEST(Analyze, CartesianNeighboursAreThePeersOfAnUnrolledFaceLoop) {
  auto j = analyse_case("cart_halo.c");
  for (int f = 0; f < 6; ++f)
    EXPECT_FALSE(j["parameters"].contains(fmt::format("nbr_{}", f))) << j["parameters"].dump(1);
  for (const auto& [name, p] : j["parameters"].items())
    EXPECT_EQ(name.find("_peer"), std::string::npos) << name << ": " << p.dump();
  auto m = load(j, "cart_halo");
  const std::map<std::string, expr::Value> params = {{"steps", 3}, {"m", 100}};
  expect_cart_peers(m, params, 3, {false, false, false});
  // The streams pair up on the simulator too (a deadlock would throw).
  auto machine = machine::load_machine_string(kTwoNodes, "two.toml");
  for (int size : {2, 8, 12}) EXPECT_NO_THROW(modelsim::simulate_model(m, machine, size, params)) << size;
}

TEST(Analyze, PeriodicCartesianNeighboursWrapAround) {
  auto m = load(analyse_case("cart_halo.c", {"-DPERIODIC"}), "cart_halo_periodic");
  const std::map<std::string, expr::Value> params = {{"steps", 1}, {"m", 100}};
  expect_cart_peers(m, params, 1, {true, false, true});
}

// When the code may fix some dims before MPI_Dims_create (from its command
// line, as wave3d's --px/--py/--pz), the neighbours are not proven: each
// element of nbr is a parameter of its own (nbr_0 ... nbr_5), read by both
// the receive and the send of its face, whose default is the neighbour with
// every dimension free, and whose description says so.
TEST(Analyze, CartesianNeighboursOfDimsTheCodeMayFixAreParametersWithDefaults) {
  auto j = analyse_case("cart_halo.c", {"-DGIVEN_DIMS"});
  for (int f = 0; f < 6; ++f) {
    std::string name = fmt::format("nbr_{}", f);
    ASSERT_TRUE(j["parameters"].contains(name)) << j["parameters"].dump(1);
    const auto& p = j["parameters"][name];
    std::string description = p["description"];
    for (const char* words : {"MPI_Cart_shift", "MPI_Irecv", "MPI_Isend", "chose every dimension"})
      EXPECT_NE(description.find(words), std::string::npos) << name << ": " << description;
    EXPECT_NE(description.find(fmt::format("nbr[{}]", f)), std::string::npos) << description;
    ASSERT_TRUE(p.contains("default")) << p.dump();
  }
  auto m = load(j, "cart_halo_given");
  std::map<std::string, expr::Value> params = {{"steps", 1}, {"m", 100}};
  for (const auto& p : m.parameters)
    if (!p.default_value && !params.count(p.name)) params[p.name] = 3;  // argc: no dims given
  expect_cart_peers(m, params, 1, {false, false, false});
  // A bound value replaces the default for both calls of its face.
  auto bound = params;
  bound["nbr_1"] = -1;
  EXPECT_EQ(peers_of(m, "isend", 0, 2, bound, 1), (std::vector<long long>{-1, -1, -1, -1, -1, -1}));
}

// wave3d's halo exchange (wave3d.c: halo_exchange's face loops, unrolled):
// its dims hold --px/--py/--pz before MPI_Dims_create, so the six neighbours
// are parameters nbr_0 ... nbr_5 whose defaults are MPI_Cart_shift's
// neighbours with every dimension free (no --px/--py/--pz).
TEST(Analyze, Wave3dHaloPeersAreTheCartesianNeighbours) {
  const std::string source = kSource + "/apps/wave3d/wave3d.c";
  auto j = analyse(source);
  for (int f = 0; f < 6; ++f)
    EXPECT_TRUE(j["parameters"].contains(fmt::format("nbr_{}", f))) << j["parameters"].dump(1);
  const auto* step = find_loop(j["functions"]["main"]["body"], line_of(source, "for (s = 0; s < opt.steps; s++)"));
  ASSERT_NE(step, nullptr);
  nlohmann::ordered_json sub = j;
  sub["functions"]["main"]["body"] = nlohmann::ordered_json::array({*step});
  auto m = load(sub, "wave3d_halo");
  std::map<std::string, expr::Value> params;
  auto trips = [](const std::string& name) { return name.size() > 6 && name.compare(name.size() - 6, 6, ".trips") == 0; };
  for (const auto& p : m.parameters)
    if (!p.default_value) params[p.name] = trips(p.name) ? 0 : 4;
  params["opt.steps"] = 1;  // one step (the source's default is 20)
  expect_cart_peers(m, params, 1, {false, false, false});
}

// nbr[0] and nbr[1] hold ranks the code stored (a chain; Open MPI's
// MPI_PROC_NULL is -2) and LLVM reads back from memory, because it takes
// MPI_Cart_shift's write of nbr[2] and nbr[3] for a write of the array: their
// peers are the stored expressions. nbr[2] and nbr[3] are the neighbours
// along the second dimension of a 2-d grid (dims2_0 x dims2_1).
TEST(Analyze, PeersStoredInALocalArrayAreTheirValues) {
  auto j = analyse_case("stored_peers.c");
  for (const auto& [name, p] : j["parameters"].items()) EXPECT_EQ(name, "m") << p.dump();
  auto m = load(j, "stored_peers");
  const std::map<std::string, expr::Value> params = {{"m", 10}};
  for (int size : {1, 2, 6, 12}) {
    auto dims = model::dims_create(size, 2);
    for (int rank = 0; rank < size; ++rank) {
      const int column = rank % dims[1];
      std::vector<long long> expected = {rank > 0 ? rank - 1 : -1, rank < size - 1 ? rank + 1 : -1,
                                         column > 0 ? rank - 1 : -1, column < dims[1] - 1 ? rank + 1 : -1};
      for (const char* op : {"irecv", "isend"}) {
        auto peers = peers_of(m, op, rank, size, params, 1);
        for (auto& p : peers) p = std::max(p, -1LL);  // every negative peer is MPI_PROC_NULL
        EXPECT_EQ(peers, expected) << op << ", rank " << rank << " of " << size;
      }
    }
    expect_paired(m, size, params);
  }
}

// A search that breaks out of its outer loop after an inner loop: the branch
// to the break's exit (a block of no loop, or of another loop) is no guard of
// a loop inside. The analysis finishes, and the loop after the search counts
// its points in full: 2 flops each and the final `s + found` once
// (search_then_scale), or 1 flop a point each step (search_in_steps); the
// loop on the break's path of a search inside a data-dependent branch runs
// at most once (search_marked, which crashed the analysis).
TEST(Analyze, ASearchThatBreaksAfterAnInnerLoopIsAnalysed) {
  auto m = load(analyse_case("search_break.c"), "search_break");
  for (auto [steps, n] : {std::pair{1, 1}, {3, 8}, {5, 100}}) {
    expr::Bindings b = {{"n", n}, {"m", 4}, {"steps", steps}};
    bind_the_rest(m, b);
    EXPECT_EQ(counts(m, "search_then_scale", b).flops_double, 2.0 * n + 1) << "n = " << n;
    EXPECT_EQ(counts(m, "search_in_steps", b).flops_double, 1.0 * steps * n) << "steps = " << steps << ", n = " << n;
    double marked = counts(m, "search_marked", b).flops_double;
    EXPECT_GE(marked, 0) << "n = " << n;
    EXPECT_LE(marked, 4) << "n = " << n << ": the loop on the break's path runs once, m = 4";
  }
}

// `if (size > 128) { MPI_Finalize(); exit(1); }` before the work (exit is
// noreturn: `unreachable` follows it), and the same check inside a called
// function whose `return 1` makes the caller finalise and return: the work
// after the check, in a function of its own or in main, is counted in full
// at sizes the check lets through, not cut off at the check.
TEST(Analyze, WorkAfterAnExitGuardIsCounted) {
  for (auto [source, flags] : {std::pair<const char*, std::vector<std::string>>{"exit_guard.c", {}},
                               {"exit_guard.c", {"-DINLINE_WORK"}},
                               {"callee_guard.c", {}}}) {
    auto m = load(analyse_case(source, flags), source);
    for (auto [k, n] : {std::pair{1, 1}, {3, 8}, {7, 33}})
      for (int size : {1, 4, 128}) {
        expr::Bindings b = {{"n", n}, {"k", k}};
        bind_the_rest(m, b);
        auto c = counts(m, "main", b, 0, size);
        EXPECT_EQ(c.flops_double, 2.0 * k * n) << source << ": k = " << k << ", n = " << n << ", size " << size;
        auto calls = calls_by_op(c);
        EXPECT_EQ(calls["allreduce"], 1) << source << ", size " << size;
        EXPECT_EQ(calls["finalize"], 1) << source << ", size " << size;
      }
  }
}

// A call to a function not yet declared (C89's implicit declaration), which
// GCC builds with a warning and clang 16+ rejects by default, is analysed like
// any call: the callee's loop counts.
TEST(Analyze, ACallBeforeItsDeclarationIsAnalysedAsItsCompilerWouldBuildIt) {
  auto m = load(analyse_case("implicit_declaration.c"), "implicit_declaration");
  for (int argc : {1, 2}) {
    expr::Bindings b = {{"argc", argc}};
    bind_the_rest(m, b);
    auto c = counts(m, "main", b, 0, 2);
    EXPECT_EQ(c.flops_double, 2.0 * (argc > 1 ? 1000 : 10)) << "argc = " << argc;
    EXPECT_EQ(calls_by_op(c)["allreduce"], 1);
  }
}

// waxpby with pointers that may alias: the vectoriser's overlap check leads
// either to the vector loop or straight to the scalar loop (a block LLVM
// names as it likes once it optimises). The check is read on its passing
// side: the vector loop and its scalar remainder do the n points, 3 flops
// each, for sizes that fill the vectors exactly and those that do not. The
// scalar remainder is itself unrolled by 2 after a one-iteration prologue
// taken when n is odd: its start is the index after that prologue, an
// expression of n (never the source variable `i`, whose value there is a
// moment of the loop), so every n counts exactly, whatever else is bound.
TEST(Analyze, TheVectorisersOverlapCheckPassesWhateverItsBlocksAreNamed) {
  auto m = load(analyse_case("waxpby.c"), "waxpby");
  for (const auto& p : m.parameters) EXPECT_NE(p.name, "waxpby.i");
  std::vector<int> sizes = {8000, 8001, 8002, 8003, 8005};
  for (int n = 0; n <= 20; ++n) sizes.push_back(n);
  for (int n : sizes)
    for (int unbound : {0, 1000}) {
      expr::Bindings b = {{"n", n}};
      for (const auto& p : m.parameters)
        if (!b.count(p.name)) b[p.name] = unbound;
      auto c = counts(m, "waxpby", b);
      EXPECT_EQ(c.flops_double, 3.0 * n) << "n = " << n;
      EXPECT_EQ(c.load_bytes, 16.0 * n) << "n = " << n;
      EXPECT_EQ(c.store_bytes, 8.0 * n) << "n = " << n;
    }
}

// An option field selects a kernel inside the iteration loop, right after a
// loop over the rows (option_kernel.c, cg's preconditioner choice). clang-19
// copies that test into each way past the loop (run or skipped), so the side
// the copies share (the plain dot product) has no single branch deciding it:
// its condition is that of the paths reaching it, o.precond != 1, never a
// guessed probability. Per iteration: 2 flops for alpha, 2 n for the update;
// with o.precond == 1 n for the scaled copy, two dot products (2 n and one
// allreduce each) and their sum; else one dot product.
TEST(Analyze, AnOptionTestTheOptimiserCopiedKeepsItsCondition) {
  const std::string source = kSource + "/tests/analyze/cases/option_kernel.c";
  auto j = analyse(source);
  // The option parser's tests are data; every branch of the solve is a condition.
  std::vector<nlohmann::ordered_json> bs;
  for (const auto& [name, f] : j["functions"].items()) branches(f["body"], bs);
  for (const auto& b : bs)
    if (b["line"].get<int>() >= line_of(source, "for (int k = 0; k < o->iters; k++)"))
      EXPECT_FALSE(b.contains("guess")) << b.dump();
  auto m = load(j, "option_kernel");
  for (int precond : {0, 1, 2})
    for (auto [iters, n] : {std::pair{1, 0}, {1, 1}, {3, 7}, {20, 1000}, {0, 10}}) {
      // argc: a run given its three options (`--iters I --precond P --n N`);
      // p.n: the rows as dot reads them through its pointer.
      expr::Bindings b = {{"argc", 7}, {"o.iters", iters}, {"o.precond", precond}, {"o.n", n}, {"p.n", n}};
      bind_the_rest(m, b);
      auto c = counts(m, "main", b);
      double per_iteration = precond == 1 ? 7.0 * n + 3 : 4.0 * n + 2;
      EXPECT_EQ(c.flops_double, per_iteration * iters) << "precond " << precond << ", " << iters << " x " << n;
      EXPECT_EQ(calls_by_op(c)["allreduce"], (precond == 1 ? 2 : 1) * iters)
          << "precond " << precond << ", " << iters << " x " << n;
    }
}

// `if (rank < size - 1) MPI_Send(..., rank + 1, ...)` and `if (rank > 0)
// MPI_Recv(..., rank - 1, ...)`: the last rank's send and the first rank's
// receive are on paths those ranks do not take, so their peers (size, -1)
// are never addressed. predict and the simulator accept every size; each
// rank sends and receives k messages where its branch is taken, none where not.
TEST(Analyze, NeighbourSendsBehindRankChecksArePredictedAtEverySize) {
  auto m = load(analyse_case("neighbour_chain.c"), "neighbour_chain");
  auto machine = machine::load_machine_string(kTwoNodes, "two.toml");
  const int k = 3;
  std::map<std::string, expr::Value> params = {{"k", k}};
  for (const auto& p : m.parameters)
    if (!params.count(p.name) && !p.default_value) params[p.name] = 3;
  for (int size : {1, 2, 4}) {
    model::Prediction p;
    ASSERT_NO_THROW(p = model::predict(m, model::symbolic_costs(m), machine, size, params)) << size << " ranks";
    ASSERT_EQ(p.ranks.size(), static_cast<size_t>(size));
    for (int rank = 0; rank < size; ++rank) {
      auto calls = calls_by_op(p.ranks[rank].counts);
      EXPECT_EQ(calls["send"], rank < size - 1 ? k : 0) << "rank " << rank << " of " << size;
      EXPECT_EQ(calls["recv"], rank > 0 ? k : 0) << "rank " << rank << " of " << size;
      EXPECT_EQ(p.ranks[rank].counts.messages, rank < size - 1 ? k : 0) << "rank " << rank << " of " << size;
    }
    EXPECT_NO_THROW(modelsim::simulate_model(m, machine, size, params)) << size << " ranks";
  }
}

// Peers the code does not compute (unknown_peers.c: a file lists them): each
// call's peer parameter defaults to a ring, a send to the next rank and a
// receive from the one before, so the defaults simulate at every size, each
// rank receiving and sending k x n messages (with both at the next rank the
// simulator found no sender for any receive from 3 ranks up).
TEST(Analyze, PeersTheCodeDoesNotComputeDefaultToARingThatSimulatesAtEverySize) {
  auto m = load(analyse_case("unknown_peers.c"), "unknown_peers");
  auto machine = machine::load_machine_string(kTwoNodes, "two.toml");
  const int k = 3;
  std::map<std::string, expr::Value> params;
  std::map<std::string, expr::Expr> peer_defaults;
  for (const auto& p : m.parameters) {
    if (p.name.ends_with(".peer") && p.default_value)
      peer_defaults.emplace(p.name, *p.default_value);
    else if (!p.default_value)
      params[p.name] = k;
  }
  ASSERT_EQ(peer_defaults.size(), 2u);
  ASSERT_TRUE(peer_defaults.count("main.MPI_Irecv1.peer"));
  ASSERT_TRUE(peer_defaults.count("main.MPI_Send1.peer"));
  for (int size : {2, 3, 4}) {
    for (int rank = 0; rank < size; ++rank) {
      expr::Bindings b = {{"rank", rank}, {"size", size}};
      EXPECT_EQ(expr::evaluate(peer_defaults.at("main.MPI_Irecv1.peer"), b).integer(), (rank + size - 1) % size);
      EXPECT_EQ(expr::evaluate(peer_defaults.at("main.MPI_Send1.peer"), b).integer(), (rank + 1) % size);
    }
    model::Prediction p;
    ASSERT_NO_THROW(p = model::predict(m, model::symbolic_costs(m), machine, size, params)) << size << " ranks";
    for (int rank = 0; rank < size; ++rank) {
      auto calls = calls_by_op(p.ranks[rank].counts);
      EXPECT_EQ(calls["send"], k * k) << "rank " << rank << " of " << size;  // n and the list's trips bound to k too
      EXPECT_EQ(calls["irecv"], k * k) << "rank " << rank << " of " << size;
    }
    EXPECT_NO_THROW(modelsim::simulate_model(m, machine, size, params)) << size << " ranks";
  }
}

// C++: the unwind side of a call that may throw (an `invoke`) is taken only
// when the callee throws: priced at probability 0, not as one of two ways.
TEST(Analyze, TheUnwindSideOfACallThatMayThrowIsNotTaken) {
  auto m = load(analyse_case("may_throw.cpp"), "may_throw");
  // The loop may also leave by an exception it does not catch, so its count
  // is a parameter of its own: bound to n, the iterations of a normal run.
  for (int n : {0, 1, 10, 1000}) {
    expr::Bindings b = {{"n", n}};
    for (const auto& p : m.parameters)
      if (!b.count(p.name)) b[p.name] = n;
    EXPECT_EQ(counts(m, "_Z11sum_checkediPKd", b).flops_double, 2.0 * n) << n;
  }
}

// A sum whose address goes to MPI (sum_in_memory.c) is stored to the stack
// each iteration: the IR's store is counted, and with MCA on the machine
// code's store to the same stack slot is not counted a second time as a
// spill. Per element and step: 16 bytes loaded, 8 stored.
TEST(Analyze, AStackVariableTheIrStoresIsNotCountedAgainAsASpill) {
  analyze::AnalyzeOptions o;
  o.sources = {kSource + "/tests/analyze/cases/sum_in_memory.c"};
  o.mcpu = "znver3";
  auto m = load(analyze::analyze(o), "sum_in_memory");
  for (int steps : {1, 3}) {
    auto at = [&](int n) {
      expr::Bindings b = {{"n", n}, {"steps", steps}};
      bind_the_rest(m, b);
      return counts(m, "main", b);
    };
    auto small = at(100), large = at(1100);
    EXPECT_EQ(large.store_bytes - small.store_bytes, 8.0 * 1000 * steps) << "steps = " << steps;
    EXPECT_EQ(large.load_bytes - small.load_bytes, 16.0 * 1000 * steps) << "steps = " << steps;
  }
}

namespace {

std::set<std::string> parameter_names(const nlohmann::ordered_json& j) {
  std::set<std::string> names;
  for (const auto& [name, _] : j["parameters"].items()) names.insert(name);
  return names;
}

}  // namespace

// Parameter names come from the source's names and the order of the loops in
// their function, never from lines: two analyses of one source agree, and an
// edit above the loops (blank lines, a comment, an unrelated function) renames
// nothing. Loops with data-dependent exits are <function>.loop<k>.trips.
TEST(Analyze, ParameterNamesStayWhenLinesMove) {
  const std::string source = kSource + "/tests/analyze/cases/stable_names.c";
  auto first = parameter_names(analyse(source));
  EXPECT_EQ(parameter_names(analyse(source)), first);
  for (const char* expected : {"parse.loop1.trips", "until_zero.loop1.trips", "o.n", "o.steps", "argc"})
    EXPECT_TRUE(first.count(expected)) << expected << " not among " << ::testing::PrintToString(first);
  for (const auto& name : first)
    EXPECT_EQ(name.find_first_of("0123456789", name.find("loop") == std::string::npos ? 0 : name.find("loop") + 5),
              std::string::npos)
        << name << ": a number in a name (a line?)";

  std::ifstream in(source);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string mark = "/* ABOVE_THE_LOOP */";
  ASSERT_NE(text.find(mark), std::string::npos);
  text.replace(text.find(mark), mark.size(),
               "\n\n/* an unrelated helper, kept */\n__attribute__((used)) static int unrelated(int a) {\n"
               "  int s = 0;\n  for (int i = 0; i < a; i++) s += i * i;\n  return s;\n}\n\n\n");
  text.insert(0, "/* a new first comment\n * of two lines */\n\n");
  fs::path edited = perfcast::testing::scratch() / "stable_names.c";
  std::ofstream(edited) << text;
  EXPECT_EQ(parameter_names(analyse(edited.string())), first);
}

// The defaults the source writes are the parameters' defaults: parse() sets
// o->steps = 10 and o->n = 100 before its options may change them; main's argc
// (it only sizes the parsing) defaults to 1, no arguments. A prediction then
// binds only what the source leaves open, the loops' trips.
TEST(Analyze, DefaultsWrittenInTheSourceAreTheParametersDefaults) {
  auto j = analyse_case("stable_names.c");
  for (auto [name, value] : {std::pair{"argc", "1"}, {"o.steps", "10"}, {"o.n", "100"}}) {
    ASSERT_TRUE(j["parameters"].contains(name)) << name;
    EXPECT_EQ(j["parameters"][name].value("default", ""), value) << j["parameters"][name].dump();
  }
  EXPECT_FALSE(j["parameters"]["until_zero.loop1.trips"].contains("default"));
  auto m = load(j, "stable_names");
  // As predict binds them: the trips given, the rest defaulted.
  auto b = model::bind_rank(m, {{"parse.loop1.trips", 4}, {"until_zero.loop1.trips", 2}}, 0, 1);
  EXPECT_EQ(b.at("argc").integer(), 1);
  auto c = model::evaluate_rank(model::symbolic_costs(m, "main"), b, 0);
  EXPECT_EQ(c.mpi_calls, 10 + 2);  // one allreduce per step (o.steps = 10), init, finalize
  b = model::bind_rank(m, {{"parse.loop1.trips", 4}, {"until_zero.loop1.trips", 2}, {"o.steps", 3}}, 0, 1);
  EXPECT_EQ(model::evaluate_rank(model::symbolic_costs(m, "main"), b, 0).mpi_calls, 3 + 2);
}

// A row loop whose count is read from memory, unrolled by 2 at run time
// (rows_unrolled_by_two.c): the unrolled loop runs T div 2 times, the one
// element left over runs when T is odd, the guard before both when T > 0, so
// every row counts exactly T elements; a negation is no flop (xorpd, or folded
// into the subtract). Per row: 2 flops and 20 bytes loaded per element, one
// divide, and the row's two pointers (16 bytes) loaded when it has elements.
TEST(Analyze, ARowLoopUnrolledByTwoCountsEveryElementOnce) {
  auto m = load(analyse_case("rows_unrolled_by_two.c"), "rows_unrolled_by_two");
  for (int nrow : {0, 1, 5})
    for (int len : {0, 1, 2, 7, 8}) {
      expr::Bindings b = {{"nrow", nrow}, {"sweep.loop2.trips", len}};
      bind_the_rest(m, b);
      expr::Bindings empty_rows = b;
      empty_rows["sweep.loop2.trips"] = 0;
      auto c = counts(m, "sweep", b);
      EXPECT_EQ(c.flops_double, nrow * (2.0 * len + 1)) << "nrow = " << nrow << ", len = " << len;
      EXPECT_EQ(c.load_bytes - counts(m, "sweep", empty_rows).load_bytes, nrow * (len > 0 ? 16.0 + 20.0 * len : 0))
          << "nrow = " << nrow << ", len = " << len;
    }
}

// A loop over a range read from memory, unrolled by 2 at run time with its
// odd iteration peeled before the pairs (chunks_unrolled_by_two.c: the index
// starts at a value read from memory, so LLVM's remainder is a prologue): the
// pair loop runs T div 2 times, the peeled iteration when T is odd, the guard
// before both when T > 0, the test of T == 1 before the pairs when T div 2 > 0,
// so every chunk counts exactly T sides. Per side 4 flops, 40 bytes loaded and
// 8 stored, per chunk its first and last; callgrind counts the same flops and
// per-side bytes (20020 flops at 5 chunks of 1001). Priced at T pairs, the
// loop counted 8 flops a side, the peeled iteration at a guessed half.
TEST(Analyze, APairLoopAfterAPeeledOddIterationCountsEverySideOnce) {
  auto j = analyse_case("chunks_unrolled_by_two.c");
  for (const auto& b : j["coverage"]["guessed_branches"])
    EXPECT_EQ(b.value("function", ""), "main") << b.dump();
  auto m = load(j, "chunks_unrolled_by_two");
  for (long chunks : {1L, 3L})
    for (long t : {0L, 1L, 2L, 3L, 7L, 8L, 1001L}) {
      expr::Bindings b = {{"chunks", chunks}, {"corner_mass.loop2.trips", t}};
      bind_the_rest(m, b);
      auto c = counts(m, "corner_mass", b);
      EXPECT_EQ(c.flops_double, chunks * 4.0 * t) << "chunks = " << chunks << ", trips = " << t;
      EXPECT_EQ(c.load_bytes, chunks * (8.0 + 40.0 * t)) << "chunks = " << chunks << ", trips = " << t;
      EXPECT_EQ(c.store_bytes, chunks * 8.0 * t) << "chunks = " << chunks << ", trips = " << t;
    }
}

// A cell loop unrolled by 4 whose count the model cannot state and whose
// index addresses no memory, its remainder before it
// (stencil_rows_unrolled.c): the unroller's mark on the remainder
// (llvm.loop.unroll.disable) makes the two loops one source loop's, the
// unrolled one T div 4 trips of 4 cells, the remainder T mod 4, so every row
// counts its T = 2 * reach + 1 cells once. Priced at T each, the two loops
// counted 10 flops a cell where the code does 2.
TEST(Analyze, AnUnrolledLoopWhoseRemainderTheUnrollerMarkedSharesItsTrips) {
  auto j = analyse_case("stencil_rows_unrolled.c");
  auto m = load(j, "stencil_rows_unrolled");
  std::string cells;
  for (const auto& l : j["coverage"]["unknown_loops"])
    if (l.value("function", "") == "stencil") cells = l.value("trip_count", "");
  ASSERT_FALSE(cells.empty()) << j["coverage"].dump(1);
  for (long reach : {0L, 1L, 2L, 3L, 10L, 501L}) {
    expr::Bindings b = {{"stencil.reach", reach}, {cells, 2 * reach + 1}};
    bind_the_rest(m, b);
    EXPECT_EQ(counts(m, "stencil", b).flops_double, 2.0 + (2 * reach + 1) * 2.0 * (2 * reach + 1))
        << "reach = " << reach;
  }
}

// A loop whose only exit sits behind a test in its body
// (exit_behind_test.c: `while (1) { w += 0.5; if (c[i++] == 10) { w = w *
// 0.25 + 1; if (c[i] < 0) break; } }`): the guarded code post-dominates the
// header, every way out passing through it, yet a pass that sees no 10 goes
// round without it. It is priced at its test's guess, a half, not on every
// pass (which counted 3 flops a pass where the code does 1 and 2 on some).
TEST(Analyze, TheCodeBeforeALoopsOnlyExitIsGuardedByItsTest) {
  auto j = analyse_case("exit_behind_test.c");
  auto m = load(j, "exit_behind_test");
  ASSERT_TRUE(j["parameters"].contains("f.loop1.trips")) << j["parameters"].dump(1);
  for (long trips : {1L, 10L, 1000L}) {
    expr::Bindings b = {{"f.loop1.trips", trips}};
    bind_the_rest(m, b);
    EXPECT_EQ(counts(m, "f", b).flops_double, trips * (1.0 + 0.5 * 2.0)) << "trips = " << trips;
  }
}

// An inlined callee's loop merged into its caller's
// (tests/features/skip_to_end.cpp: skip_line's `do ... while` in `while
// (skip_line(f, w) != EOF) w = w * 0.25 + 1`): one loop in the optimised
// code, whose passes are the callee's iterations. Its trips say so, naming a
// line of the callee's loop (`merged_site`, which a probe run counts), and
// the caller's work in it is guarded (a pass goes round without it), not
// priced on every pass.
TEST(Analyze, ACalleesLoopMergedIntoItsCallersIsNamedAndTheCallersWorkGuarded) {
  auto j = analyse(kSource + "/tests/features/skip_to_end.cpp");
  ASSERT_TRUE(j["parameters"].contains("main.loop1.trips")) << j["parameters"].dump(1);
  const std::string what = j["parameters"]["main.loop1.trips"].value("description", "");
  EXPECT_NE(what.find("merged into it the loop at skip_to_end_cpp:"), std::string::npos) << what;
  EXPECT_NE(what.find("(in skip_line)"), std::string::npos) << what;
  bool listed = false;
  for (const auto& l : j["coverage"]["unknown_loops"])
    if (l.value("trip_count", "") == "main.loop1.trips") {
      listed = true;
      EXPECT_TRUE(l.value("merged_site", "").starts_with("skip_to_end.cpp:")) << l.dump();
    }
  EXPECT_TRUE(listed) << j["coverage"].dump(1);
  auto m = load(j, "skip_to_end");
  expr::Bindings b = {{"main.loop1.trips", 100}};
  bind_the_rest(m, b);
  // A flop a pass; the caller's 2 at the join's guess, a half.
  EXPECT_EQ(counts(m, "main", b).flops_double, 100 * (1.0 + 0.5 * 2.0));
}

// A nest merged into one loop within a function (tests/features/count_lines.c:
// `do { do { ch = fgetc(f); w += 0.5; } while (ch != '\n' && ch != EOF); w =
// w * 0.25 + 1; } while (ch != EOF)`): the merged loop names a line of the
// inner loop's body (the compound statement whose code makes the way round),
// the read's, and the outer loop's work is guarded, not priced on every pass.
TEST(Analyze, ANestMergedIntoOneLoopNamesItsInnerLoop) {
  const std::string source = kSource + "/tests/features/count_lines.c";
  int read_line = 0;
  std::ifstream in(source);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n)
    if (text.find("ch = fgetc(f);") != std::string::npos) read_line = n;
  auto j = analyse(source);
  std::string trips;
  for (const auto& l : j["coverage"]["unknown_loops"])
    if (l.value("function", "") == "count_lines") {
      trips = l.value("trip_count", "");
      EXPECT_EQ(l.value("merged_site", ""), "count_lines.c:" + std::to_string(read_line)) << l.dump();
    }
  ASSERT_FALSE(trips.empty()) << j["coverage"].dump(1);
  auto m = load(j, "count_lines");
  expr::Bindings b = {{trips, 40}};
  bind_the_rest(m, b);
  EXPECT_EQ(counts(m, "count_lines", b).flops_double, 40 * (1.0 + 0.5 * 2.0));
}

// A loop whose range is read from memory, split by the vectoriser
// (vectorised_chunks.c): its one parameter counts the source loop's
// iterations, T, of which the vector body does T div W trips of W elements
// and the scalar loop T mod W; the scalar loop's entry, a join the analyser
// guesses at one half, is within one vector of the whole. Priced at T each,
// the two loops counted 10 flops an element where the code does 2.
TEST(Analyze, AVectorisedLoopOfUnknownTripsSharesThemBetweenItsTwoLoops) {
  auto m = load(analyse_case("vectorised_chunks.c"), "vectorised_chunks");
  for (long chunks : {1L, 3L})
    for (long t : {0L, 1L, 3L, 4L, 7L, 1000L, 1003L}) {
      expr::Bindings b = {{"chunks", chunks}, {"axpy_chunks.loop2.trips", t}};
      bind_the_rest(m, b);
      const double flops = counts(m, "axpy_chunks", b).flops_double;
      EXPECT_LE(flops, chunks * 2.0 * t + 1e-9) << "chunks = " << chunks << ", trips = " << t;
      EXPECT_GE(flops, chunks * (2.0 * t - 8)) << "chunks = " << chunks << ", trips = " << t;
      if (t % 8 == 0) EXPECT_EQ(flops, chunks * 2.0 * t) << "chunks = " << chunks << ", trips = " << t;
    }
}

// The same split when the unroller has also unrolled the scalar loop by 2
// with its odd iteration peeled before the pairs (vectorised_pairs.c): the
// scalar pair loop, marked as vectorised and counted in steps of 2 as a
// vector body is, holds no vectors; it shares T mod W with the peeled
// iteration, and the vector body keeps T div W. Priced at T, the vector body
// alone counted 8 flops an element where the code does 4.
TEST(Analyze, AVectorisedLoopWhoseScalarLoopIsUnrolledSharesItsTrips) {
  auto m = load(analyse_case("vectorised_pairs.c"), "vectorised_pairs");
  for (long chunks : {1L, 3L})
    for (long t : {0L, 1L, 2L, 3L, 4L, 7L, 1000L, 1003L}) {
      expr::Bindings b = {{"chunks", chunks}, {"work_rate.loop2.trips", t}};
      bind_the_rest(m, b);
      const double flops = counts(m, "work_rate", b).flops_double;
      EXPECT_LE(flops, chunks * 4.0 * t + 1e-9) << "chunks = " << chunks << ", trips = " << t;
      EXPECT_GE(flops, chunks * (4.0 * t - 16)) << "chunks = " << chunks << ", trips = " << t;
      if (t % 8 == 0) {
        EXPECT_EQ(flops, chunks * 4.0 * t) << "chunks = " << chunks << ", trips = " << t;
      }
    }
}

// A pair kernel whose two updates share a product, `fi += d * force;
// f[j] -= d * force` (shared_products.c), each a multiply-add in the IR: on
// x86-64's baseline, without FMA, the machine multiplies once and adds and
// subtracts (6 flops a pair, as callgrind counts: 4900 at 100 atoms of 8
// neighbours); built with -mfma, each update is one FMA of 2 flops (7 a pair,
// 5700). Counted as 2 flops each without FMA, the pair was 7.
TEST(Analyze, AProductTwoMultiplyAddsShareIsOneMultiplyWithoutFma) {
  for (bool fma : {false, true}) {
    auto m = load(analyse_case("shared_products.c", fma ? std::vector<std::string>{"-mfma"} : std::vector<std::string>{}),
                  fma ? "shared_products_fma" : "shared_products");
    const double per_pair = fma ? 7 : 6;
    for (long n : {0L, 1L, 100L})
      for (long neighbours : {0L, 2L, 8L}) {
        expr::Bindings b = {{"n", n}, {"nneigh", neighbours}};
        bind_the_rest(m, b);
        EXPECT_EQ(counts(m, "pair_forces", b).flops_double, n * (per_pair * neighbours + 1))
            << "fma = " << fma << ", n = " << n << ", neighbours = " << neighbours;
      }
  }
}

// A compare-and-select of the same two values is a minimum or maximum, one
// flop (minsd/maxsd), as fmin/fmax are; a select between other values is
// none (min_max.c: 3 flops an element and 1 after the loop, which the
// compiler folds to a constant when the loop never runs).
TEST(Analyze, MinimaAndMaximaAreOneFlopEach) {
  auto m = load(analyse_case("min_max.c"), "min_max");
  for (long n : {0L, 1L, 5L, 1000L}) {
    expr::Bindings b = {{"n", n}};
    bind_the_rest(m, b);
    EXPECT_EQ(counts(m, "clamp_sum", b).flops_double, n == 0 ? 0.0 : 3.0 * n + 1) << "n = " << n;
  }
}

// `if (d >= 0 || l > 0)` held as one value in the IR, whose later test has
// arithmetic of its own (or_split.c): x86 code computes l only where d < 0,
// so l's 6 flops (a negation is none, an fmuladd 2) are priced under a
// branch of their own, at a guess of 0.5 the coverage lists, beside d's 2
// every element and the else side's 7 at its own guess of 0.5; a later test
// that needs only a compare (or_cheap) is evaluated with the first and
// makes no such branch: d's 2 flops and the else side's 2 at 0.5.
TEST(Analyze, ALaterTestsOwnArithmeticRunsWhereTheFirstDoesNotDecide) {
  auto j = analyse_case("or_split.c");
  auto m = load(j, "or_split");
  int later_tests = 0;
  for (const auto& b : j["coverage"]["guessed_branches"])
    if (b.value("why", "") == model::kLaterTestWhy) {
      ++later_tests;
      EXPECT_EQ(b["site"], "or_split.c:11") << b.dump();
    }
  EXPECT_EQ(later_tests, 1) << j["coverage"].dump();
  for (long n : {1L, 1000L}) {
    expr::Bindings b = {{"n", n}};
    bind_the_rest(m, b);
    EXPECT_DOUBLE_EQ(counts(m, "or_split", b).flops_double, 2.0 * n + 0.5 * 6 * n + 0.5 * 7 * n) << "n = " << n;
    EXPECT_DOUBLE_EQ(counts(m, "or_cheap", b).flops_double, 2.0 * n + 0.5 * 2 * n) << "n = " << n;
  }
}

// The join after an `if` whose one side calls a function that may throw
// (may_throw_in_branch.cpp: an `invoke`, whose unwind edge leaves the function
// through a destructor) is reached on every path a run takes: the loop after
// it counts in full, 2 flops an element, not half of them at a guess.
TEST(Analyze, WorkAfterABranchThatMayThrowIsCounted) {
  auto j = analyse_case("may_throw_in_branch.cpp");
  auto m = load(j, "may_throw_in_branch");
  for (const auto& b : j["coverage"]["guessed_branches"])
    EXPECT_NE(b.value("why", ""), "reached on some paths") << b.dump();
  for (long n : {0L, 1L, 5L, 1000L})
    for (long big : {0L, 10L}) {
      expr::Bindings b = {{"n", n}, {"big", big}};
      bind_the_rest(m, b);
      EXPECT_EQ(counts(m, "_Z20sum_after_allocationll", b).flops_double, 2.0 * n) << "n = " << n << ", big = " << big;
    }
}

// The join after an `if` on a count the model cannot state whose side prints
// with iostreams (print_in_branch.cpp: every `<<` an `invoke`, each facet
// check a branch to a throw): no condition of the paths to it can be stated,
// but every path a run takes reaches it, so it is no guessed branch and the
// loop after it counts in full, 2 flops an element and 1 for the result.
TEST(Analyze, WorkAfterABranchThatPrintsIsCounted) {
  auto j = analyse_case("print_in_branch.cpp");
  auto m = load(j, "print_in_branch");
  for (const auto& b : j["coverage"]["guessed_branches"])
    EXPECT_NE(b.value("why", ""), "reached on some paths") << b.dump();
  for (long n : {1L, 5L, 1000L}) {
    expr::Bindings b = {{"n", n}};
    bind_the_rest(m, b);
    EXPECT_EQ(counts(m, "_Z11timed_phaselPKli", b).flops_double, 2.0 * n + 1) << "n = " << n;
  }
}

// Library code without floating-point work (library_setup.cpp: the nodes of
// a map, an unordered_map and a list; fgetc, ungetc, fscanf, div, localtime)
// is left out as set-up by the library table, not left as parameters to
// bind: no lib_*_flops, and no trips of the containers' own loops, out of
// line or inlined into setup().
TEST(Analyze, LibraryHelpersWithoutFloatingPointAreNoParameters) {
  auto j = analyse_case("library_setup.cpp");
  for (const auto& [name, p] : j["parameters"].items()) {
    EXPECT_NE(name.rfind("lib_", 0), 0u) << name;
    const std::string what = p.value("description", "");
    if (what.find("iterations of the loop") == std::string::npos && what.find("recursive") == std::string::npos)
      continue;
    for (const char* header : {"stl_tree", "hashtable", "list_tcc"})
      EXPECT_EQ(what.find(header), std::string::npos) << name << ": " << what;
  }
  bool unresolved_helper = false;
  for (const auto& u : j["coverage"]["unresolved_calls"])
    unresolved_helper |= u.dump().find("Rb_tree") != std::string::npos || u.dump().find("fgetc") != std::string::npos;
  EXPECT_FALSE(unresolved_helper) << j["coverage"]["unresolved_calls"].dump();
}

// A library constructor inlined with a count that is the caller's argument
// widened (library_count.cpp, `std::vector<double> bytes(levels)`): the count
// is `levels`, which main's call gives, 4, not a parameter named after the
// constructor's `__n`: the model needs no binding, and its fill writes the 4
// doubles.
TEST(Analyze, ALibraryVariableHoldingTheCallersValueIsNoParameter) {
  auto j = analyse_case("library_count.cpp");
  for (const auto& [name, p] : j["parameters"].items())
    EXPECT_FALSE(!p.contains("default") && name.find("__") != std::string::npos) << name << ": " << p.dump();
  auto m = load(j, "library_count");
  expr::Bindings b;
  bind_the_rest(m, b);
  const auto c = counts(m, "main", b);
  EXPECT_EQ(c.flops_double, 2.0 * 4) << "a product and a sum a level";
  EXPECT_GE(c.store_bytes, 8.0 * 4) << "the fill of the 4 levels";
}

// A library constructor inlined into main with a count from the command line
// (library_option_count.cpp, `std::vector<double> v(n, 0.5)`): no parameter
// is named after the constructor's `__n`; what its value sizes is read from
// its definition, or left to the probe run as the loop or copy it sizes.
TEST(Analyze, ALibraryVariableIsNeverAParameterOfItsOwn) {
  auto j = analyse_case("library_option_count.cpp");
  for (const auto& [name, p] : j["parameters"].items())
    EXPECT_EQ(p.value("description", "").find("of vector (stl_vector"), std::string::npos) << name << ": " << p.dump();
}

// A library constructor inlined with a count that is a class's field widened
// (library_field_count.cpp, `std::vector<std::vector<int>> edges(nump)` in a
// method, nothing else reading nump): the count is the field, `Mesh.nump`,
// not a parameter named after the constructor's `__n` in a system header;
// the constructor's memset writes 24 bytes per vector of it.
TEST(Analyze, ALibraryVariableHoldingAFieldReadIsThatField) {
  auto j = analyse_case("library_field_count.cpp");
  for (const auto& [name, p] : j["parameters"].items())
    EXPECT_EQ(name.find("__n"), std::string::npos) << name << ": " << p.dump();
  ASSERT_TRUE(j["parameters"].contains("Mesh.nump")) << j["parameters"].dump(1);
  std::vector<std::string> memsets;  // the store bytes of the items of the constructor's memset line
  std::function<void(const nlohmann::ordered_json&)> walk = [&](const nlohmann::ordered_json& items) {
    for (const auto& item : items) {
      if (item.value("note", "").starts_with("inlined from _Vector_impl_data") && item.contains("store_bytes") &&
          item["store_bytes"].is_string())
        memsets.push_back(item["store_bytes"]);
      for (const char* inner : {"body", "then", "else"})
        if (item.contains(inner)) walk(item[inner]);
    }
  };
  walk(j["functions"]["_ZN4Mesh4initEv"]["body"]);
  EXPECT_NE(std::find(memsets.begin(), memsets.end(), "24 * Mesh.nump"), memsets.end())
      << "the memset of nump empty vectors: " << j["functions"]["_ZN4Mesh4initEv"].dump(1);
}

// The guard of a loop inlined from library code the table leaves out (the
// destruction loop of library_field_count.cpp's `std::vector<std::vector<int>>`,
// `_Destroy_aux`, whose count the vector's pointers give): the loop is left
// out, so its guard names no trips: every trips parameter of the model is a
// loop the model has, none for the user to bind that nothing prices.
TEST(Analyze, TheGuardOfALoopLeftOutWithLibraryCodeNamesNoTrips) {
  auto j = analyse_case("library_field_count.cpp");
  std::set<std::string> loop_trips;
  std::function<void(const nlohmann::ordered_json&)> walk = [&](const nlohmann::ordered_json& items) {
    for (const auto& item : items) {
      if (item.value("kind", "") == "loop" && item.contains("trip_count")) {
        const auto& t = item["trip_count"];
        for (const auto& name : expr::free_names(expr::parse(t.is_string() ? t.get<std::string>() : t.dump())))
          loop_trips.insert(name);
      }
      for (const char* inner : {"body", "then", "else"})
        if (item.contains(inner)) walk(item[inner]);
    }
  };
  for (const auto& [name, f] : j["functions"].items()) walk(f["body"]);
  for (const auto& [name, p] : j["parameters"].items())
    if (name.ends_with(".trips")) EXPECT_TRUE(loop_trips.count(name)) << name << " sizes no loop: " << p.dump();
}

// Loops whose only other exits are throws (stream_lines.cpp: `std::endl`'s
// facet check, `vector::at`'s bounds check), which end the program: the
// count is the loop's own test's, `rows`, no unknown trips. The guard before
// such a loop, whose calls unwind to a cleanup, is that loop's (its trips >
// 0), not a guess, whatever it tests (`int(budget / per_set) < 0`).
TEST(Analyze, ALoopWhoseOtherExitsThrowRunsItsTestsCount) {
  auto j = analyse_case("stream_lines.cpp");
  for (const auto& l : j["coverage"]["unknown_loops"])
    EXPECT_EQ(l.value("site", "").find("stream_lines.cpp"), std::string::npos) << l.dump();
  for (const auto& b : j["coverage"]["guessed_branches"])
    EXPECT_EQ(b.value("site", "").find("stream_lines.cpp"), std::string::npos) << b.dump();
  auto m = load(j, "stream_lines");
  for (long rows : {1L, 40L}) {
    expr::Bindings b = {{"rows", rows}};
    bind_the_rest(m, b);
    EXPECT_EQ(counts(m, "_Z10write_rowsRSoPKdi", b).flops_double, 1.0 * rows) << "rows = " << rows;
    EXPECT_EQ(counts(m, "_Z8sum_rowsRKSt6vectorIdSaIdEEi", b).flops_double, 2.0 * rows) << "rows = " << rows;
  }
}

// A local struct's field the optimiser split off, a copy of a field read
// through a reference (local_copy.cpp: `Column c; make_column(c, grid.rows)`,
// the loops to `c.length`): the bound is the field read, `grid.rows`, whose
// reads a probe run sees, not `c.length`, stored in the callee through the
// reference, where no probe names it.
TEST(Analyze, ALocalsFieldThatCopiesAFieldReadThroughAReferenceIsThatField) {
  auto j = analyse_case("local_copy.cpp");
  EXPECT_FALSE(j["parameters"].contains("column_sum.c.length")) << j["parameters"].dump(1);
  ASSERT_TRUE(j["parameters"].contains("grid.rows")) << j["parameters"].dump(1);
  EXPECT_TRUE(j["parameters"]["grid.rows"].value("description", "").starts_with("field grid.rows of column_sum"))
      << j["parameters"]["grid.rows"].dump();
  auto m = load(j, "local_copy");
  for (long rows : {1L, 40L}) {
    expr::Bindings b = {{"grid.rows", rows}};
    bind_the_rest(m, b);
    EXPECT_EQ(counts(m, "_ZL10column_sumRK4Grid", b).flops_double, 2.0 * rows) << "rows = " << rows;
  }
}

// Error codes summed over calls and checked after them (error_code_main.c,
// HPCG's `ierr += kernel(...); if (ierr != 0) return ierr;`), the two sources
// analysed as one program: prepare(), in the other unit, and relax(), in the
// same one, always return 0, so the checks after them never leave and smooth's
// work counts in full, 3 k n + 4 n flops, with no branch guessed and no
// parameter for its ierr. count_negative() returns a count of the data: the
// check after it stays a guessed branch of finish.
TEST(Analyze, ChecksOfAnErrorCodeEveryCalleeReturnsAsZeroAreNoBranches) {
  analyze::AnalyzeOptions o;
  o.sources = {kSource + "/tests/analyze/cases/error_code_main.c",
               kSource + "/tests/analyze/cases/error_code_kernels.c"};
  o.mca = false;
  auto j = analyze::analyze(o);
  auto m = load(j, "error_code");
  std::vector<std::string> guessed_in;
  for (const auto& b : j["coverage"]["guessed_branches"]) guessed_in.push_back(b["function"]);
  EXPECT_EQ(std::count(guessed_in.begin(), guessed_in.end(), "smooth"), 0) << j["coverage"].dump();
  EXPECT_EQ(std::count(guessed_in.begin(), guessed_in.end(), "finish"), 1) << j["coverage"].dump();
  EXPECT_FALSE(j["parameters"].contains("smooth.ierr")) << j["parameters"].dump();
  EXPECT_EQ(j["coverage"]["functions_defined"], 6);
  for (auto [k, n] : {std::pair{1, 1}, {3, 8}, {7, 33}, {2, 1000}}) {
    expr::Bindings b = {{"n", n}, {"k", k}};
    bind_the_rest(m, b);
    EXPECT_EQ(counts(m, "smooth", b).flops_double, 3.0 * k * n + 4.0 * n) << "k = " << k << ", n = " << n;
  }
}

// The join after an if/else whose sides both call functions that may throw
// (join_after_throwing_sides.cpp, as miniMD's main after `if (datafile)
// read_data(...) else create_atoms(...)`): the test's condition cannot be
// stated, but the two sides' conditions add up to 1, so the loop after the
// join counts in full, 2 flops an element, not half of them at a guess.
TEST(Analyze, TheJoinOfAnIfElseWhoseSidesMayThrowIsReachedOnEveryPath) {
  auto j = analyse_case("join_after_throwing_sides.cpp");
  auto m = load(j, "join_after_throwing_sides");
  for (const auto& b : j["coverage"]["guessed_branches"])
    EXPECT_NE(b.value("why", ""), "reached on some paths") << b.dump();
  for (long n : {0L, 1L, 5L, 1000L}) {
    expr::Bindings b = {{"n", n}};
    bind_the_rest(m, b);
    EXPECT_EQ(counts(m, "_Z15sum_after_setupPKcl", b).flops_double, 2.0 * n) << "n = " << n;
  }
}

// A virtual call (virtual_dispatch.cpp: a kernel object made from the input,
// its apply called through the vtable each step) is a call of each override
// its slot may hold, Scale's and Poly's, weighted by the share of the calls
// that land on it: at a share of 1 for one of them the step loop counts that
// one's flops exactly, steps * (2n + 1) or steps * (4n + 1); the call is no
// longer unresolved, and the pure virtual base holds nothing to call.
TEST(Analyze, AVirtualCallIsACallOfEachOverrideByItsShare) {
  auto j = analyse_case("virtual_dispatch.cpp");
  EXPECT_TRUE(j["coverage"]["unresolved_calls"].empty()) << j["coverage"]["unresolved_calls"].dump();
  auto m = load(j, "virtual_dispatch");
  // The overrides by the line of their definition in the source.
  std::ifstream source(kSource + "/tests/analyze/cases/virtual_dispatch.cpp");
  std::vector<int> apply_lines;
  std::string text;
  for (int line = 1; std::getline(source, text); ++line)
    if (text.find("double apply(") != std::string::npos && text.find("override") != std::string::npos)
      apply_lines.push_back(line);
  ASSERT_EQ(apply_lines.size(), 2u);
  std::string scale_share, poly_share;
  std::set<std::string> call_sites;
  for (const auto& l : j["coverage"]["unknown_loops"]) {
    if (!l.contains("virtual_call")) continue;
    const std::string site = l["site"];
    if (site == "virtual_dispatch.cpp:" + std::to_string(apply_lines[0])) scale_share = l["trip_count"];
    if (site == "virtual_dispatch.cpp:" + std::to_string(apply_lines[1])) poly_share = l["trip_count"];
    call_sites.insert(l["virtual_call"].get<std::string>());
  }
  ASSERT_FALSE(scale_share.empty()) << j["coverage"]["unknown_loops"].dump();
  ASSERT_FALSE(poly_share.empty()) << j["coverage"]["unknown_loops"].dump();
  // kernel->apply and the deleting destructor of `delete kernel`.
  EXPECT_EQ(call_sites.size(), 2u);
  for (long n : {1L, 100L, 4096L})
    for (long steps : {1L, 7L}) {
      for (double poly : {0.0, 1.0, 0.25}) {
        expr::Bindings b = {{"main.loop1.trips", n}, {"main.loop2.trips", steps}, {"main.virtual1.n", n},
                            {scale_share, 1 - poly}, {poly_share, poly}};
        bind_the_rest(m, b);
        const double expected = steps * ((1 - poly) * 2.0 * n + poly * 4.0 * n + 1);
        EXPECT_DOUBLE_EQ(counts(m, "main", b).flops_double, expected)
            << "n = " << n << ", steps = " << steps << ", Poly's share " << poly;
      }
    }
}
