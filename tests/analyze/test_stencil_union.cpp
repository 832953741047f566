// One array read at several offsets is one stream (cases/stencil_union.c): a
// loop nest's footprint holds the union of the offsets' ranges, not their
// sum, checked against the distinct bytes each sweep touches, counted by
// enumerating its addresses. Two arrays stay two; offsets a row apart that
// change with the row (two starts read from memory) are never merged.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <tuple>

#include "analyze/analyze.h"
#include "support/expr.h"

using namespace perfcast;

namespace {

const nlohmann::ordered_json& analysed() {
  static const nlohmann::ordered_json j = [] {
    analyze::AnalyzeOptions o;
    o.sources = {std::string(PERFCAST_SOURCE_DIR) + "/tests/analyze/cases/stencil_union.c"};
    o.mca = false;
    return analyze::analyze(o);
  }();
  return j;
}

// The function's outermost loop (the nest whose footprint the predictor fetches).
const nlohmann::ordered_json& nest(const std::string& function) {
  const auto& body = analysed()["functions"][function]["body"];
  for (const auto& it : body)
    if (it["kind"] == "loop") return it;
  for (const auto& it : body)  // a loop behind its guard
    for (const char* side : {"then", "else"})
      if (it.contains(side))
        for (const auto& inner : it[side])
          if (inner["kind"] == "loop") return inner;
  ADD_FAILURE() << function << " has no loop: " << analysed()["functions"][function].dump(1);
  static const nlohmann::ordered_json none = nlohmann::ordered_json::object();
  return none;
}

double footprint(const nlohmann::ordered_json& loop, const char* key, const expr::Bindings& b) {
  if (!loop.contains("footprint")) {
    ADD_FAILURE() << "no footprint: " << loop.dump(1);
    return 0;
  }
  return expr::evaluate(expr::parse(loop["footprint"][key].get<std::string>()), b).real();
}

}  // namespace

// mg's sweep: u read at p, p +- 1, p +- sx, p +- sxy over the updated points
// [lo, m) of each dimension, f read and un written at p. Its bounds and
// strides are read through the struct pointer inside the nest. The footprint
// is at least the distinct bytes and at most the union of the ranges (holes
// between rows and planes count), plus a row per array for the vector loop's
// remainder; seven times u would be far above it.
TEST(Footprint, SevenPointSweepIsTheUnionOfItsNeighbours) {
  const auto& loop = nest("cube7");
  ASSERT_TRUE(loop.contains("footprint")) << loop.dump(1);
  struct Size {
    int m[3], lo[3];
  };
  for (const Size& z : {Size{{4, 4, 4}, {0, 0, 0}}, Size{{5, 3, 4}, {1, 1, 1}}, Size{{8, 8, 8}, {1, 0, 0}},
                        Size{{16, 9, 7}, {0, 1, 0}}, Size{{33, 20, 11}, {1, 0, 1}}}) {
    const std::int64_t sx = z.m[0] + 2, sxy = sx * (z.m[1] + 2);
    auto ix = [&](std::int64_t i, std::int64_t j, std::int64_t k) { return (i + 1) + sx * (j + 1) + sxy * (k + 1); };
    std::set<std::int64_t> u, point;
    for (int k = z.lo[2]; k < z.m[2]; k++)
      for (int j = z.lo[1]; j < z.m[1]; j++)
        for (int i = z.lo[0]; i < z.m[0]; i++) {
          std::int64_t p = ix(i, j, k);
          for (std::int64_t d : {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, sx, -sx, sxy, -sxy}) u.insert(p + d);
          point.insert(p);
        }
    const double first = 8.0 * *point.begin(), last = 8.0 * *point.rbegin();
    const double u_range = last - first + 16.0 * sxy + 8, point_range = last - first + 8, row = 8.0 * sx;
    expr::Bindings b = {{"b.m_0", z.m[0]},   {"b.m_1", z.m[1]},   {"b.m_2", z.m[2]}, {"b.lo_0", z.lo[0]},
                        {"b.lo_1", z.lo[1]}, {"b.lo_2", z.lo[2]}, {"b.sx", sx},      {"b.sxy", sxy}};
    const std::string at = "m " + std::to_string(z.m[0]) + "x" + std::to_string(z.m[1]) + "x" +
                           std::to_string(z.m[2]) + ", lo " + std::to_string(z.lo[0]) + std::to_string(z.lo[1]) +
                           std::to_string(z.lo[2]);
    const double loads = footprint(loop, "load_bytes", b), stores = footprint(loop, "store_bytes", b);
    EXPECT_GE(loads, 8.0 * (u.size() + point.size())) << at;   // u and f
    EXPECT_LE(loads, u_range + point_range + 2 * row) << at;  // their ranges
    EXPECT_GE(stores, 8.0 * point.size()) << at;              // un
    EXPECT_LE(stores, point_range + row) << at;
    EXPECT_EQ(footprint(loop, "bytes", b), loads + stores) << at;  // three arrays
  }
}

// Rows whose starts are read from memory (start[r] = 1 + r len: the rows one
// after the other) bound no interval: each access is counted by its
// executions. x[s+e-1], x[s+e], x[s+e+1] walk x as one stream shifted by 8
// and 16 bytes: the union of the walks (x[0 .. rows len + 1], rows len + 2
// doubles) up to a few bytes a loop (the vector loop and its remainder each
// add the spread), not three walks. From len = 4: below it the vector loop's
// count outside its guard is one iteration, not none.
TEST(Footprint, ThreePointWalkOfCountedRowsIsOneStream) {
  const auto& loop = nest("line3");
  for (auto [rows, len] : {std::pair{1, 4}, {3, 5}, {4, 8}, {10, 37}, {64, 64}}) {
    expr::Bindings b = {{"rows", rows}, {"len", len}};
    const double start = 4.0 * rows, x = 8.0 * (rows * len + 2), y = 8.0 * rows * len;
    const double loads = footprint(loop, "load_bytes", b), stores = footprint(loop, "store_bytes", b);
    EXPECT_GE(loads, start + x) << "rows " << rows << ", len " << len;
    EXPECT_LE(loads, start + x + 128) << "rows " << rows << ", len " << len;
    EXPECT_EQ(stores, y) << "rows " << rows << ", len " << len;
    EXPECT_EQ(footprint(loop, "bytes", b), loads + stores) << "rows " << rows << ", len " << len;
  }
}

// The same rows, a[s+e-1] + b[s+e+1]: two arrays, each walked once (rows len
// doubles each), never one stream of one of them.
TEST(Footprint, TwoArraysStayTwoStreams) {
  const auto& loop = nest("two_arrays");
  for (auto [rows, len] : {std::pair{1, 4}, {3, 5}, {10, 37}, {64, 64}}) {
    expr::Bindings b = {{"rows", rows}, {"len", len}};
    const double start = 4.0 * rows, each = 8.0 * rows * len;
    const double loads = footprint(loop, "load_bytes", b);
    EXPECT_GE(loads, start + 2 * each) << "rows " << rows << ", len " << len;
    EXPECT_LE(loads, start + 2 * each + 64) << "rows " << rows << ", len " << len;
  }
}

// x[s+e] + x[t+e], s and t read from memory per row (here t's rows lie past
// all of s's): their shift changes with the row, so both walks count.
TEST(Footprint, OffsetsThatChangeInTheNestAreNotMerged) {
  const auto& loop = nest("two_starts");
  for (auto [rows, len] : {std::pair{1, 4}, {3, 5}, {10, 37}, {64, 64}}) {
    expr::Bindings b = {{"rows", rows}, {"len", len}};
    const double starts = 8.0 * rows, x = 2 * 8.0 * rows * len;
    const double loads = footprint(loop, "load_bytes", b);
    EXPECT_GE(loads, starts + x) << "rows " << rows << ", len " << len;
    EXPECT_LE(loads, starts + x + 64) << "rows " << rows << ", len " << len;
  }
}

// wave3d's z-face packing loop (apps/wave3d/wave3d.c, `sbuf[ZLO][m] = u[IDX(i, j, 1)]`), unrolled
// by 2: u is read a row apart per point, its address a run-time stride times the index. The
// left-over iteration after the unrolled loop reads the row where that loop stopped, once per i:
// its lines are the runs of the loop around it, not a sweep of every row. The loop loads a line a
// point for each face, and a line for each face's left-over read per i, no more.
TEST(Footprint, ALeftOverIterationCountsTheLinesOfItsOwnRuns) {
  const std::string source = std::string(PERFCAST_SOURCE_DIR) + "/apps/wave3d/wave3d.c";
  analyze::AnalyzeOptions o;
  o.sources = {source};
  o.mca = false;
  auto j = analyze::analyze(o);
  std::ifstream in(source);
  std::string text;
  int line = 0, face = 0;
  for (int n = 1; std::getline(in, text); ++n)
    if (text.find("sbuf[ZLO][m] = u[IDX(i, j, 1)]") != std::string::npos) face = n;
  ASSERT_GT(face, 0);
  line = face - 2;  // for (i = 1; i <= lx; i++)
  const nlohmann::ordered_json* loop = nullptr;
  std::function<void(const nlohmann::ordered_json&)> find = [&](const nlohmann::ordered_json& items) {
    for (const auto& it : items) {
      if (!loop && it["kind"] == "loop" && it.value("line", 0) == line && it.contains("footprint")) loop = &it;
      for (const char* side : {"body", "then", "else"})
        if (it.contains(side)) find(it[side]);
    }
  };
  find(j["functions"]["main"]["body"]);
  ASSERT_NE(loop, nullptr) << "no loop with a footprint at wave3d.c:" << line;
  for (auto [lx, ly, lz] : {std::tuple{72, 144, 144}, {48, 96, 96}, {10, 21, 33}}) {
    expr::Bindings b = {{"lx", lx}, {"ly", ly}, {"lz", lz}, {"leapfrog_step.sy", lz + 2}};
    const double faces = 2.0 * 64 * lx * ly, left_over = 2.0 * 64 * (lx + 1);
    const double loads = footprint(*loop, "load_bytes", b);
    EXPECT_GE(loads, 2.0 * 8 * lx * ly) << lx << "x" << ly << "x" << lz;  // the points themselves
    EXPECT_LE(loads, faces + left_over + 64) << lx << "x" << ly << "x" << lz;
  }
}
