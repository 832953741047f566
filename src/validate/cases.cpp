#include "validate/cases.h"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "support/error.h"

namespace perfcast::validate {
namespace fs = std::filesystem;

namespace {

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const toml::node* n, const std::string& key, const std::string& message,
                         const std::string& hint = {}) const {
    SourceLocation where{file_, std::nullopt, key};
    if (n && n->source().begin.line > 0) where.line = static_cast<int>(n->source().begin.line);
    throw UserError(message, where, hint);
  }

  std::string string(const toml::node& n, const std::string& key) const {
    if (!n.is_string()) fail(&n, key, "expected a string");
    return n.as_string()->get();
  }

  int positive_int(const toml::node& n, const std::string& key, int minimum) const {
    if (!n.is_integer()) fail(&n, key, "expected an integer");
    std::int64_t v = n.as_integer()->get();
    if (v < minimum || v > 1'000'000) fail(&n, key, fmt::format("expected an integer >= {}, found {}", minimum, v));
    return static_cast<int>(v);
  }

  expr::Value number(const toml::node& n, const std::string& key) const {
    if (n.is_integer()) return expr::Value(n.as_integer()->get());
    if (n.is_floating_point()) return expr::Value(n.as_floating_point()->get());
    fail(&n, key, "expected a number (placeholders are numbers: sizes, steps)");
  }

  Settings settings(const toml::node& n) const {
    const toml::table* t = n.as_table();
    if (!t) fail(&n, "settings", "expected a table [settings]");
    Settings s;
    for (const auto& [k, v] : *t) {
      std::string key = "settings." + std::string(k.str());
      if (k == "machine") {
        s.machine = string(v, key);
      } else if (k == "repeats") {
        s.repeats = positive_int(v, key, 1);
      } else if (k == "warmup") {
        s.warmup = positive_int(v, key, 0);
      } else if (k == "timeout_s") {
        if (!v.is_number()) fail(&v, key, "expected seconds (a number)");
        s.timeout_s = v.value<double>().value_or(0);
        if (!(s.timeout_s > 0)) fail(&v, key, "expected seconds > 0");
      } else if (k == "signature_measure") {
        s.signature_measure = positive_int(v, key, 1);
      } else if (k == "signature_warmup") {
        // `perfcast signature run --warmup`: "auto" or a count of occurrences.
        if (v.is_string() && v.value<std::string>() == "auto")
          s.signature_warmup = "auto";
        else if (v.is_string())
          fail(&v, key, "expected \"auto\" or an integer >= 0");
        else
          s.signature_warmup = std::to_string(positive_int(v, key, 0));
      } else {
        fail(&v, key, "unknown key",
             "[settings] knows machine, repeats, warmup, timeout_s, signature_measure, signature_warmup");
      }
    }
    return s;
  }

  Case one_case(const toml::table& t, int index) const {
    Case c;
    c.line = t.source().begin.line > 0 ? static_cast<int>(t.source().begin.line) : 0;
    std::string prefix = fmt::format("case[{}].", index);
    bool has_args = false;
    for (const auto& [k, v] : t) {
      std::string name(k.str());
      std::string key = prefix + name;
      if (name == "app") {
        c.app = string(v, key);
        if (c.app.empty() || c.app.find('/') != std::string::npos || c.app.front() == '.')
          fail(&v, key, fmt::format("'{}' is not an app name (a folder of apps/, e.g. \"wave3d\")", c.app));
      } else if (name == "args") {
        c.args = string(v, key);
        has_args = true;
      } else if (name == "skeleton_args") {
        c.skeleton_args = string(v, key);
      } else if (name == "dataset") {
        // Relative to the cases file, as the machine file is.
        c.dataset = string(v, key);
        if (c.dataset.empty()) fail(&v, key, "expected a file: feature records or a learned model");
      } else if (name == "ranks") {
        const toml::array* a = v.as_array();
        if (!a || a->empty()) fail(&v, key, "expected a non-empty array of rank counts, e.g. [1, 2]");
        for (const toml::node& r : *a) c.ranks.push_back(positive_int(r, key, 1));
      } else {
        try {
          (void)expr::var(name);
        } catch (const UserError&) {
          fail(&v, key, fmt::format("'{}' is not a placeholder name (letters, digits, _)", name));
        }
        Placeholder p{name, {}};
        if (const toml::array* a = v.as_array()) {
          if (a->empty()) fail(&v, key, "expected at least one value");
          for (const toml::node& x : *a) p.values.push_back(number(x, key));
        } else {
          p.values.push_back(number(v, key));
        }
        c.placeholders.push_back(std::move(p));
      }
    }
    if (c.app.empty()) fail(&t, prefix + "app", "missing: every case names an app of apps/");
    if (!has_args) fail(&t, prefix + "args", "missing: the app's arguments (\"\" for none)");
    if (c.ranks.empty()) fail(&t, prefix + "ranks", "missing: the rank counts, e.g. ranks = [1, 2]");
    if (c.skeleton_args.empty()) c.skeleton_args = c.args;
    std::sort(c.ranks.begin(), c.ranks.end());
    c.ranks.erase(std::unique(c.ranks.begin(), c.ranks.end()), c.ranks.end());
    // toml++ keeps a table's keys sorted; the sizes are listed in the order of their lines.
    std::stable_sort(c.placeholders.begin(), c.placeholders.end(), [&](const Placeholder& a, const Placeholder& b) {
      return t.get(a.name)->source().begin.line < t.get(b.name)->source().begin.line;
    });
    // Every placeholder the templates use must have values: checked now, with the line.
    expr::Bindings probe;
    probe["ranks"] = expr::Value(1);
    for (const Placeholder& p : c.placeholders) probe[p.name] = p.values.front();
    try {
      (void)render(c.args, probe, "args");
      (void)render(c.skeleton_args, probe, "skeleton_args");
    } catch (const UserError& e) {
      fail(&t, prefix + "args", e.what());
    }
    return c;
  }

 private:
  std::string file_;
};

}  // namespace

CasesFile parse_cases(std::string_view toml_text, const fs::path& path) {
  std::string file = path.string();
  toml::table root;
  try {
    root = toml::parse(toml_text, file);
  } catch (const toml::parse_error& e) {
    std::optional<int> line;
    if (e.source().begin.line > 0) line = static_cast<int>(e.source().begin.line);
    throw UserError(fmt::format("not valid TOML: {}", e.description()), {file, line, ""});
  }
  Reader r(file);
  CasesFile out;
  out.path = path;
  for (const auto& [k, v] : root) {
    if (k == "settings") {
      out.settings = r.settings(v);
    } else if (k == "case") {
      const toml::array* a = v.as_array();
      if (!a || !a->is_array_of_tables()) r.fail(&v, "case", "expected [[case]] tables");
      int i = 0;
      for (const toml::node& c : *a) out.cases.push_back(r.one_case(*c.as_table(), i++));
    } else {
      r.fail(&v, std::string(k.str()), "unknown key", "a cases file has [settings] and [[case]] tables");
    }
  }
  if (out.cases.empty()) throw UserError("no [[case]] tables: nothing to validate", {file, std::nullopt, "case"});
  if (out.settings.machine.empty())
    throw UserError("missing: the machine file every method prices with", {file, std::nullopt, "settings.machine"},
                    "add [settings] machine = \"path.toml\" (or pass --machine)");
  return out;
}

CasesFile load_cases(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read the cases file", {path.string(), std::nullopt, ""});
  std::stringstream text;
  text << in.rdbuf();
  return parse_cases(text.str(), path);
}

std::string render(std::string_view text, const expr::Bindings& values, const std::string& what) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char ch = text[i];
    if (ch == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      out += '{';
      ++i;
    } else if (ch == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      out += '}';
      ++i;
    } else if (ch == '{') {
      std::size_t end = text.find('}', i);
      if (end == std::string_view::npos)
        throw UserError(fmt::format("{}: '{{' at column {} is not closed", what, i + 1));
      std::string name(text.substr(i + 1, end - i - 1));
      auto it = values.find(name);
      if (it == values.end()) {
        std::string known;
        for (const auto& [k, v] : values) known += (known.empty() ? "" : ", ") + k;
        throw UserError(fmt::format("{}: no values for placeholder {{{}}} (the case has: {})", what, name, known));
      }
      out += it->second.str();
      i = end;
    } else {
      out += ch;
    }
  }
  return out;
}

std::vector<std::string> split_args(const std::string& args) {
  std::vector<std::string> out;
  std::istringstream in(args);
  std::string word;
  while (in >> word) out.push_back(word);
  return out;
}

std::vector<Run> expand(const CasesFile& file) {
  std::vector<Run> runs;
  for (std::size_t ci = 0; ci < file.cases.size(); ++ci) {
    const Case& c = file.cases[ci];
    // Every combination of the placeholders' values, the first placeholder slowest.
    std::vector<std::size_t> index(c.placeholders.size(), 0);
    bool done = false;
    while (!done) {
      expr::Bindings values;
      std::string size;
      for (std::size_t p = 0; p < c.placeholders.size(); ++p) {
        const Placeholder& ph = c.placeholders[p];
        values[ph.name] = ph.values[index[p]];
        size += (size.empty() ? "" : " ") + ph.name + "=" + ph.values[index[p]].str();
      }
      expr::Bindings one = values;
      one["ranks"] = expr::Value(1);
      std::string args_one = render(c.args, one, "args");
      for (int r : c.ranks) {
        Run run;
        run.case_index = static_cast<int>(ci);
        run.app = c.app;
        run.values = values;
        run.values["ranks"] = expr::Value(r);
        run.args = render(c.args, run.values, "args");
        run.skeleton_args = render(c.skeleton_args, run.values, "skeleton_args");
        run.args_one_rank = args_one;
        run.size = size;
        run.ranks = r;
        if (!c.dataset.empty()) {
          std::filesystem::path d(c.dataset);
          run.dataset = (d.is_absolute() ? d : file.path.parent_path() / d).lexically_normal().string();
        }
        runs.push_back(std::move(run));
      }
      done = true;
      for (std::size_t p = c.placeholders.size(); p-- > 0;) {
        if (++index[p] < c.placeholders[p].values.size()) {
          done = false;
          break;
        }
        index[p] = 0;
      }
    }
  }
  return runs;
}

}  // namespace perfcast::validate
