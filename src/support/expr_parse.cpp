// Recursive-descent parser for the text form described in expr.h.
//
//   full       := comparison END
//   comparison := additive [('<' | '<=' | '>' | '>=' | '==' | '!=') additive]
//   additive   := term (('+' | '-') term)*
//   term       := unary (('*' | '/') unary)*
//   unary      := '-' unary | power
//   power      := primary ['^' unary]          (right associative through unary)
//   primary    := number | name | name '(' args ')' | '(' comparison ')'
#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstring>

#include "support/error.h"
#include "support/expr.h"

namespace perfcast::expr {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expr full() {
    Expr e = comparison();
    skip_space();
    if (pos_ < text_.size()) fail(pos_, "an operator or the end of the expression");
    return e;
  }

 private:
  [[noreturn]] void fail(std::size_t at, std::string_view expected) const {
    throw UserError(fmt::format("in expression '{}': column {}: expected {}, found {}", text_,
                                at + 1, expected, describe(at)));
  }

  std::string describe(std::size_t at) const {
    if (at >= text_.size()) return "the end of the expression";
    char c = text_[at];
    std::size_t end = at + 1;
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.') {
      while (end < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[end])) ||
                                    text_[end] == '_' || text_[end] == '.'))
        ++end;
    } else if (end < text_.size() && text_[end] == '=' && std::strchr("<>=!", c)) {
      ++end;
    }
    return fmt::format("'{}'", text_.substr(at, end - at));
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  bool accept(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  void expect(char c, std::string_view expected) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != c) fail(pos_, expected);
    ++pos_;
  }

  Expr comparison() {
    Expr a = additive();
    static constexpr std::pair<std::string_view, Comparison> ops[] = {
        {"<=", Comparison::Le}, {">=", Comparison::Ge}, {"==", Comparison::Eq},
        {"!=", Comparison::Ne}, {"<", Comparison::Lt},  {">", Comparison::Gt}};
    for (auto [token, op] : ops) {
      if (accept(token)) return compare(op, a, additive());
    }
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == '=')
      fail(pos_, "'==' (a single '=' is not an operator)");
    return a;
  }

  Expr additive() {
    std::vector<Expr> terms{term()};
    for (;;) {
      if (accept("+")) {
        terms.push_back(term());
      } else if (accept("-")) {
        std::size_t at = pos_;
        Expr t = term();
        terms.push_back(negate(t, at));
      } else {
        break;
      }
    }
    return add(std::move(terms));
  }

  Expr term() {
    std::vector<Expr> factors{unary()};
    for (;;) {
      if (accept("*")) {
        factors.push_back(unary());
      } else if (accept("/")) {
        Expr left = mul(std::move(factors));
        factors = {div(left, unary())};
      } else {
        break;
      }
    }
    return mul(std::move(factors));
  }

  Expr unary() {
    if (accept("-")) {
      std::size_t at = pos_;
      Expr e = unary();
      return negate(e, at);
    }
    return power();
  }

  Expr power() {
    Expr base = primary();
    if (accept("^")) return pow(base, unary());
    return base;
  }

  Expr negate(const Expr& e, std::size_t at) {
    if (e.kind() == Kind::Integer && e.int_value() == INT64_MIN)
      fail(at, "an integer whose negation fits 64 bits");
    return neg(e);
  }

  Expr primary() {
    skip_space();
    if (pos_ >= text_.size()) fail(pos_, "a number, a name, a function call or '('");
    char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)) ||
        (c == '.' && pos_ + 1 < text_.size() &&
         std::isdigit(static_cast<unsigned char>(text_[pos_ + 1]))))
      return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name_or_call();
    if (c == '(') {
      ++pos_;
      Expr e = comparison();
      expect(')', "')'");
      return e;
    }
    fail(pos_, "a number, a name, a function call or '('");
  }

  Expr number() {
    std::size_t start = pos_;
    auto digits = [&] {
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    };
    digits();
    bool is_real = false;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_real = true;
      ++pos_;
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      std::size_t save = pos_++;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        is_real = true;
        digits();
      } else {
        pos_ = save;  // not an exponent: "2e" is 2 followed by the name e
      }
    }
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (is_real) {
      double v = 0;
      auto [ptr, ec] = std::from_chars(first, last, v);
      if (ec != std::errc() || ptr != last) fail(start, "a real number in the range of a double");
      return real(v);
    }
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc() || ptr != last) fail(start, "an integer that fits 64 bits");
    return integer(v);
  }

  Expr name_or_call() {
    std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                                   text_[pos_] == '_' || text_[pos_] == '.'))
      ++pos_;
    std::string_view name = text_.substr(start, pos_ - start);
    std::size_t after = pos_;
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '(') {
      pos_ = after;
      return var(name);
    }
    ++pos_;
    return call(name, start);
  }

  // Arguments with the column each starts at, for errors about one argument.
  struct Argument {
    Expr value;
    std::size_t at;
  };

  std::vector<Argument> arguments() {
    std::vector<Argument> args;
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == ')') {
      ++pos_;
      return args;
    }
    for (;;) {
      skip_space();
      std::size_t at = pos_;
      args.push_back({comparison(), at});
      if (accept(",")) continue;
      expect(')', "',' or ')'");
      return args;
    }
  }

  void arity(std::string_view fn, std::size_t start, const std::vector<Argument>& args,
             std::size_t n) const {
    if (args.size() != n)
      fail(start, fmt::format("{}() with {} argument{} (it has {})", fn, n, n == 1 ? "" : "s",
                              args.size()));
  }

  int bit_width(const Argument& a) const {
    if (a.value.kind() != Kind::Integer || a.value.int_value() < 1 || a.value.int_value() > 64)
      fail(a.at, "a bit width from 1 to 64");
    return static_cast<int>(a.value.int_value());
  }

  Expr call(std::string_view fn, std::size_t start) {
    std::vector<Argument> args = arguments();
    auto values = [&] {
      std::vector<Expr> v;
      for (auto& a : args) v.push_back(a.value);
      return v;
    };
    if (fn == "floordiv" || fn == "ceildiv" || fn == "mod") {
      arity(fn, start, args, 2);
      if (fn == "floordiv") return floordiv(args[0].value, args[1].value);
      if (fn == "ceildiv") return ceildiv(args[0].value, args[1].value);
      return mod(args[0].value, args[1].value);
    }
    if (fn == "min" || fn == "max") {
      if (args.empty()) fail(start, fmt::format("{}() with at least one argument", fn));
      return fn == "min" ? minimum(values()) : maximum(values());
    }
    if (fn == "zext" || fn == "trunc" || fn == "sext") {
      arity(fn, start, args, 2);
      int bits = bit_width(args[1]);
      if (fn == "zext") return zext(args[0].value, bits);
      if (fn == "trunc") return trunc(args[0].value, bits);
      return sext(args[0].value, bits);
    }
    if (fn == "select") {
      arity(fn, start, args, 3);
      return select(args[0].value, args[1].value, args[2].value);
    }
    if (fn == "sum") {
      arity(fn, start, args, 4);
      if (args[0].value.kind() != Kind::Name) fail(args[0].at, "the name of the summation index");
      return sum(args[0].value.name(), args[1].value, args[2].value, args[3].value);
    }
    fail(start,
         "a function among floordiv, ceildiv, mod, min, max, zext, trunc, sext, select, sum");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

Expr parse(std::string_view text) { return Parser(text).full(); }

}  // namespace perfcast::expr
