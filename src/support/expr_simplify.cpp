// simplify(): every expression is brought to a polynomial with exact rational
// coefficients over "atoms" (names, and the simplified non-polynomial nodes:
// floordiv(...), min(...), select(...), reals, ...), then printed back.
//
// Rational coefficients only arise from closed forms of sums and from exact
// divisions; both are integer-valued polynomials (integer at every integer point),
// so to_expr() can write them back exactly as floordiv(D * F, D).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "support/error.h"
#include "support/expr.h"

namespace perfcast::expr {
namespace {

using i128 = __int128;

// Thrown when exact arithmetic leaves 128 bits or an expansion grows too large;
// the node is then kept as it is.
struct Limit {};

constexpr std::size_t kMaxTerms = 256;
constexpr int kMaxExpandedPower = 16;
constexpr std::size_t kMaxGridPoints = 4096;
constexpr i128 kMaxFoldedSumTerms = 10'000;

i128 checked_add(i128 a, i128 b) {
  i128 r;
  if (__builtin_add_overflow(a, b, &r)) throw Limit{};
  return r;
}
i128 checked_mul(i128 a, i128 b) {
  i128 r;
  if (__builtin_mul_overflow(a, b, &r)) throw Limit{};
  return r;
}
i128 gcd(i128 a, i128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    i128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

struct Rat {
  i128 num = 0;
  i128 den = 1;  // > 0, coprime with num

  static Rat of(i128 n, i128 d = 1) {
    if (d < 0) n = checked_mul(n, -1), d = checked_mul(d, -1);
    i128 g = gcd(n, d);
    if (g > 1) n /= g, d /= g;
    return {n, d};
  }
  bool is_int() const { return den == 1; }
  bool is_zero() const { return num == 0; }
  bool negative() const { return num < 0; }
};
Rat operator+(Rat a, Rat b) {
  return Rat::of(checked_add(checked_mul(a.num, b.den), checked_mul(b.num, a.den)),
                 checked_mul(a.den, b.den));
}
Rat operator*(Rat a, Rat b) {
  return Rat::of(checked_mul(a.num, b.num), checked_mul(a.den, b.den));
}
Rat operator-(Rat a) { return {checked_mul(a.num, -1), a.den}; }

std::int64_t to_int64(i128 v) {
  if (v < INT64_MIN || v > INT64_MAX) throw Limit{};
  return static_cast<std::int64_t>(v);
}

// A product of atoms with positive exponents, sorted by atom.
using Mono = std::vector<std::pair<Expr, int>>;

// Real constants count as degree 0 so that they print with the constant term.
int degree(const Mono& m) {
  int d = 0;
  for (const auto& [atom, k] : m)
    if (atom.kind() != Kind::Real) d += k;
  return d;
}

// Print order: higher degree first, then by atom; constants come last.
struct MonoLess {
  bool operator()(const Mono& a, const Mono& b) const {
    int da = degree(a), db = degree(b);
    if (da != db) return da > db;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (int c = structural_compare(a[i].first, b[i].first); c != 0) return c < 0;
      if (a[i].second != b[i].second) return a[i].second > b[i].second;
    }
    return a.size() < b.size();
  }
};

using Poly = std::map<Mono, Rat, MonoLess>;

void add_term(Poly& p, const Mono& m, Rat c) {
  if (c.is_zero()) return;
  auto [it, inserted] = p.emplace(m, c);
  if (!inserted) {
    it->second = it->second + c;
    if (it->second.is_zero()) p.erase(it);
  }
  if (p.size() > kMaxTerms) throw Limit{};
}

Poly constant(Rat c) {
  Poly p;
  add_term(p, {}, c);
  return p;
}
Poly constant(i128 c) { return constant(Rat::of(c)); }
Poly atom(const Expr& e) { return Poly{{Mono{{e, 1}}, Rat::of(1)}}; }

Poly operator+(Poly a, const Poly& b) {
  for (const auto& [m, c] : b) add_term(a, m, c);
  return a;
}
Poly scale(const Poly& a, Rat k) {
  Poly r;
  for (const auto& [m, c] : a) add_term(r, m, c * k);
  return r;
}
Poly operator-(const Poly& a, const Poly& b) { return a + scale(b, Rat::of(-1)); }

Mono mono_mul(const Mono& a, const Mono& b) {
  Mono r;
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int c = i == a.size() ? 1 : j == b.size() ? -1 : structural_compare(a[i].first, b[j].first);
    if (c < 0) {
      r.push_back(a[i++]);
    } else if (c > 0) {
      r.push_back(b[j++]);
    } else {
      r.emplace_back(a[i].first, a[i].second + b[j].second);
      ++i, ++j;
    }
  }
  return r;
}

Poly operator*(const Poly& a, const Poly& b) {
  Poly r;
  for (const auto& [ma, ca] : a)
    for (const auto& [mb, cb] : b) add_term(r, mono_mul(ma, mb), ca * cb);
  return r;
}

Poly power(const Poly& p, int k) {
  Poly r = constant(1);
  for (int i = 0; i < k; ++i) r = r * p;
  return r;
}

// m / d when every factor of d divides m.
std::optional<Mono> mono_div(const Mono& m, const Mono& d) {
  Mono r = m;
  for (const auto& [atom, k] : d) {
    auto it = std::find_if(r.begin(), r.end(), [&](const auto& f) { return f.first == atom; });
    if (it == r.end() || it->second < k) return std::nullopt;
    it->second -= k;
    if (it->second == 0) r.erase(it);
  }
  return r;
}

std::optional<Rat> as_rational(const Poly& p) {
  if (p.empty()) return Rat::of(0);
  if (p.size() == 1 && p.begin()->first.empty()) return p.begin()->second;
  return std::nullopt;
}

// A constant Expr when p is a number: an integer, or ±1 times a real atom.
std::optional<Expr> constant_of(const Poly& p) {
  if (auto r = as_rational(p)) {
    if (!r->is_int()) return std::nullopt;
    return integer(to_int64(r->num));
  }
  if (p.size() != 1) return std::nullopt;
  const auto& [m, c] = *p.begin();
  if (m.size() == 1 && m[0].second == 1 && m[0].first.kind() == Kind::Real && c.is_int() &&
      (c.num == 1 || c.num == -1))
    return real(static_cast<double>(c.num) * m[0].first.real_value());
  return std::nullopt;
}

// True when e takes integer values whenever its names do.
bool integer_typed(const Expr& e) {
  switch (e.kind()) {
    case Kind::Real:
    case Kind::Div:
      return false;
    case Kind::Pow:
      return e.operands()[1].kind() == Kind::Integer && e.operands()[1].int_value() >= 0 &&
             integer_typed(e.operands()[0]);
    case Kind::Compare:
      return true;
    case Kind::Select:
      return integer_typed(e.operands()[1]) && integer_typed(e.operands()[2]);
    case Kind::Sum:
      return integer_typed(e.operands()[2]);
    default:
      for (const Expr& op : e.operands())
        if (!integer_typed(op)) return false;
      return true;
  }
}

bool integer_typed(const Poly& p) {
  for (const auto& [m, c] : p)
    for (const auto& [atom, k] : m)
      if (!integer_typed(atom)) return false;
  return true;
}

bool integer_coefficients(const Poly& p) {
  for (const auto& [m, c] : p)
    if (!c.is_int()) return false;
  return true;
}

// Whether p is an integer at every integer point. A polynomial of degree d_j in
// atom j is, exactly when it is an integer on the grid 0..d_j of every atom (its
// coefficients in the binomial basis are integer combinations of those values).
bool integer_valued(const Poly& p) {
  if (integer_coefficients(p)) return true;
  std::vector<std::pair<Expr, int>> atoms;  // atom, highest exponent
  for (const auto& [m, c] : p)
    for (const auto& [a, k] : m) {
      auto it =
          std::find_if(atoms.begin(), atoms.end(), [&](const auto& x) { return x.first == a; });
      if (it == atoms.end())
        atoms.emplace_back(a, k);
      else
        it->second = std::max(it->second, k);
    }
  std::size_t points = 1;
  for (const auto& [a, k] : atoms) {
    points *= static_cast<std::size_t>(k + 1);
    if (points > kMaxGridPoints) return false;
  }
  std::vector<int> at(atoms.size(), 0);
  for (std::size_t n = 0; n < points; ++n) {
    std::size_t rest = n;
    for (std::size_t j = 0; j < atoms.size(); ++j) {
      at[j] = static_cast<int>(rest % static_cast<std::size_t>(atoms[j].second + 1));
      rest /= static_cast<std::size_t>(atoms[j].second + 1);
    }
    Rat value = Rat::of(0);
    for (const auto& [m, c] : p) {
      i128 v = 1;
      for (const auto& [a, k] : m) {
        std::size_t j = static_cast<std::size_t>(
            std::find_if(atoms.begin(), atoms.end(), [&](const auto& x) { return x.first == a; }) -
            atoms.begin());
        for (int e = 0; e < k; ++e) v = checked_mul(v, at[j]);
      }
      value = value + c * Rat::of(v);
    }
    if (!value.is_int()) return false;
  }
  return true;
}

Expr term_expr(const Mono& m, i128 coefficient) {
  std::int64_t c = to_int64(coefficient);
  if (m.empty()) return integer(c);
  // An integer times a real is written as one real: reals are not exact anyway.
  bool folded = false;
  std::vector<Expr> factors;
  for (const auto& [a, k] : m) {
    if (!folded && a.kind() == Kind::Real && k == 1) {
      factors.insert(factors.begin(), real(static_cast<double>(c) * a.real_value()));
      folded = true;
    } else {
      factors.push_back(k == 1 ? a : pow(a, integer(k)));
    }
  }
  if (!folded && c != 1) factors.insert(factors.begin(), integer(c));
  return mul(std::move(factors));
}

Expr to_expr(const Poly& p) {
  std::vector<Expr> terms;
  Poly fractional;
  i128 den = 1;
  for (const auto& [m, c] : p) {
    if (c.is_int()) continue;
    fractional.emplace(m, c);
    den = checked_mul(den / gcd(den, c.den), c.den);
  }
  if (!fractional.empty()) {
    std::vector<Expr> numerator;
    for (const auto& [m, c] : fractional) numerator.push_back(term_expr(m, (c * Rat::of(den)).num));
    terms.push_back(floordiv(add(std::move(numerator)), integer(to_int64(den))));
  }
  for (const auto& [m, c] : p)
    if (c.is_int()) terms.push_back(term_expr(m, c.num));
  return add(std::move(terms));
}

Comparison flipped(Comparison op) {  // a op b  <=>  b flipped(op) a
  switch (op) {
    case Comparison::Lt:
      return Comparison::Gt;
    case Comparison::Le:
      return Comparison::Ge;
    case Comparison::Gt:
      return Comparison::Lt;
    case Comparison::Ge:
      return Comparison::Le;
    default:
      return op;
  }
}
Comparison negated(Comparison op) {  // !(a op b)  <=>  a negated(op) b
  switch (op) {
    case Comparison::Lt:
      return Comparison::Ge;
    case Comparison::Le:
      return Comparison::Gt;
    case Comparison::Gt:
      return Comparison::Le;
    case Comparison::Ge:
      return Comparison::Lt;
    case Comparison::Eq:
      return Comparison::Ne;
    case Comparison::Ne:
      return Comparison::Eq;
  }
  return op;
}

bool holds(Comparison op, Rat v) {  // v op 0
  switch (op) {
    case Comparison::Lt:
      return v.num < 0;
    case Comparison::Le:
      return v.num <= 0;
    case Comparison::Gt:
      return v.num > 0;
    case Comparison::Ge:
      return v.num >= 0;
    case Comparison::Eq:
      return v.num == 0;
    case Comparison::Ne:
      return v.num != 0;
  }
  return false;
}

bool mentions(const Expr& e, const std::string& name) { return free_names(e).count(name) > 0; }

class Simplifier {
 public:
  Expr simplify(const Expr& e) { return to_expr(norm(e)); }

  Expr simplify_top(const Expr& e) {
    try {
      return simplify(e);
    } catch (const Limit&) {
      return e;
    }
  }

  Poly norm(const Expr& e) {
    try {
      return norm_node(e);
    } catch (const Limit&) {
      std::vector<Expr> ops;
      for (const Expr& op : e.operands()) ops.push_back(simplify(op));
      return atom(e.kind() == Kind::Sum ? sum(e.name(), ops[0], ops[1], ops[2])
                                        : substitute_operands(e, std::move(ops)));
    }
  }

 private:
  static Expr substitute_operands(const Expr& e, std::vector<Expr> ops) {
    switch (e.kind()) {
      case Kind::Add:
        return add(std::move(ops));
      case Kind::Mul:
        return mul(std::move(ops));
      case Kind::Div:
        return div(ops[0], ops[1]);
      case Kind::Pow:
        return pow(ops[0], ops[1]);
      case Kind::FloorDiv:
        return floordiv(ops[0], ops[1]);
      case Kind::CeilDiv:
        return ceildiv(ops[0], ops[1]);
      case Kind::Mod:
        return mod(ops[0], ops[1]);
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
      case Kind::Select:
        return select(ops[0], ops[1], ops[2]);
      case Kind::Compare:
        return compare(e.comparison(), ops[0], ops[1]);
      default:
        return e;
    }
  }

  // A node whose operands are already simplified: folded when they are all constants.
  Poly leaf(const Expr& e) {
    bool constant_operands = true;
    for (const Expr& op : e.operands()) constant_operands = constant_operands && op.is_constant();
    if (constant_operands) {
      try {
        Value v = evaluate(e, {});
        return v.is_integer() ? constant(i128{v.integer()}) : norm_real(v.real());
      } catch (const UserError&) {
        // Division by zero or overflow: keep the node so that evaluation reports it.
      }
    }
    return atom(e);
  }

  static Poly norm_real(double r) {
    // One atom per magnitude so that x + 2.5 - 2.5 cancels.
    if (std::signbit(r)) return scale(atom(real(-r)), Rat::of(-1));
    return atom(real(r));
  }

  Poly norm_node(const Expr& e) {
    const auto& ops = e.operands();
    switch (e.kind()) {
      case Kind::Integer:
        return constant(i128{e.int_value()});
      case Kind::Real:
        return norm_real(e.real_value());
      case Kind::Name:
        return atom(e);
      case Kind::Add:
      case Kind::Mul: {
        std::vector<Poly> parts;
        bool all_constant = true;
        for (const Expr& op : ops) {
          parts.push_back(norm(op));
          all_constant = all_constant && constant_of(parts.back()).has_value();
        }
        if (all_constant) {
          std::vector<Expr> values;
          for (const Poly& p : parts) values.push_back(*constant_of(p));
          return leaf(e.kind() == Kind::Add ? add(std::move(values)) : mul(std::move(values)));
        }
        Poly r = e.kind() == Kind::Add ? Poly{} : constant(1);
        for (const Poly& p : parts) r = e.kind() == Kind::Add ? r + p : r * p;
        return r;
      }
      case Kind::Pow: {
        Expr exponent = simplify(ops[1]);
        if (exponent.kind() == Kind::Integer && exponent.int_value() >= 0 &&
            exponent.int_value() <= kMaxExpandedPower) {
          Poly base = norm(ops[0]);
          if (!constant_of(base)) return power(base, static_cast<int>(exponent.int_value()));
        }
        return leaf(pow(simplify(ops[0]), exponent));
      }
      case Kind::Div:
        return leaf(div(simplify(ops[0]), simplify(ops[1])));
      case Kind::FloorDiv:
      case Kind::CeilDiv:
      case Kind::Mod:
        return division(e.kind(), norm(ops[0]), norm(ops[1]));
      case Kind::Min:
      case Kind::Max:
        return extremum(e);
      case Kind::ZExt:
      case Kind::Trunc:
      case Kind::SExt: {
        Expr x = simplify(ops[0]);
        // The inner conversion already gives a value the outer one keeps.
        bool inner_fits =
            ((e.kind() == Kind::SExt) ? x.kind() == Kind::SExt
                                      : x.kind() == Kind::ZExt || x.kind() == Kind::Trunc) &&
            x.bits() <= e.bits();
        if (inner_fits) return norm(x);
        return leaf(substitute_operands(e, {x}));
      }
      case Kind::Select: {
        Expr cond = simplify(ops[0]);
        if (cond.is_constant()) return norm(cond.real_value() != 0 ? ops[1] : ops[2]);
        Expr a = simplify(ops[1]), b = simplify(ops[2]);
        if (a == b) return norm(a);
        return atom(select(cond, a, b));
      }
      case Kind::Compare:
        return comparison(e.comparison(), ops[0], ops[1]);
      case Kind::Sum:
        return summation(e.name(), simplify(ops[0]), simplify(ops[1]), norm(ops[2]));
    }
    return atom(e);
  }

  Poly comparison(Comparison op, const Expr& a, const Expr& b) {
    Poly pa = norm(a), pb = norm(b);
    if (constant_of(pa) && constant_of(pb)) return leaf(compare(op, to_expr(pa), to_expr(pb)));
    if (!integer_typed(pa) || !integer_typed(pb))
      return atom(compare(op, to_expr(pa), to_expr(pb)));
    // Written as `positive terms op the others`, with the leading term positive,
    // so that equivalent conditions print the same: n - 1 >= 0 becomes n >= 1.
    Poly diff = pa - pb;
    if (auto v = as_rational(diff)) return constant(i128{holds(op, *v)});
    if (diff.begin()->second.negative()) {
      diff = scale(diff, Rat::of(-1));
      op = flipped(op);
    }
    Poly left, right;
    for (const auto& [m, c] : diff) {
      if (!m.empty() && !c.negative())
        add_term(left, m, c);
      else
        add_term(right, m, -c);
    }
    if (!integer_valued(left) || !integer_valued(right)) {
      left = diff;
      right = Poly{};
    }
    return atom(compare(op, to_expr(left), to_expr(right)));
  }

  Poly division(Kind kind, const Poly& a, const Poly& b) {
    auto rebuilt = [&] {
      Expr x = to_expr(a), y = to_expr(b);
      return leaf(kind == Kind::FloorDiv  ? floordiv(x, y)
                  : kind == Kind::CeilDiv ? ceildiv(x, y)
                                          : mod(x, y));
    };
    if ((constant_of(a) && constant_of(b)) || !integer_typed(a) || !integer_typed(b) ||
        b.size() != 1 || !b.begin()->second.is_int() || b.begin()->second.is_zero())
      return rebuilt();
    // The divisor is c * m, c a nonzero integer, m a product of atoms.
    const auto& [m, c] = *b.begin();
    Poly numerator = a;
    int sign = 1;
    i128 divisor = c.num;
    if (divisor < 0) {  // a ./ (-d) == (-a) ./ d for floordiv and ceildiv; mod changes sign
      numerator = scale(numerator, Rat::of(-1));
      divisor = -divisor;
      sign = -1;
    }
    if (!m.empty()) {
      // (x * m) ./ (d * m) == x ./ d, and mod(x * m, d * m) == m * mod(x, d), for m != 0.
      Poly quotient;
      for (const auto& [tm, tc] : numerator) {
        auto q = mono_div(tm, m);
        if (!q) return rebuilt();
        add_term(quotient, *q, tc);
      }
      if (!integer_valued(quotient)) return rebuilt();
      numerator = quotient;
    }
    Poly r = divide_by_constant(kind, numerator, divisor);
    if (kind == Kind::Mod) {
      Poly factor;
      add_term(factor, m, Rat::of(sign));
      r = r * factor;
    }
    return r;
  }

  // numerator ./ d for an integer-valued numerator and d > 0.
  Poly divide_by_constant(Kind kind, const Poly& numerator, i128 d) {
    Poly exact = scale(numerator, Rat::of(1, d));
    if (integer_valued(exact)) return kind == Kind::Mod ? Poly{} : exact;
    if (!integer_coefficients(numerator)) return atom(divided(kind, to_expr(numerator), d));
    // numerator = d * q + r termwise (truncating, so small constants stay put:
    // floordiv(nx - 2, 4) is kept, floordiv(4 * n + 3, 4) becomes n).
    Poly q, r;
    for (const auto& [m, c] : numerator) {
      i128 qc = c.num >= d || c.num <= -d ? c.num / d : 0;
      add_term(q, m, Rat::of(qc));
      add_term(r, m, Rat::of(c.num - qc * d));
    }
    if (kind == Kind::Mod) q = Poly{};
    if (auto rc = as_rational(r)) {
      Value v = evaluate(divided(kind, integer(to_int64(rc->num)), d), {});
      return q + constant(i128{v.integer()});
    }
    return q + atom(divided(kind, to_expr(r), d));
  }

  static Expr divided(Kind kind, const Expr& x, i128 d) {
    Expr y = integer(to_int64(d));
    return kind == Kind::FloorDiv  ? floordiv(x, y)
           : kind == Kind::CeilDiv ? ceildiv(x, y)
                                   : mod(x, y);
  }

  Poly extremum(const Expr& e) {
    bool is_min = e.kind() == Kind::Min;
    std::vector<Expr> args;
    for (const Expr& op : e.operands()) {
      Expr s = simplify(op);
      if (s.kind() == e.kind()) {
        args.insert(args.end(), s.operands().begin(), s.operands().end());
      } else {
        args.push_back(s);
      }
    }
    bool all_constant =
        std::all_of(args.begin(), args.end(), [](const Expr& a) { return a.is_constant(); });
    if (all_constant) return leaf(is_min ? minimum(args) : maximum(args));
    // Drop an argument that differs from another by a constant in its disfavour.
    std::vector<Poly> polys;
    for (const Expr& a : args) polys.push_back(norm(a));
    std::vector<bool> dropped(args.size(), false);
    for (std::size_t i = 0; i < args.size(); ++i) {
      for (std::size_t j = i + 1; j < args.size() && !dropped[i]; ++j) {
        if (dropped[j] || !integer_typed(polys[i]) || !integer_typed(polys[j])) continue;
        auto diff = as_rational(polys[i] - polys[j]);
        if (!diff) continue;
        bool i_wins = is_min ? diff->num <= 0 : diff->num >= 0;
        (i_wins ? dropped[j] : dropped[i]) = true;
      }
    }
    std::vector<Expr> kept;
    for (std::size_t i = 0; i < args.size(); ++i)
      if (!dropped[i]) kept.push_back(args[i]);
    std::sort(kept.begin(), kept.end(), StructuralLess{});
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    std::stable_partition(kept.begin(), kept.end(), [](const Expr& a) { return !a.is_constant(); });
    if (kept.size() == 1) return norm(kept[0]);
    return atom(is_min ? minimum(kept) : maximum(kept));
  }

  // Σ_{i=lo}^{hi} i^k == S_k(hi) - S_k(lo - 1), with S_k(m) = Σ_{i=0}^{m} i^k (Faulhaber);
  // the identity holds for every integer hi >= lo - 1.
  static Poly faulhaber(int k, const Poly& m) {
    Poly m2 = m * m;
    switch (k) {
      case 0:
        return m + constant(1);
      case 1:
        return scale(m2 + m, Rat::of(1, 2));
      case 2:
        return scale(scale(m2 * m, Rat::of(2)) + scale(m2, Rat::of(3)) + m, Rat::of(1, 6));
      default:
        return scale(m2 * m2 + scale(m2 * m, Rat::of(2)) + m2, Rat::of(1, 4));
    }
  }

  Poly summation(const std::string& i, const Expr& lo, const Expr& hi, const Poly& body) {
    Expr body_expr = to_expr(body);
    auto kept = [&] {
      bool closed = lo.kind() == Kind::Integer && hi.kind() == Kind::Integer;
      if (closed && hi.int_value() < lo.int_value()) return Poly{};
      std::set<std::string> names = free_names(body_expr);
      names.erase(i);
      if (closed && names.empty() && i128{hi.int_value()} - lo.int_value() < kMaxFoldedSumTerms)
        return leaf(sum(i, lo, hi, body_expr));
      return atom(sum(i, lo, hi, body_expr));
    };
    if (body.empty()) return {};
    if (!integer_typed(lo) || !integer_typed(hi) || !integer_typed(body)) return kept();

    // select(i >= e, p, 0) and the like: narrow the bounds instead.
    if (body_expr.kind() == Kind::Select) {
      if (auto narrowed = narrow(i, lo, hi, body_expr)) return *narrowed;
    }

    // The body as Σ_k c_k * i^k, the c_k free of i.
    Expr index = var(i);
    std::map<int, Poly> by_power;
    for (const auto& [m, c] : body) {
      int k = 0;
      Mono rest;
      for (const auto& [a, e] : m) {
        if (a == index) {
          k = e;
        } else if (mentions(a, i)) {
          return kept();
        } else {
          rest.emplace_back(a, e);
        }
      }
      if (k > 3) return kept();
      add_term(by_power[k], rest, c);
    }
    Poly p_lo = norm(lo), p_hi = norm(hi);
    Poly before = p_lo - constant(1);
    Poly closed;
    for (const auto& [k, coefficient] : by_power)
      closed = closed + coefficient * (faulhaber(k, p_hi) - faulhaber(k, before));

    Poly count = p_hi - p_lo + constant(1);
    if (auto n = as_rational(count)) return n->num >= 0 ? closed : Poly{};
    Expr guard = simplify(compare(Comparison::Le, lo, hi));
    if (guard.is_constant()) return guard.real_value() != 0 ? closed : Poly{};
    return atom(select(guard, to_expr(closed), integer(0)));
  }

  std::optional<Poly> narrow(const std::string& i, const Expr& lo, const Expr& hi,
                             const Expr& body) {
    const Expr& cond = body.operands()[0];
    const Expr& then_value = body.operands()[1];
    const Expr& else_value = body.operands()[2];
    bool zero_else = else_value == Expr(0), zero_then = then_value == Expr(0);
    if (cond.kind() != Kind::Compare || (!zero_else && !zero_then)) return std::nullopt;
    Comparison op = zero_else ? cond.comparison() : negated(cond.comparison());
    // cond is a * i + rest op 0 with a = ±1 and rest free of i.
    Poly diff = norm(cond.operands()[0]) - norm(cond.operands()[1]);
    if (!integer_typed(diff)) return std::nullopt;
    Expr index = var(i);
    Poly rest;
    i128 a = 0;
    for (const auto& [m, c] : diff) {
      if (m.size() == 1 && m[0].first == index && m[0].second == 1 && c.is_int() &&
          (c.num == 1 || c.num == -1)) {
        a = c.num;
        continue;
      }
      for (const auto& [atom_expr, e] : m)
        if (mentions(atom_expr, i)) return std::nullopt;
      add_term(rest, m, c);
    }
    if (a == 0 || op == Comparison::Ne) return std::nullopt;
    // a = 1: i op -rest.  a = -1: i flipped(op) rest.
    Poly bound = a == 1 ? scale(rest, Rat::of(-1)) : rest;
    if (a == -1) op = flipped(op);
    Expr new_lo = lo, new_hi = hi;
    auto at = [&](i128 shift) { return to_expr(bound + constant(shift)); };
    switch (op) {
      case Comparison::Ge:
        new_lo = maximum({lo, at(0)});
        break;
      case Comparison::Gt:
        new_lo = maximum({lo, at(1)});
        break;
      case Comparison::Le:
        new_hi = minimum({hi, at(0)});
        break;
      case Comparison::Lt:
        new_hi = minimum({hi, at(-1)});
        break;
      case Comparison::Eq:
        new_lo = maximum({lo, at(0)});
        new_hi = minimum({hi, at(0)});
        break;
      case Comparison::Ne:
        return std::nullopt;
    }
    const Expr& value = zero_else ? then_value : else_value;
    return norm(sum(i, new_lo, new_hi, value));
  }
};

}  // namespace

Expr simplify(const Expr& e) { return Simplifier().simplify_top(e); }

Expr simplify_or_keep(const Expr& e) {
  try {
    return simplify(e);
  } catch (const UserError&) {
    return e;
  }
}

}  // namespace perfcast::expr
