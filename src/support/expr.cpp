// Expression nodes, builders, structural order, printing, free names, substitution.
#include "support/expr.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <ostream>

#include "support/error.h"

namespace perfcast::expr {

struct Node {
  Kind kind = Kind::Integer;
  std::int64_t integer = 0;  // Integer: the value; ZExt/Trunc/SExt: bits; Compare: the operator
  double real = 0;
  std::string name;  // Name; Sum: the index
  std::vector<Expr> operands;
};

Expr make_node(Node node) { return Expr(std::make_shared<const Node>(std::move(node))); }

namespace {

const std::vector<Expr>& no_operands() {
  static const std::vector<Expr> empty;
  return empty;
}

bool valid_name(std::string_view name) {
  if (name.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(name[0])) return false;
  for (char c : name.substr(1))
    if (!alpha(c) && !(c >= '0' && c <= '9') && c != '.') return false;
  return true;
}

Expr node_of(Kind kind, std::vector<Expr> operands) {
  Node n;
  n.kind = kind;
  n.operands = std::move(operands);
  return make_node(std::move(n));
}

void flatten_into(Kind kind, const Expr& e, std::vector<Expr>& out) {
  if (e.kind() == kind) {
    for (const Expr& op : e.operands()) out.push_back(op);
  } else {
    out.push_back(e);
  }
}

Expr nary(Kind kind, std::vector<Expr> args, std::int64_t empty_value) {
  std::vector<Expr> flat;
  for (const Expr& a : args) flatten_into(kind, a, flat);
  if (flat.empty()) return integer(empty_value);
  if (flat.size() == 1) return flat[0];
  return node_of(kind, std::move(flat));
}

Expr width_node(Kind kind, const char* fn, const Expr& x, int bits) {
  if (bits < 1 || bits > 64)
    throw UserError(
        fmt::format("{}({}, {}): the bit width must be from 1 to 64", fn, x.str(), bits));
  Node n;
  n.kind = kind;
  n.integer = bits;
  n.operands = {x};
  return make_node(std::move(n));
}

}  // namespace

// ---- Expr accessors.

Expr::Expr() : Expr(std::int64_t{0}) {}
Expr::Expr(std::int64_t value) {
  Node n;
  n.kind = Kind::Integer;
  n.integer = value;
  node_ = std::make_shared<const Node>(std::move(n));
}

Kind Expr::kind() const { return node_->kind; }
std::int64_t Expr::int_value() const { return node_->integer; }
double Expr::real_value() const {
  return node_->kind == Kind::Integer ? static_cast<double>(node_->integer) : node_->real;
}
const std::string& Expr::name() const { return node_->name; }
int Expr::bits() const { return static_cast<int>(node_->integer); }
Comparison Expr::comparison() const { return static_cast<Comparison>(node_->integer); }
const std::vector<Expr>& Expr::operands() const { return node_ ? node_->operands : no_operands(); }
std::string Expr::str() const { return to_string(*this); }

int structural_compare(const Expr& a, const Expr& b) {
  if (a.node_ == b.node_) return 0;
  if (a.kind() != b.kind()) return a.kind() < b.kind() ? -1 : 1;
  switch (a.kind()) {
    case Kind::Integer:
    case Kind::ZExt:
    case Kind::Trunc:
    case Kind::SExt:
    case Kind::Compare: {
      std::int64_t x = a.kind() == Kind::Integer   ? a.int_value()
                       : a.kind() == Kind::Compare ? static_cast<std::int64_t>(a.comparison())
                                                   : a.bits();
      std::int64_t y = b.kind() == Kind::Integer   ? b.int_value()
                       : b.kind() == Kind::Compare ? static_cast<std::int64_t>(b.comparison())
                                                   : b.bits();
      if (x != y) return x < y ? -1 : 1;
      break;
    }
    case Kind::Real: {
      double x = a.real_value(), y = b.real_value();
      if (x < y) return -1;
      if (y < x) return 1;
      auto bx = std::bit_cast<std::uint64_t>(x), by = std::bit_cast<std::uint64_t>(y);
      if (bx != by) return bx < by ? -1 : 1;
      return 0;
    }
    case Kind::Name:
    case Kind::Sum:
      if (int c = a.name().compare(b.name()); c != 0) return c < 0 ? -1 : 1;
      break;
    default:
      break;
  }
  const auto& x = a.operands();
  const auto& y = b.operands();
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
    if (int c = structural_compare(x[i], y[i]); c != 0) return c;
  if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
  return 0;
}

bool operator==(const Expr& a, const Expr& b) { return structural_compare(a, b) == 0; }

// ---- Builders.

Expr integer(std::int64_t value) { return Expr(value); }

Expr real(double value) {
  Node n;
  n.kind = Kind::Real;
  n.real = value;
  return make_node(std::move(n));
}

Expr var(std::string_view name) {
  if (!valid_name(name))
    throw UserError(
        fmt::format("'{}' is not a valid parameter name (letters, digits, '_' and "
                    "'.', not starting with a digit or '.')",
                    name));
  Node n;
  n.kind = Kind::Name;
  n.name = std::string(name);
  return make_node(std::move(n));
}

Expr add(std::vector<Expr> terms) { return nary(Kind::Add, std::move(terms), 0); }
Expr mul(std::vector<Expr> factors) { return nary(Kind::Mul, std::move(factors), 1); }

Expr neg(const Expr& e) {
  switch (e.kind()) {
    case Kind::Integer:
      if (e.int_value() == INT64_MIN)
        throw UserError("integer overflow: cannot negate -9223372036854775808");
      return integer(-e.int_value());
    case Kind::Real:
      return real(-e.real_value());
    case Kind::Mul:
      if (e.operands()[0].is_constant()) {
        std::vector<Expr> ops = e.operands();
        ops[0] = neg(ops[0]);
        return node_of(Kind::Mul, std::move(ops));
      }
      [[fallthrough]];
    default:
      return mul({integer(-1), e});
  }
}

Expr sub(const Expr& a, const Expr& b) { return add({a, neg(b)}); }
Expr div(const Expr& a, const Expr& b) { return node_of(Kind::Div, {a, b}); }
Expr pow(const Expr& base, const Expr& exponent) { return node_of(Kind::Pow, {base, exponent}); }
Expr floordiv(const Expr& a, const Expr& b) { return node_of(Kind::FloorDiv, {a, b}); }
Expr ceildiv(const Expr& a, const Expr& b) { return node_of(Kind::CeilDiv, {a, b}); }
Expr mod(const Expr& a, const Expr& b) { return node_of(Kind::Mod, {a, b}); }

Expr minimum(std::vector<Expr> args) {
  if (args.empty()) throw UserError("min() needs at least one argument");
  return nary(Kind::Min, std::move(args), 0);
}
Expr maximum(std::vector<Expr> args) {
  if (args.empty()) throw UserError("max() needs at least one argument");
  return nary(Kind::Max, std::move(args), 0);
}

Expr zext(const Expr& x, int bits) { return width_node(Kind::ZExt, "zext", x, bits); }
Expr trunc(const Expr& x, int bits) { return width_node(Kind::Trunc, "trunc", x, bits); }
Expr sext(const Expr& x, int bits) { return width_node(Kind::SExt, "sext", x, bits); }

Expr select(const Expr& cond, const Expr& a, const Expr& b) {
  return node_of(Kind::Select, {cond, a, b});
}

Expr compare(Comparison op, const Expr& a, const Expr& b) {
  Node n;
  n.kind = Kind::Compare;
  n.integer = static_cast<std::int64_t>(op);
  n.operands = {a, b};
  return make_node(std::move(n));
}

Expr sum(std::string_view index, const Expr& lo, const Expr& hi, const Expr& body) {
  if (!valid_name(index))
    throw UserError(fmt::format("sum(): '{}' is not a valid index name", index));
  Node n;
  n.kind = Kind::Sum;
  n.name = std::string(index);
  n.operands = {lo, hi, body};
  return make_node(std::move(n));
}

Expr operator+(const Expr& a, const Expr& b) { return add({a, b}); }
Expr operator-(const Expr& a, const Expr& b) { return sub(a, b); }
Expr operator*(const Expr& a, const Expr& b) { return mul({a, b}); }
Expr operator/(const Expr& a, const Expr& b) { return div(a, b); }
Expr operator-(const Expr& a) { return neg(a); }

// ---- Printing.
//
// Precedence levels match the parser's grammar: 0 comparison, 1 sum, 2 product,
// 3 unary minus, 4 power, 5 atom. Every choice below exists so that parsing the
// text rebuilds the same tree, e.g. a term -2*x inside a sum prints as "- 2 * x"
// because the parser reads "a - t" as add(a, neg(t)).
namespace {

bool negative_constant(const Expr& e) {
  if (e.kind() == Kind::Integer) return e.int_value() < 0;
  if (e.kind() == Kind::Real) return std::signbit(e.real_value());
  return false;
}

int precedence(const Expr& e) {
  switch (e.kind()) {
    case Kind::Integer:
    case Kind::Real:
      return negative_constant(e) ? 3 : 5;
    case Kind::Compare:
      return 0;
    case Kind::Add:
      return 1;
    case Kind::Mul:
    case Kind::Div:
      return 2;
    case Kind::Pow:
      return 4;
    default:
      return 5;
  }
}

// A term that the printer writes after " - ".
bool negative_term(const Expr& e) {
  return negative_constant(e) || (e.kind() == Kind::Mul && negative_constant(e.operands()[0]));
}

// The term t' such that neg(parse(print(t'))) == t.
Expr negated_term(const Expr& e) {
  if (e.kind() != Kind::Mul) return neg(e);
  std::vector<Expr> ops = e.operands();
  if (ops[0].kind() == Kind::Integer && ops[0].int_value() == -1 && !ops[1].is_constant()) {
    ops.erase(ops.begin());
    return ops.size() == 1 ? ops[0] : node_of(Kind::Mul, std::move(ops));
  }
  ops[0] = neg(ops[0]);
  return node_of(Kind::Mul, std::move(ops));
}

std::string real_text(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

const char* function_name(Kind k) {
  switch (k) {
    case Kind::FloorDiv:
      return "floordiv";
    case Kind::CeilDiv:
      return "ceildiv";
    case Kind::Mod:
      return "mod";
    case Kind::Min:
      return "min";
    case Kind::Max:
      return "max";
    case Kind::ZExt:
      return "zext";
    case Kind::Trunc:
      return "trunc";
    case Kind::SExt:
      return "sext";
    case Kind::Select:
      return "select";
    case Kind::Sum:
      return "sum";
    default:
      return "?";
  }
}

const char* comparison_text(Comparison c) {
  switch (c) {
    case Comparison::Lt:
      return "<";
    case Comparison::Le:
      return "<=";
    case Comparison::Gt:
      return ">";
    case Comparison::Ge:
      return ">=";
    case Comparison::Eq:
      return "==";
    case Comparison::Ne:
      return "!=";
  }
  return "?";
}

void print(const Expr& e, int context, std::string& out);

void print_body(const Expr& e, std::string& out) {
  const auto& ops = e.operands();
  switch (e.kind()) {
    case Kind::Integer:
      out += std::to_string(e.int_value());
      return;
    case Kind::Real:
      out += real_text(e.real_value());
      return;
    case Kind::Name:
      out += e.name();
      return;
    case Kind::Add:
      print(ops[0], 2, out);
      for (std::size_t i = 1; i < ops.size(); ++i) {
        if (negative_term(ops[i])) {
          out += " - ";
          print(negated_term(ops[i]), 2, out);
        } else {
          out += " + ";
          print(ops[i], 2, out);
        }
      }
      return;
    case Kind::Mul: {
      std::size_t first = 1;
      if (ops[0].kind() == Kind::Integer && ops[0].int_value() == -1 && !ops[1].is_constant()) {
        out += "-";
        print(ops[1], 3, out);
        first = 2;
      } else {
        print(ops[0], 2, out);
      }
      for (std::size_t i = first; i < ops.size(); ++i) {
        out += " * ";
        print(ops[i], 3, out);
      }
      return;
    }
    case Kind::Div:
      print(ops[0], 2, out);
      out += " / ";
      print(ops[1], 3, out);
      return;
    case Kind::Pow:
      print(ops[0], 5, out);
      out += "^";
      print(ops[1], 3, out);
      return;
    case Kind::Compare:
      print(ops[0], 1, out);
      out += fmt::format(" {} ", comparison_text(e.comparison()));
      print(ops[1], 1, out);
      return;
    default:
      break;
  }
  out += function_name(e.kind());
  out += '(';
  if (e.kind() == Kind::Sum) out += e.name() + ", ";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (i > 0) out += ", ";
    print(ops[i], 0, out);
  }
  if (e.kind() == Kind::ZExt || e.kind() == Kind::Trunc || e.kind() == Kind::SExt)
    out += fmt::format(", {}", e.bits());
  out += ')';
}

void print(const Expr& e, int context, std::string& out) {
  bool parens = precedence(e) < context;
  if (parens) out += '(';
  print_body(e, out);
  if (parens) out += ')';
}

}  // namespace

std::string to_string(const Expr& e) {
  std::string out;
  print(e, 0, out);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << to_string(e); }

// ---- Free names and substitution.

namespace {

void collect_free(const Expr& e, std::vector<std::string>& bound, std::set<std::string>& out) {
  if (e.kind() == Kind::Name) {
    for (const auto& b : bound)
      if (b == e.name()) return;
    out.insert(e.name());
    return;
  }
  if (e.kind() == Kind::Sum) {
    const auto& ops = e.operands();
    collect_free(ops[0], bound, out);
    collect_free(ops[1], bound, out);
    bound.push_back(e.name());
    collect_free(ops[2], bound, out);
    bound.pop_back();
    return;
  }
  for (const Expr& op : e.operands()) collect_free(op, bound, out);
}

Expr rebuild(const Expr& e, std::vector<Expr> ops) {
  switch (e.kind()) {
    case Kind::Add:
      return add(std::move(ops));
    case Kind::Mul:
      return mul(std::move(ops));
    case Kind::Min:
      return minimum(std::move(ops));
    case Kind::Max:
      return maximum(std::move(ops));
    case Kind::ZExt:
      return zext(ops[0], e.bits());
    case Kind::Trunc:
      return trunc(ops[0], e.bits());
    case Kind::SExt:
      return sext(ops[0], e.bits());
    case Kind::Compare:
      return compare(e.comparison(), ops[0], ops[1]);
    case Kind::Sum:
      return sum(e.name(), ops[0], ops[1], ops[2]);
    default:
      return node_of(e.kind(), std::move(ops));
  }
}

}  // namespace

std::set<std::string> free_names(const Expr& e) {
  std::set<std::string> out;
  std::vector<std::string> bound;
  collect_free(e, bound, out);
  return out;
}

Expr substitute(const Expr& e, const Substitution& replacements) {
  if (replacements.empty()) return e;
  switch (e.kind()) {
    case Kind::Integer:
    case Kind::Real:
      return e;
    case Kind::Name: {
      auto it = replacements.find(e.name());
      return it == replacements.end() ? e : it->second;
    }
    case Kind::Sum: {
      const auto& ops = e.operands();
      Expr lo = substitute(ops[0], replacements);
      Expr hi = substitute(ops[1], replacements);
      Substitution inner = replacements;
      inner.erase(e.name());
      // Rename the index when a replacement that reaches the body mentions it.
      std::set<std::string> body_free = free_names(ops[2]);
      std::set<std::string> taken = body_free;
      bool captured = false;
      for (const auto& [name, value] : inner) {
        if (!body_free.count(name)) continue;
        std::set<std::string> f = free_names(value);
        taken.insert(f.begin(), f.end());
        if (f.count(e.name())) captured = true;
      }
      std::string index = e.name();
      if (captured) {
        for (int k = 1;; ++k) {
          index = fmt::format("{}_{}", e.name(), k);
          if (!taken.count(index)) break;
        }
        inner[e.name()] = var(index);
      }
      return sum(index, lo, hi, substitute(ops[2], inner));
    }
    default: {
      std::vector<Expr> ops;
      ops.reserve(e.operands().size());
      for (const Expr& op : e.operands()) ops.push_back(substitute(op, replacements));
      return rebuild(e, std::move(ops));
    }
  }
}

}  // namespace perfcast::expr
