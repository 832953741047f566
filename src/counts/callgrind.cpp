#include "counts/callgrind.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <unordered_map>

#include "support/error.h"

namespace perfcast::counts {

long CallgrindProfile::find(const std::string& object, const std::string& name) const {
  for (size_t i = 0; i < functions.size(); ++i)
    if (functions[i].object == object && functions[i].name == name) return static_cast<long>(i);
  return -1;
}

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

class Parser {
 public:
  explicit Parser(std::string source) { profile_.source = std::move(source); }

  void line(std::string_view text) {
    ++line_number_;
    text = trim(text);
    if (text.empty() || text.front() == '#') return;
    char c = text.front();
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '*') return cost_line(text);
    auto eq = text.find('=');
    auto colon = text.find(':');
    if (eq != std::string_view::npos && (colon == std::string_view::npos || eq < colon))
      return specification(text.substr(0, eq), text.substr(eq + 1));
    if (colon != std::string_view::npos) return header(trim(text.substr(0, colon)), trim(text.substr(colon + 1)));
    fail(fmt::format("unexpected line '{}'", text));
  }

  CallgrindProfile finish() {
    if (instr_column_ < 0)
      throw UserError("the profile has no instruction positions", {profile_.source, {}, {}},
                      "run callgrind with --dump-instr=yes");
    return std::move(profile_);
  }

 private:
  enum class Pending { None, Call, Jump };

  [[noreturn]] void fail(const std::string& message) const {
    throw UserError(message, {profile_.source, line_number_, {}}, "is this a callgrind output file?");
  }

  void header(std::string_view key, std::string_view value) {
    if (key == "positions") {
      positions_.clear();
      for (auto w : words(value)) positions_.emplace_back(w);
      instr_column_ = -1;
      for (size_t i = 0; i < positions_.size(); ++i)
        if (positions_[i] == "instr") instr_column_ = static_cast<int>(i);
      last_.assign(positions_.size(), 0);
    } else if (key == "events") {
      profile_.events.clear();
      for (auto w : words(value)) profile_.events.emplace_back(w);
      ir_ = dr_ = dw_ = -1;
      for (size_t i = 0; i < profile_.events.size(); ++i) {
        if (profile_.events[i] == "Ir") ir_ = static_cast<int>(i);
        if (profile_.events[i] == "Dr") dr_ = static_cast<int>(i);
        if (profile_.events[i] == "Dw") dw_ = static_cast<int>(i);
      }
      if (ir_ < 0) fail("the events line has no Ir (instructions executed)");
      profile_.has_data_events = dr_ >= 0 && dw_ >= 0;
    } else if (key == "cmd") {
      profile_.command = std::string(value);
    } else if (key == "pid") {
      std::from_chars(value.data(), value.data() + value.size(), profile_.pid);
    }
    // version, creator, part, desc, summary, totals, event, thread: nothing to keep.
  }

  // Callgrind names the deeper levels of a recursion `name'2` (--separate-recs,
  // 2 by default): the same function, whose instructions are the same
  // addresses, so one row; counted apart, the debug info's frames at those
  // addresses would give the levels' costs to `name` as well, twice in all.
  static std::string without_recursion_level(std::string fn) {
    auto quote = fn.rfind('\'');
    if (quote != std::string::npos && quote + 1 < fn.size() &&
        fn.find_first_not_of("0123456789", quote + 1) == std::string::npos)
      fn.resize(quote);
    return fn;
  }

  // "(id) name" defines, "(id)" refers, "name" is uncompressed.
  std::string name(std::unordered_map<long, std::string>& table, std::string_view value) {
    value = trim(value);
    if (value.empty() || value.front() != '(') return std::string(value);
    auto close = value.find(')');
    if (close == std::string_view::npos) fail("unterminated compressed name");
    long id = 0;
    auto [p, ec] = std::from_chars(value.data() + 1, value.data() + close, id);
    if (ec != std::errc() || p != value.data() + close) fail("bad compressed name id");
    auto rest = trim(value.substr(close + 1));
    if (!rest.empty()) {
      table[id] = std::string(rest);
      return std::string(rest);
    }
    auto it = table.find(id);
    if (it == table.end()) fail(fmt::format("compressed name ({}) used before it is defined", id));
    return it->second;
  }

  size_t function_index(const std::string& object, const std::string& fn) {
    auto key = object + '\0' + fn;
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    profile_.functions.push_back({object, fn, {}, {}});
    index_.emplace(key, profile_.functions.size() - 1);
    return profile_.functions.size() - 1;
  }

  void specification(std::string_view key, std::string_view value) {
    if (key == "ob") {
      object_ = name(objects_, value);
    } else if (key == "cob") {
      callee_object_ = name(objects_, value);
    } else if (key == "fn") {
      function_ = function_index(object_, without_recursion_level(name(functions_, value)));
      has_function_ = true;
    } else if (key == "cfn") {
      callee_name_ = without_recursion_level(name(functions_, value));
    } else if (key == "fl" || key == "fi" || key == "fe" || key == "cfi" || key == "cfl" || key == "jfi") {
      name(files_, value);  // only to keep the compression table complete
    } else if (key == "jfn") {
      name(functions_, value);
    } else if (key == "calls") {
      auto w = words(value);
      if (w.empty()) fail("calls= without a count");
      uint64_t count = 0;
      auto [p, ec] = std::from_chars(w[0].data(), w[0].data() + w[0].size(), count);
      if (ec != std::errc()) fail("bad call count");
      if (callee_name_.empty()) fail("calls= without a preceding cfn=");
      pending_ = Pending::Call;
      pending_count_ = count;
    } else if (key == "jump" || key == "jcnd") {
      pending_ = Pending::Jump;
    } else {
      fail(fmt::format("unknown specification '{}='", key));
    }
  }

  uint64_t position(std::string_view token, size_t column) {
    if (token == "*") return last_[column];
    if (token.front() == '+' || token.front() == '-') {
      int64_t delta = 0;
      auto [p, ec] = std::from_chars(token.data() + 1, token.data() + token.size(), delta);
      if (ec != std::errc()) fail(fmt::format("bad relative position '{}'", token));
      return token.front() == '+' ? last_[column] + delta : last_[column] - delta;
    }
    uint64_t value = 0;
    std::from_chars_result r{};
    if (token.size() > 2 && token[0] == '0' && (token[1] == 'x' || token[1] == 'X'))
      r = std::from_chars(token.data() + 2, token.data() + token.size(), value, 16);
    else
      r = std::from_chars(token.data(), token.data() + token.size(), value);
    if (r.ec != std::errc()) fail(fmt::format("bad position '{}'", token));
    return value;
  }

  void cost_line(std::string_view text) {
    if (positions_.empty()) {  // the format's default is "positions: line"
      positions_.push_back("line");
      last_.assign(1, 0);
    }
    if (instr_column_ < 0)
      throw UserError("the profile has no instruction positions", {profile_.source, line_number_, {}},
                      "run callgrind with --dump-instr=yes");
    if (!has_function_) fail("cost line before any fn=");
    auto w = words(text);
    if (w.size() < positions_.size()) fail("cost line with fewer positions than the positions: line declares");
    std::vector<uint64_t> pos(positions_.size());
    for (size_t i = 0; i < positions_.size(); ++i) pos[i] = position(w[i], i);
    auto event = [&](int index) -> uint64_t {
      size_t at = positions_.size() + static_cast<size_t>(index);
      if (index < 0 || at >= w.size()) return 0;
      uint64_t v = 0;
      auto [p, ec] = std::from_chars(w[at].data(), w[at].data() + w[at].size(), v);
      if (ec != std::errc()) fail(fmt::format("bad cost '{}'", w[at]));
      return v;
    };
    uint64_t address = pos[instr_column_];

    if (pending_ == Pending::Jump) {
      pending_ = Pending::None;
      return;
    }
    if (pending_ == Pending::Call) {
      pending_ = Pending::None;
      size_t callee = function_index(callee_object_.empty() ? object_ : callee_object_, callee_name_);
      profile_.functions[function_].calls.push_back({address, callee, pending_count_, event(ir_)});
      callee_object_.clear();
      callee_name_.clear();
      return;
    }
    last_ = pos;
    auto& cost = profile_.functions[function_].instructions[address];
    uint64_t ir = event(ir_);
    cost.executions += ir;
    cost.data_reads += event(dr_);
    cost.data_writes += event(dw_);
    profile_.total_executions += ir;
  }

  CallgrindProfile profile_;
  int line_number_ = 0;
  std::vector<std::string> positions_;
  int instr_column_ = -1;
  int ir_ = -1, dr_ = -1, dw_ = -1;
  std::vector<uint64_t> last_;
  std::unordered_map<long, std::string> objects_, files_, functions_;
  std::unordered_map<std::string, size_t> index_;
  std::string object_ = "???";
  size_t function_ = 0;
  bool has_function_ = false;
  std::string callee_object_, callee_name_;
  Pending pending_ = Pending::None;
  uint64_t pending_count_ = 0;
};

}  // namespace

CallgrindProfile parse_callgrind(std::istream& in, const std::string& source_name) {
  Parser parser(source_name);
  std::string text;
  while (std::getline(in, text)) parser.line(text);
  return parser.finish();
}

CallgrindProfile read_callgrind_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("cannot open callgrind profile '{}'", path));
  return parse_callgrind(in, path);
}

}  // namespace perfcast::counts
