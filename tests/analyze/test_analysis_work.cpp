// The analyser's work grows with the code, not with the ways through it: a
// value the code reaches by many paths (a chain of branches, each on the
// value the one before it joined) is converted to an expression once per
// scope, however many conversions ask for it (scev_to_expr.h).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "analyze/analyze.h"
#include "model/program_model.h"
#include "scratch.h"

using namespace perfcast;
namespace fs = std::filesystem;

namespace {

// `branches` branches in a row, each on the value the last one joined:
//   if (v > m + i) { tick(i); v = v + (int)data[i]; }
// The join's value is a select on the branch's condition, which reads the
// value before it: converting the last one meets the first 2^branches times
// when each way is walked anew.
fs::path chain_of_branches(const fs::path& dir, int branches) {
  fs::path source = dir / fmt::format("branch_chain_{}.c", branches);
  std::ofstream out(source);
  out << "void tick(int);\nextern double data[64];\ndouble a[1 << 16];\n\nvoid chain(int n, int m) {\n  int v = n;\n";
  for (int i = 1; i <= branches; ++i)
    out << fmt::format("  if (v > m + {0}) {{ tick({0}); v = v + (int)data[{0}]; }}\n", i);
  out << "  for (int j = 0; j < v; ++j) a[j] = a[j] * 2.0 + 1.0;\n}\n\n"
         "int main(void) { chain(100, 3); return 0; }\n";
  return source;
}

// The value conversions the analysis of `function` made, from its --debug line.
long long conversions_of(const fs::path& source, const std::string& function) {
  analyze::AnalyzeOptions o;
  o.sources = {source};
  o.mca = false;
  o.debug = true;
  std::vector<std::string> lines;
  o.progress = [&](const std::string& line) { lines.push_back(line); };
  analyze::analyze_model(o);
  const std::regex said("^analysed " + function + " in [0-9.]+ s .*: ([0-9]+) value conversions$");
  for (const std::string& line : lines)
    if (std::smatch m; std::regex_match(line, m, said)) return std::stoll(m[1]);
  ADD_FAILURE() << "no line on the analysis of " << function;
  return -1;
}

}  // namespace

// Doubling the chain (4 -> 8 branches) at most doubles the conversions, give
// or take the loop's; walking every way would multiply them by 2^4 at least.
TEST(AnalysisWork, ConversionsGrowWithTheBranchesNotWithThePathsThroughThem) {
  fs::path dir = perfcast::testing::scratch() / "analysis_work";
  fs::create_directories(dir);
  const long long four = conversions_of(chain_of_branches(dir, 4), "chain");
  const long long eight = conversions_of(chain_of_branches(dir, 8), "chain");
  ASSERT_GT(four, 0);
  EXPECT_LT(eight, 4 * four) << "4 branches: " << four << " conversions, 8 branches: " << eight;
  fs::remove_all(dir);
}

// The summary line after the functions' analysis names the slowest, so a user
// sees where a long analysis goes.
TEST(AnalysisWork, ProgressNamesTheSlowestFunctions) {
  fs::path dir = perfcast::testing::scratch() / "analysis_slowest";
  fs::create_directories(dir);
  analyze::AnalyzeOptions o;
  o.sources = {chain_of_branches(dir, 2)};
  o.mca = false;
  std::vector<std::string> lines;
  o.progress = [&](const std::string& line) { lines.push_back(line); };
  analyze::analyze_model(o);
  const std::regex summary(
      "^analysed 2 functions in [0-9.]+ s; the slowest: (chain|main) [0-9.]+ s, (chain|main) [0-9.]+ s$");
  bool found = false;
  for (const std::string& line : lines) found = found || std::regex_match(line, summary);
  EXPECT_TRUE(found) << "no summary line naming chain and main";
  fs::remove_all(dir);
}
