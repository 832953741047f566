// A chain of calls whose counts, composed symbolically, grow with every level
// (they did not finish composing at 30 levels) and, with a number for its
// size, are a number at each: the shape of a large application's call graph
// with its sizes passed down as arguments. For the tests of every path that
// composes a model's callees (predict, model events, the simulator's work).
#pragma once

#include <map>
#include <string>
#include <utility>

namespace perfcast::testing {

// The "functions" JSON of the chain f0 .. f<depth-1>, each of one parameter
// `a`: a loop of mod(a, 7) + 1 iterations of i + a flops, then (but the
// last) two calls of the next, with a + 1 and max(a - 1, 0); and `more`, the
// JSON of the other functions ("\"main\": {...}, ..."), which call f0.
inline std::string deep_call_chain(int depth, const std::string& more) {
  std::string functions = "{" + more;
  for (int i = 0; i < depth; ++i) {
    std::string body = R"J({"kind": "loop", "var": "i", "trip_count": "mod(a, 7) + 1", "body": [
        {"kind": "compute", "flops_double": "i + a"}]})J";
    if (i + 1 < depth)
      for (const char* arg : {"a + 1", "max(a - 1, 0)"})
        body += R"J(, {"kind": "call", "function": "f)J" + std::to_string(i + 1) + R"J(", "args": {"a": ")J" + arg +
                R"J("}})J";
    functions += ", \"f" + std::to_string(i) + R"J(": {"parameters": ["a"], "body": [)J" + body + "]}";
  }
  return functions + "}";
}

// The flops of one call of f<level> with `a`, by hand: each level's loop,
// sum of i + a over i < mod(a, 7) + 1, and the two calls below it.
inline double deep_call_chain_flops(int depth, int level, long a) {
  static std::map<std::pair<int, std::pair<int, long>>, double> memo;
  if (level >= depth) return 0;
  const auto key = std::make_pair(depth, std::make_pair(level, a));
  if (auto done = memo.find(key); done != memo.end()) return done->second;
  const long trips = a % 7 + 1;
  double flops = static_cast<double>(trips * (trips - 1) / 2 + trips * a);
  if (level + 1 < depth)
    flops +=
        deep_call_chain_flops(depth, level + 1, a + 1) + deep_call_chain_flops(depth, level + 1, a > 1 ? a - 1 : 0);
  return memo[key] = flops;
}

}  // namespace perfcast::testing
