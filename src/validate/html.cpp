// `perfcast validate --html`: the rows as one self-contained page. The plots are Vega
// specifications (JSON) written here and drawn in the browser by Debian's libjs-vega,
// whose modules are inlined into the page, so it opens anywhere without a network.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "support/error.h"
#include "support/markup.h"
#include "validate/cells.h"
#include "validate/validate.h"

namespace perfcast::validate {
namespace fs = std::filesystem;
using nlohmann::json;
using cells::percent;
using cells::run_key;
using cells::seconds;

namespace {

// The Vega modules a page needs to parse and draw its specifications as SVG, by the
// names the modules `require` each other (Debian ships them apart, not as one bundle).
const std::vector<std::string> kVegaModules = {
    "vega-util",       "vega-canvas",     "vega-loader",          "vega-format",     "vega-time",
    "vega-dataflow",   "vega-scale",      "vega-scenegraph",      "vega-expression", "vega-selection",
    "vega-statistics", "vega-functions",  "vega-event-selector",  "vega-parser",     "vega-runtime",
    "vega-view",       "vega-transforms", "vega-view-transforms", "vega-encode"};

// JSON placed inside a <script>: "</" would end the script element.
std::string script_json(const json& j) {
  std::string text = j.dump();
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/')
      out += "<\\";
    else
      out += text[i];
  }
  return out;
}


// A run's label on a category axis: its size and rank count.
std::string run_label(const Row& r) {
  return fmt::format("{} · {} rank{}{}", r.size, r.ranks, r.ranks == 1 ? "" : "s",
                     r.oversubscribed ? " (oversub.)" : "");
}

// The predicting methods present, in the table's order (naive first: it is the baseline).
std::vector<std::string> methods_present(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const std::string& m : kMethods)
    if (m != "measured" && std::any_of(rows.begin(), rows.end(), [&](const Row& r) { return r.method == m; }))
      out.push_back(m);
  return out;
}

std::vector<std::string> apps_present(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& r : rows)
    if (std::find(out.begin(), out.end(), r.app) == out.end()) out.push_back(r.app);
  return out;
}

json method_color_scale(const std::vector<std::string>& methods) {
  return {{"name", "color"}, {"type", "ordinal"}, {"domain", methods}, {"range", "category"}};
}

json tooltip(const std::string& extra) {
  return {{"signal", "{'run': datum.app + ' ' + datum.size + ', ' + datum.ranks + ' ranks', 'method': datum.method" +
                         extra + "}"}};
}

// Predicted against measured, every run and method on log axes, the line of no error
// and the lines of +-20 %. Predictions <= 0 cannot sit on a log axis: counted in the
// subtitle, shown in the table.
json scatter_spec(const std::vector<Row>& rows) {
  json points = json::array();
  double lo = 0, hi = 0;
  int left_out = 0;
  for (const Row& r : rows) {
    if (r.method == "measured" || !r.predicted_s || !r.measured_s || *r.measured_s <= 0) continue;
    if (*r.predicted_s <= 0) {
      ++left_out;
      continue;
    }
    for (double v : {*r.predicted_s, *r.measured_s}) {
      lo = lo == 0 ? v : std::min(lo, v);
      hi = std::max(hi, v);
    }
    points.push_back({{"app", r.app},
                      {"size", r.size},
                      {"ranks", r.ranks},
                      {"method", r.method},
                      {"measured_s", *r.measured_s},
                      {"predicted_s", *r.predicted_s},
                      {"basis", r.basis},
                      {"error_pct", *r.error * 100}});
  }
  if (points.empty()) return nullptr;
  lo /= 1.5;
  hi *= 1.5;
  json lines = json::array();
  for (double f : {0.8, 1.0, 1.2})
    for (double t : {lo, hi}) lines.push_back({{"factor", f}, {"t", t}, {"p", t * f}});
  std::string subtitle = "log axes; dashed: no error, dotted: +-20 %";
  const std::string hover =
      ", 'basis': datum.basis, 'measured': format(datum.measured_s, '.3s') + 's', 'predicted': "
      "format(datum.predicted_s, '.3s') + 's', 'error': format(datum.error_pct, '+.0f') + ' %'";
  if (left_out)
    subtitle += fmt::format("; {} prediction{} <= 0 left out (see the table)", left_out, left_out > 1 ? "s" : "");
  return {{"$schema", "https://vega.github.io/schema/vega/v5.json"},
          {"width", 460},
          {"height", 400},
          {"padding", 5},
          {"title", {{"text", "Predicted against measured"}, {"subtitle", subtitle}, {"anchor", "start"}}},
          {"data", {{{"name", "points"}, {"values", points}}, {{"name", "lines"}, {"values", lines}}}},
          {"scales",
           {{{"name", "x"}, {"type", "log"}, {"domain", {lo, hi}}, {"range", "width"}},
            {{"name", "y"}, {"type", "log"}, {"domain", {lo, hi}}, {"range", "height"}},
            method_color_scale(methods_present(rows)),
            {{"name", "shape"}, {"type", "ordinal"}, {"domain", apps_present(rows)}, {"range", "symbol"}}}},
          {"axes",
           {{{"orient", "bottom"}, {"scale", "x"}, {"title", "measured (s)"}, {"format", "~s"}, {"grid", true}},
            {{"orient", "left"}, {"scale", "y"}, {"title", "predicted (s)"}, {"format", "~s"}, {"grid", true}}}},
          {"legends",
           {{{"fill", "color"}, {"title", "method"}, {"symbolType", "circle"}},
            {{"shape", "shape"}, {"title", "app"}, {"symbolFillColor", "#888"}, {"symbolStrokeColor", "#888"}}}},
          {"marks",
           {{{"type", "group"},
             {"from", {{"facet", {{"name", "line"}, {"data", "lines"}, {"groupby", "factor"}}}}},
             // the plot's size, so that the lines clip to it
             {"encode", {{"enter", {{"width", {{"signal", "width"}}}, {"height", {{"signal", "height"}}}}}}},
             {"marks",
              {{{"type", "line"},
                {"from", {{"data", "line"}}},
                {"clip", true},
                {"encode",
                 {{"enter",
                   {{"x", {{"scale", "x"}, {"field", "t"}}},
                    {"y", {{"scale", "y"}, {"field", "p"}}},
                    {"stroke", {{"value", "#777"}}},
                    {"strokeDash", {{"signal", "datum.factor == 1 ? [6, 4] : [2, 3]"}}}}}}}}}}},
            {{"type", "symbol"},
             {"from", {{"data", "points"}}},
             {"encode",
              {{"enter",
                {{"x", {{"scale", "x"}, {"field", "measured_s"}}},
                 {"y", {{"scale", "y"}, {"field", "predicted_s"}}},
                 {"fill", {{"scale", "color"}, {"field", "method"}}},
                 {"shape", {{"scale", "shape"}, {"field", "app"}}},
                 {"size", {{"value", 70}}},
                 {"opacity", {{"value", 0.85}}},
                 {"tooltip", tooltip(hover)}}}}}}}}};
}

// One app's runs (size and rank count) on a category axis, the measured median with its
// quartiles and each method's prediction beside it, on a log time axis.
json app_spec(const std::string& app, const std::vector<Row>& rows) {
  json measured = json::array(), predicted = json::array();
  std::vector<std::string> runs;
  double lo = 0, hi = 0;
  auto extend = [&](double v) {
    if (v <= 0) return;
    lo = lo == 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  };
  std::set<std::string> whole_run;  // methods whose dots are of the whole run, not the bar's timed region
  for (const Row& r : rows) {
    if (r.app != app) continue;
    if (r.predicted_s && r.basis == kWholeRun) whole_run.insert(r.method);
    std::string label = run_label(r);
    if (std::find(runs.begin(), runs.end(), label) == runs.end()) runs.push_back(label);
    if (r.method == "measured" && r.measured_s) {
      json m = {{"app", r.app},
                {"size", r.size},
                {"ranks", r.ranks},
                {"method", "measured"},
                {"run", label},
                {"t", *r.measured_s},
                {"q1", r.measured_q1_s.value_or(*r.measured_s)},
                {"q3", r.measured_q3_s.value_or(*r.measured_s)}};
      extend(m["t"]);
      extend(m["q1"]);
      extend(m["q3"]);
      measured.push_back(m);
    } else if (r.method != "measured" && r.predicted_s && *r.predicted_s > 0) {
      extend(*r.predicted_s);
      predicted.push_back({{"app", r.app},
                           {"size", r.size},
                           {"ranks", r.ranks},
                           {"method", r.method},
                           {"run", label},
                           {"t", *r.predicted_s},
                           {"basis", r.basis},
                           {"error_pct", r.error ? json(*r.error * 100) : json(nullptr)}});
    }
  }
  if (measured.empty() && predicted.empty()) return nullptr;
  std::vector<std::string> methods = methods_present(rows);
  int width = std::max(220, static_cast<int>(runs.size()) * (30 + 12 * static_cast<int>(methods.size())));
  std::string subtitle = "bar: measured median, q1-q3; dots: predictions";
  if (!whole_run.empty())
    subtitle += fmt::format(" ({}: of the whole run, not the bar's timed region)", fmt::join(whole_run, ", "));
  const std::string hover =
      ", 'basis': datum.basis, 'predicted': format(datum.t, '.3s') + 's', 'error': datum.error_pct == null ? '-' : "
      "format(datum.error_pct, '+.0f') + ' %'";
  return {{"$schema", "https://vega.github.io/schema/vega/v5.json"},
          {"width", width},
          {"height", 240},
          // room on the left for the first run's slanted label, which autosize leaves out
          {"padding", {{"left", 100}, {"top", 5}, {"right", 5}, {"bottom", 5}}},
          {"title", {{"text", app}, {"subtitle", subtitle}, {"anchor", "start"}}},
          {"data", {{{"name", "measured"}, {"values", measured}}, {{"name", "predicted"}, {"values", predicted}}}},
          {"scales",
           {{{"name", "x"}, {"type", "band"}, {"domain", runs}, {"range", "width"}, {"padding", 0.2}},
            {{"name", "offset"}, {"type", "band"}, {"domain", methods}, {"range", {0, {{"signal", "bandwidth('x')"}}}}},
            {{"name", "y"}, {"type", "log"}, {"domain", {lo / 1.3, hi * 1.3}}, {"range", "height"}},
            method_color_scale(methods)}},
          {"axes",
           {{{"orient", "bottom"}, {"scale", "x"}, {"labelAngle", -30}, {"labelAlign", "right"}, {"labelLimit", 160}},
            {{"orient", "left"}, {"scale", "y"}, {"title", "time (s)"}, {"format", "~s"}, {"grid", true}}}},
          {"marks",
           {{{"type", "rect"},
             {"from", {{"data", "measured"}}},
             {"encode",
              {{"enter",
                {{"x", {{"scale", "x"}, {"field", "run"}}},
                 {"width", {{"scale", "x"}, {"band", 1}}},
                 {"y", {{"scale", "y"}, {"field", "q3"}}},
                 {"y2", {{"scale", "y"}, {"field", "q1"}}},
                 {"fill", {{"value", "#ddd"}}},
                 {"tooltip", tooltip(", 'median': format(datum.t, '.3s') + 's', 'q1-q3': format(datum.q1, '.3s') + "
                                     "' - ' + format(datum.q3, '.3s') + 's'")}}}}}},
            {{"type", "rect"},
             {"from", {{"data", "measured"}}},
             {"encode",
              {{"enter",
                {{"x", {{"scale", "x"}, {"field", "run"}}},
                 {"width", {{"scale", "x"}, {"band", 1}}},
                 {"y", {{"scale", "y"}, {"field", "t"}}},
                 {"height", {{"value", 2}}},
                 {"fill", {{"value", "#222"}}}}}}}},
            {{"type", "symbol"},
             {"from", {{"data", "predicted"}}},
             {"encode",
              {{"enter",
                {{"x", {{"signal", "scale('x', datum.run) + scale('offset', datum.method) + bandwidth('offset') / 2"}}},
                 {"y", {{"scale", "y"}, {"field", "t"}}},
                 {"fill", {{"scale", "color"}, {"field", "method"}}},
                 {"size", {{"value", 60}}},
                 {"tooltip", tooltip(hover)}}}}}}}}};
}

// Signed error of every row by app (rows) and method (colour, offset within the app),
// on a symmetric-log axis: linear within +-10 %, logarithmic beyond, so -30 % and
// +4000 % both stay readable. The band is +-20 %.
json error_spec(const std::vector<Row>& rows) {
  json points = json::array();
  double lo = -100, hi = 100;
  for (const Row& r : rows) {
    if (r.method == "measured" || !r.error) continue;
    double pct = *r.error * 100;
    lo = std::min(lo, pct);
    hi = std::max(hi, pct);
    points.push_back({{"app", r.app}, {"size", r.size}, {"ranks", r.ranks}, {"method", r.method}, {"error_pct", pct}});
  }
  if (points.empty()) return nullptr;
  json ticks = json::array();
  for (double t : {-1000.0, -500.0, -200.0, -100.0, -50.0, -20.0, 0.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0,
                   5000.0, 10000.0, 20000.0, 50000.0})
    if (t >= lo && t <= hi) ticks.push_back(t);
  std::vector<std::string> apps = apps_present(rows);
  std::vector<std::string> methods = methods_present(rows);
  return {{"$schema", "https://vega.github.io/schema/vega/v5.json"},
          {"width", 560},
          {"height", std::max(120, 26 * static_cast<int>(apps.size() * methods.size()) / 2)},
          {"padding", 5},
          {"title",
           {{"text", "Signed error by method and app"},
            {"subtitle", "predicted / measured - 1; symmetric-log axis, shaded: within 20 %"},
            {"anchor", "start"}}},
          {"data", {{{"name", "points"}, {"values", points}}}},
          {"scales",
           {{{"name", "x"}, {"type", "symlog"}, {"constant", 10}, {"domain", {lo, hi}}, {"range", "width"}},
            {{"name", "y"}, {"type", "band"}, {"domain", apps}, {"range", "height"}, {"padding", 0.15}},
            {{"name", "offset"}, {"type", "band"}, {"domain", methods}, {"range", {0, {{"signal", "bandwidth('y')"}}}}},
            method_color_scale(methods)}},
          {"axes",
           {{{"orient", "bottom"}, {"scale", "x"}, {"title", "error (%)"}, {"values", ticks}, {"grid", true}},
            {{"orient", "left"}, {"scale", "y"}}}},
          {"legends", {{{"fill", "color"}, {"title", "method"}, {"symbolType", "circle"}}}},
          {"marks",
           {{{"type", "rect"},
             {"encode",
              {{"enter",
                {{"x", {{"scale", "x"}, {"value", -20}}},
                 {"x2", {{"scale", "x"}, {"value", 20}}},
                 {"y", {{"value", 0}}},
                 {"y2", {{"signal", "height"}}},
                 {"fill", {{"value", "#e6f2e6"}}}}}}}},
            {{"type", "rule"},
             {"encode",
              {{"enter",
                {{"x", {{"scale", "x"}, {"value", 0}}},
                 {"y", {{"value", 0}}},
                 {"y2", {{"signal", "height"}}},
                 {"stroke", {{"value", "#444"}}}}}}}},
            {{"type", "symbol"},
             {"from", {{"data", "points"}}},
             {"encode",
              {{"enter",
                {{"x", {{"scale", "x"}, {"field", "error_pct"}}},
                 {"y", {{"signal", "scale('y', datum.app) + scale('offset', datum.method) + bandwidth('offset') / 2"}}},
                 {"fill", {{"scale", "color"}, {"field", "method"}}},
                 {"size", {{"value", 50}}},
                 {"opacity", {{"value", 0.8}}},
                 {"tooltip", tooltip(", 'size': datum.size, 'error': format(datum.error_pct, '+.0f') + ' %'")}}}}}}}}};
}

// Where each simulated rank's time went: calc, wait and comm as shares of the rank's
// simulated time, one bar per rank of every skeleton and trace-replay row, its total
// written beside it. Shares, because the runs' totals differ by orders of magnitude.
json ranks_spec(const std::vector<Row>& rows) {
  json parts = json::array(), totals = json::array();
  std::vector<std::string> bars;
  for (const Row& r : rows) {
    if (r.per_rank.empty()) continue;
    for (const RankTimes& t : r.per_rank) {
      std::string bar = fmt::format("{} {} · {} rank{} · {} · rank {}", r.app, r.size, r.ranks, r.ranks == 1 ? "" : "s",
                                    r.method, t.rank);
      bars.push_back(bar);
      double total = t.calc_s + t.wait_s + t.comm_s;
      double start = 0;
      for (const auto& [part, s] :
           {std::pair<const char*, double>{"calc", t.calc_s}, {"wait", t.wait_s}, {"comm", t.comm_s}}) {
        double share = total > 0 ? s / total : 0;
        parts.push_back({{"bar", bar}, {"part", part}, {"s", s}, {"x0", start}, {"x1", start + share}});
        start += share;
      }
      totals.push_back({{"bar", bar}, {"total_s", total}});
    }
  }
  if (bars.empty()) return nullptr;
  return {{"$schema", "https://vega.github.io/schema/vega/v5.json"},
          {"width", 420},
          {"height", 16 * static_cast<int>(bars.size())},
          {"padding", 5},
          {"title",
           {{"text", "Simulated ranks: calc, wait, comm"},
            {"subtitle", "share of each rank's simulated time (the whole job), its total at the right"},
            {"anchor", "start"}}},
          {"data", {{{"name", "parts"}, {"values", parts}}, {{"name", "totals"}, {"values", totals}}}},
          {"scales",
           {{{"name", "x"}, {"type", "linear"}, {"domain", {0, 1}}, {"range", "width"}},
            {{"name", "y"}, {"type", "band"}, {"domain", bars}, {"range", "height"}, {"padding", 0.2}},
            {{"name", "color"},
             {"type", "ordinal"},
             {"domain", {"calc", "wait", "comm"}},
             {"range", {"#4c78a8", "#e45756", "#f2a93b"}}}}},
          {"axes",
           {{{"orient", "bottom"}, {"scale", "x"}, {"format", "%"}, {"title", "share of the rank's time"}},
            {{"orient", "left"}, {"scale", "y"}, {"labelLimit", 360}}}},
          {"legends", {{{"fill", "color"}, {"title", "part"}, {"orient", "top"}, {"direction", "horizontal"}}}},
          {"marks",
           {{{"type", "rect"},
             {"from", {{"data", "parts"}}},
             {"encode",
              {{"enter",
                {{"x", {{"scale", "x"}, {"field", "x0"}}},
                 {"x2", {{"scale", "x"}, {"field", "x1"}}},
                 {"y", {{"scale", "y"}, {"field", "bar"}}},
                 {"height", {{"scale", "y"}, {"band", 1}}},
                 {"fill", {{"scale", "color"}, {"field", "part"}}},
                 {"tooltip",
                  {{"signal",
                    "{'rank': datum.bar, 'part': datum.part, 'time': format(datum.s, '.3s') + 's', "
                    "'share': format(datum.x1 - datum.x0, '.0%')}"}}}}}}}},
            {{"type", "text"},
             {"from", {{"data", "totals"}}},
             {"encode",
              {{"enter",
                {{"x", {{"signal", "width + 4"}}},
                 {"y", {{"scale", "y"}, {"field", "bar"}, {"band", 0.5}}},
                 {"baseline", {{"value", "middle"}}},
                 {"fontSize", {{"value", 10}}},
                 {"text", {{"signal", "format(datum.total_s, '.3s') + 's'"}}}}}}}}}}};
}

std::string table_html(const Outcome& o) {
  std::map<std::string, const Row*> naive;
  for (const Row& r : o.rows)
    if (r.method == "naive") naive[run_key(r)] = &r;
  std::string out =
      "<table class=\"rows\"><thead><tr><th>app</th><th>size</th><th>ranks</th><th>measured [q1-q3]</th>"
      "<th>basis</th><th>method</th><th>predicted</th><th>error</th><th>naive "
      "error</th><th>cost</th><th>note</th></tr></thead><tbody>\n";
  for (const Row& r : o.rows) {
    if (r.method == "measured" || r.method == "naive") continue;
    std::string measured = r.measured_s ? fmt::format("{} [{}-{}]", seconds(r.measured_s), seconds(r.measured_q1_s),
                                                      seconds(r.measured_q3_s))
                                        : "";
    std::string naive_error;
    if (auto it = naive.find(run_key(r)); it != naive.end())
      naive_error = it->second->error ? percent(it->second->error)
                                      : "<span class=\"why\">" + xml_escaped(it->second->note) + "</span>";
    std::string error_class;
    if (r.error) error_class = std::fabs(*r.error) <= 0.2 ? " class=\"good\"" : " class=\"bad\"";
    // An empty cell says why; a figure's note says how it was made.
    std::string note = r.predicted_s ? "<span class=\"how\">" + xml_escaped(r.note) + "</span>"
                                     : "<span class=\"why\">" + xml_escaped(r.note) + "</span>";
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td{}>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td></tr>\n",
        xml_escaped(r.app), xml_escaped(r.size), r.ranks, r.oversubscribed ? " (oversub.)" : "", measured,
        xml_escaped(r.basis), xml_escaped(r.method),
        r.predicted_s ? seconds(r.predicted_s) : "<span class=\"empty\">empty</span>", error_class, percent(r.error),
        naive_error, xml_escaped(fmt::format("{:.1f} s, {}", r.cost_s, r.cost_runs)), note);
  }
  out += "</tbody></table>\n";
  out +=
      "<table class=\"summary\"><thead><tr><th>method</th><th>rows with an error</th><th>mean |error|</th>"
      "<th>within 20 %</th><th>naive over the same rows: mean |error|</th><th>naive within 20 %</th></tr></thead>"
      "<tbody>\n";
  for (const MethodSummary& s : summarize(o.rows)) {
    if (s.method == "naive") continue;
    out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}/{}</td><td>{}</td><td>{}</td></tr>\n", s.method,
                       s.rows, s.rows ? fmt::format("{:.0f} %", s.mean_abs_error * 100) : "-", s.within_20, s.rows,
                       s.naive_rows ? fmt::format("{:.0f} %", s.naive_mean_abs_error * 100) : "-",
                       s.naive_rows ? fmt::format("{}/{}", s.naive_within_20, s.naive_rows) : "-");
  }
  out += "</tbody></table>\n";
  return out;
}

// The page's script: records every error (uncaught, rejected, console.error) into
// #page-errors and data-errors, loads the inlined Vega modules through a small
// CommonJS `require`, draws each chart as SVG and sets data-rendered on <body> to the
// number of charts drawn, so a headless browser can check the page without a person.
const char* kPageScript = R"JS(
var perfcastVega = (function () {
  var factories = {}, cache = {};
  // Debian's vega-functions requires the upstream package name of vega-selection.
  var aliases = {"vega-selections": "vega-selection"};
  function require(name) {
    name = aliases[name] || name;
    if (name in cache) return cache[name];
    if (!(name in factories)) throw new Error("the page lacks the Vega module " + name);
    var module = {exports: {}};
    cache[name] = module.exports;
    factories[name].call(self, module, module.exports, require);
    cache[name] = module.exports;
    return module.exports;
  }
  return {define: function (name, factory) { factories[name] = factory; }, require: require};
})();
)JS";

const char* kDrawScript = R"JS(
(function () {
  var require = perfcastVega.require;
  // As the vega package itself does: the transforms of its modules registered with the dataflow.
  var dataflow = require("vega-dataflow");
  Object.assign(dataflow.transforms, require("vega-transforms"), require("vega-view-transforms"),
                require("vega-encode"));
  var parse = require("vega-parser").parse, View = require("vega-view").View;
  var ids = Object.keys(perfcastCharts);
  var runs = ids.map(function (id) {
    var view = new View(parse(perfcastCharts[id]), {renderer: "svg", container: "#" + id, hover: true});
    return view.runAsync();
  });
  Promise.all(runs).then(function () {
    document.body.setAttribute("data-rendered", String(runs.length));
  }, function (e) { perfcastRecordError("drawing the charts: " + (e && e.message || e)); });
})();
)JS";

const char* kErrorScript = R"JS(
var perfcastErrors = [];
function perfcastRecordError(message) {
  perfcastErrors.push(String(message));
  var pre = document.getElementById("page-errors");
  pre.textContent = perfcastErrors.join("\n");
  pre.hidden = false;
  document.body.setAttribute("data-errors", String(perfcastErrors.length));
}
window.addEventListener("error", function (e) { perfcastRecordError("error: " + e.message); });
window.addEventListener("unhandledrejection", function (e) {
  perfcastRecordError("unhandled rejection: " + (e.reason && e.reason.message || e.reason));
});
(function () {
  var consoleError = console.error;
  console.error = function () {
    perfcastRecordError(Array.prototype.join.call(arguments, " "));
    consoleError.apply(console, arguments);
  };
})();
)JS";

const char* kStyle = R"CSS(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
table { border-collapse: collapse; margin: 12px 0; font-size: 12px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; }
td.good { color: #1a7f37; } td.bad { color: #b42318; }
.empty { color: #999; } .why { color: #b54708; } .how { color: #777; }
#page-errors { color: #b42318; white-space: pre-wrap; }
)CSS";

}  // namespace

fs::path vega_directory() { return PERFCAST_VEGA_DIR; }

std::string read_vega_library(const fs::path& dir) {
  std::string out;
  for (const std::string& module : kVegaModules) {
    fs::path file = dir / (module + ".min.js");
    std::ifstream in(file);
    if (!in)
      throw UserError(fmt::format("cannot read the Vega module {}", file.string()), {},
                      "install Debian's libjs-vega (apt-get install libjs-vega; scripts/setup does), "
                      "then configure perfcast again");
    std::stringstream text;
    text << in.rdbuf();
    std::string code = text.str();
    // The source map is not inlined: its comment would only name a file the page lacks.
    if (auto map = code.rfind("//# sourceMappingURL="); map != std::string::npos) code.erase(map);
    if (code.find("</script") != std::string::npos)
      throw UserError(fmt::format("the Vega module {} holds \"</script\" and cannot be inlined", file.string()));
    out += fmt::format("perfcastVega.define(\"{}\", function (module, exports, require) {{\n{}\n}});\n", module, code);
  }
  return out;
}

std::string outcome_html(const Outcome& o, const std::string& vega_js) {
  json charts = json::object();
  auto add = [&](const std::string& id, json spec) {
    if (spec.is_null()) return false;
    charts[id] = std::move(spec);
    return true;
  };
  std::string overview, per_app, ranks;
  if (add("chart-scatter", scatter_spec(o.rows))) overview += "<div id=\"chart-scatter\"></div>\n";
  if (add("chart-errors", error_spec(o.rows))) overview += "<div id=\"chart-errors\"></div>\n";
  int index = 0;
  for (const std::string& app : apps_present(o.rows)) {
    std::string id = fmt::format("chart-app-{}", index++);
    if (add(id, app_spec(app, o.rows))) per_app += fmt::format("<div id=\"{}\"></div>\n", id);
  }
  if (add("chart-ranks", ranks_spec(o.rows))) ranks += "<div id=\"chart-ranks\"></div>\n";

  std::string page = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  page +=
      fmt::format("<title>perfcast validate on {}</title>\n<style>{}</style></head>\n", xml_escaped(o.machine), kStyle);
  page += fmt::format("<body data-charts=\"{}\">\n", charts.size());
  page += fmt::format("<h1>perfcast validate on machine {}</h1>\n", xml_escaped(o.machine));
  std::string launches =
      o.counts_known ? fmt::format(
                           " {} measured launches, {} traced launches in the run that wrote these rows; {} rows read "
                           "back from a results file.",
                           o.timed_runs, o.traced_runs, o.rows_resumed)
                     : " Rendered from a results file, which does not record the launches.";
  std::string not_built =
      kMethodsNotBuilt.empty() ? "" : fmt::format(" Not built yet: {}.", fmt::join(kMethodsNotBuilt, ", "));
  page += fmt::format("<p>Error = predicted / measured - 1 (basis: what both are times of).{}{}</p>\n", launches,
                      not_built);
  page += "<pre id=\"page-errors\" hidden></pre>\n";
  page += "<h2>Every method against the measured runs</h2>\n<div class=\"charts\">\n" + overview + "</div>\n";
  page += "<h2>Per app: time across sizes and process counts</h2>\n<div class=\"charts\">\n" + per_app + "</div>\n";
  if (!ranks.empty()) page += "<h2>Per rank, from the simulator</h2>\n<div class=\"charts\">\n" + ranks + "</div>\n";
  page += "<h2>The table</h2>\n" + table_html(o);
  page += "<script>" + std::string(kErrorScript) + "</script>\n";
  page += "<script>" + std::string(kPageScript) + vega_js + "</script>\n";
  page += "<script>var perfcastCharts = " + script_json(charts) + ";\n" + kDrawScript + "</script>\n";
  page += "</body></html>\n";
  return page;
}

}  // namespace perfcast::validate
