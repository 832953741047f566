// `perfcast validate report ROWS --html`: the page rendered from rows a real validation
// stored (tests/validate/data/full_rows.jsonl, the results file of the run that
// docs/accuracy.md reports), checked as text, then loaded in a real headless Chromium:
// every chart drawn as SVG, no error on the page, and a screenshot taken.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "perfcast_cli.h"
#include "scratch.h"
#include "support/error.h"
#include "validate/validate.h"

namespace perfcast::testing {
namespace {
using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kRows = fs::path(PERFCAST_SOURCE_DIR) / "tests/validate/data/full_rows.jsonl";

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

fs::path render(const std::string& name) {
  fs::path page = scratch() / name;
  auto r = perfcast_run({"validate", "report", kRows.string(), "--html", page.string()}, std::chrono::seconds(60));
  EXPECT_EQ(r.exit_code, 0) << r.stderr_text;
  return page;
}

TEST(ValidateHtml, PageHoldsEveryRowTheChartsAndTheLibraryAndNothingFromOutside) {
  validate::Outcome stored = validate::read_outcome(kRows);
  fs::path page = render("page.html");
  std::string html = read(page);
  ASSERT_FALSE(html.empty());

  // One table row per predicting method's row, each empty cell with its reason.
  int predicting = 0;
  std::set<std::string> apps, reasons;
  for (const validate::Row& r : stored.rows) {
    apps.insert(r.app);
    if (r.method == "measured") continue;
    // an empty naive cell (1 rank) is shown beside the row's other methods, with its reason
    if (!r.predicted_s) reasons.insert(r.note);
    if (r.method != "naive") ++predicting;
  }
  EXPECT_EQ(count(html, "<tr><td>"), predicting + static_cast<int>(validate::summarize(stored.rows).size()) - 1);
  EXPECT_FALSE(reasons.empty()) << "the stored rows should hold an empty cell";
  for (const std::string& why : reasons) {
    std::string escaped = std::regex_replace(why, std::regex("&"), "&amp;");
    escaped = std::regex_replace(escaped, std::regex("<"), "&lt;");
    escaped = std::regex_replace(escaped, std::regex(">"), "&gt;");
    escaped = std::regex_replace(escaped, std::regex("\""), "&quot;");
    EXPECT_NE(html.find("<span class=\"why\">" + escaped + "</span>"), std::string::npos) << why;
  }

  // The charts: predicted against measured, the errors, one per app, the simulated ranks.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(html, m, std::regex("data-charts=\"([0-9]+)\""))) << "no chart count";
  EXPECT_EQ(std::stoi(m[1]), 3 + static_cast<int>(apps.size()));
  for (const char* id : {"chart-scatter", "chart-errors", "chart-ranks", "chart-app-0"})
    EXPECT_NE(html.find(std::string("<div id=\"") + id + "\">"), std::string::npos) << id;

  // Self-contained: Vega inlined, nothing fetched.
  EXPECT_NE(html.find("perfcastVega.define(\"vega-view\""), std::string::npos);
  EXPECT_EQ(html.find("<script src="), std::string::npos);
  EXPECT_EQ(html.find("<link "), std::string::npos);
  EXPECT_EQ(html.find("sourceMappingURL"), std::string::npos);
}

TEST(ValidateHtml, ReportReadsTheJsonDocumentAsItReadsTheResultsFile) {
  auto lines = perfcast_run({"validate", "report", kRows.string(), "--json"});
  ASSERT_EQ(lines.exit_code, 0) << lines.stderr_text;
  fs::path document = scratch() / "rows.json";
  std::ofstream(document) << lines.stdout_text;
  auto again = perfcast_run({"validate", "report", document.string(), "--json"});
  ASSERT_EQ(again.exit_code, 0) << again.stderr_text;
  json a = json::parse(lines.stdout_text), b = json::parse(again.stdout_text);
  EXPECT_EQ(a.at("rows"), b.at("rows"));
  EXPECT_EQ(a.at("summary"), b.at("summary"));
  // the simulating methods carry their ranks' calc, wait and comm
  int with_ranks = 0;
  for (const json& row : a.at("rows")) {
    if (row.at("per_rank").empty()) continue;
    ++with_ranks;
    EXPECT_TRUE(row.at("method") == "skeleton" || row.at("method") == "trace-replay") << row.dump();
    EXPECT_EQ(row.at("per_rank").size(), row.at("ranks").get<std::size_t>()) << row.dump();
  }
  EXPECT_GT(with_ranks, 0);
}

TEST(ValidateHtml, AMalformedRowIsNamedByFileAndLine) {
  fs::path bad = scratch() / "bad.jsonl";
  std::string first = read(kRows).substr(0, read(kRows).find('\n'));
  std::ofstream(bad) << first << "\n{\"app\": \"wave3d\"}\n";
  auto r = perfcast_run({"validate", "report", bad.string(), "--html", (scratch() / "bad.html").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.stderr_text.find(bad.string() + ":2:"), std::string::npos) << r.stderr_text;
  EXPECT_FALSE(fs::exists(scratch() / "bad.html"));
}

TEST(ValidateHtml, AMissingVegaLibraryIsAnErrorNamingTheFileAndThePackage) {
  fs::path empty = scratch() / "no-vega";
  fs::create_directories(empty);
  try {
    validate::read_vega_library(empty);
    FAIL() << "no error for a folder without Vega";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find((empty / "vega-util.min.js").string()), std::string::npos) << e.what();
    EXPECT_NE(e.hint().find("libjs-vega"), std::string::npos) << e.hint();
  }
  // the configured folder holds every module the page needs
  EXPECT_NE(validate::read_vega_library().find("perfcastVega.define(\"vega-encode\""), std::string::npos);
}

std::optional<fs::path> chromium() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':'))
    for (const char* name : {"chromium", "chromium-browser"})
      if (fs::exists(fs::path(dir) / name)) return fs::path(dir) / name;
  return std::nullopt;
}

measure::ProcessResult run_chromium(const fs::path& browser, const std::vector<std::string>& args,
                                    const std::string& profile) {
  std::vector<std::string> argv = {browser.string(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                   "--user-data-dir=" + (scratch() / profile).string(),
                                   // scripts run to their end (Vega draws asynchronously) before the dump
                                   "--virtual-time-budget=20000", "--enable-logging=stderr", "--v=0"};
  argv.insert(argv.end(), args.begin(), args.end());
  return measure::run_process(argv, std::chrono::seconds(180));
}

TEST(ValidateHtml, ChromiumDrawsEveryChartWithoutAnError) {
  std::optional<fs::path> browser = chromium();
  if (!browser) GTEST_SKIP() << "chromium is not installed (apt-get install chromium; scripts/setup installs it)";
  fs::path page = render("browser.html");
  std::string url = "file://" + page.string();

  auto dom = run_chromium(*browser, {"--dump-dom", url}, "profile-dom");
  ASSERT_EQ(dom.exit_code, 0) << dom.stderr_text;
  const std::string& html = dom.stdout_text;
  // The page's script writes data-rendered once every chart is drawn, and data-errors
  // and #page-errors for any error, console.error included.
  std::smatch charts, rendered;
  ASSERT_TRUE(std::regex_search(html, charts, std::regex("data-charts=\"([0-9]+)\"")));
  ASSERT_TRUE(std::regex_search(html, rendered, std::regex("data-rendered=\"([0-9]+)\"")))
      << "the charts were not drawn; page errors: " << html.substr(html.find("page-errors"), 600) << "\n"
      << dom.stderr_text;
  EXPECT_EQ(rendered[1], charts[1]);
  EXPECT_EQ(html.find("data-errors="), std::string::npos) << html.substr(html.find("page-errors"), 600);
  EXPECT_NE(html.find("<pre id=\"page-errors\" hidden=\"\"></pre>"), std::string::npos);
  // Console errors the page did not catch (a script that failed to parse) show in the log.
  std::regex console_error("CONSOLE[^\\n]*(Uncaught|Error)");
  EXPECT_FALSE(std::regex_search(dom.stderr_text, console_error)) << dom.stderr_text;

  // SVG marks in every chart: points, bars, lines.
  EXPECT_EQ(count(html, "<svg "), std::stoi(charts[1]));
  EXPECT_GT(count(html, "class=\"mark-symbol role-mark\""), 0);
  EXPECT_GT(count(html, "class=\"mark-rect role-mark\""), 0);
  EXPECT_GT(count(html, "class=\"mark-line role-mark\""), 0);
  // one point per row with a positive prediction, in the scatter and in the app charts
  validate::Outcome stored = validate::read_outcome(kRows);
  int points = 0;
  for (const validate::Row& r : stored.rows)
    if (r.method != "measured" && r.predicted_s && *r.predicted_s > 0 && r.measured_s) ++points;
  EXPECT_GE(count(html, "<path transform=\"translate("), 2 * points);

  // A screenshot, for people (docs/validate.md shows what it holds).
  fs::path png = scratch() / "report.png";
  auto shot = run_chromium(*browser, {"--screenshot=" + png.string(), "--window-size=1400,3200", url}, "profile-shot");
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  ASSERT_TRUE(fs::exists(png));
  std::string bytes = read(png);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_GT(bytes.size(), 20000u) << "a blank page compresses to less";
  if (const char* keep = std::getenv("PERFCAST_KEEP_SCREENSHOT"))
    fs::copy_file(png, keep, fs::copy_options::overwrite_existing);
}

}  // namespace
}  // namespace perfcast::testing
