// Exact evaluation: integers are carried in 128 bits with every operation checked,
// so intermediate values may exceed 64 bits (zext(n - 1, 64) of n = 0 is 2^64 - 1)
// while the result must fit 64 bits.
#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <vector>
#include <ostream>

#include "support/error.h"
#include "support/expr.h"

namespace perfcast::expr {

std::int64_t Value::integer() const {
  if (!known_) throw UserError("expected an integer, found none (a default that does not evaluate)");
  if (!is_integer_) throw UserError(fmt::format("expected an integer, found the real {}", real_));
  return integer_;
}

std::string Value::str() const {
  if (!known_) return "unknown";
  return is_integer_ ? std::to_string(integer_) : fmt::format("{}", real_);
}

std::ostream& operator<<(std::ostream& os, const Value& v) { return os << v.str(); }

namespace {

using i128 = __int128;
constexpr i128 kI128Min = static_cast<i128>(static_cast<unsigned __int128>(1) << 127);

std::string text_of(i128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  std::string s;
  while (v != 0) {
    int digit = static_cast<int>(v % 10);
    s += static_cast<char>('0' + (digit < 0 ? -digit : digit));
    v /= 10;
  }
  if (negative) s += '-';
  return {s.rbegin(), s.rend()};
}

struct Num {
  bool is_int = true;
  i128 i = 0;
  double d = 0;

  static Num of(i128 v) { return {true, v, 0}; }
  static Num of(double v) { return {false, 0, v}; }
  double real() const { return is_int ? static_cast<double>(i) : d; }
  std::string str() const { return is_int ? text_of(i) : fmt::format("{}", d); }
};

class Evaluator {
 public:
  Evaluator(const Expr& root, const Bindings& bindings) : root_(root), bindings_(bindings) {}

  Num eval(const Expr& e) {
    const auto& ops = e.operands();
    switch (e.kind()) {
      case Kind::Integer:
        return Num::of(i128{e.int_value()});
      case Kind::Real:
        return Num::of(e.real_value());
      case Kind::Name:
        return lookup(e.name());
      case Kind::Add: {
        Num acc = eval(ops[0]);
        for (std::size_t k = 1; k < ops.size(); ++k) acc = add(e, acc, eval(ops[k]));
        return acc;
      }
      case Kind::Mul:
        return product(e);
      case Kind::Div: {
        Num a = eval(ops[0]), b = eval(ops[1]);
        if (b.real() == 0) division_by_zero(e, ops[1]);
        return Num::of(a.real() / b.real());
      }
      case Kind::Pow:
        return power(e, eval(ops[0]), eval(ops[1]));
      case Kind::FloorDiv:
      case Kind::CeilDiv:
      case Kind::Mod:
        return divide(e, eval(ops[0]), eval(ops[1]));
      case Kind::Min:
      case Kind::Max:
        return extremum(e);
      case Kind::ZExt:
      case Kind::Trunc:
      case Kind::SExt:
        return width(e, eval(ops[0]));
      case Kind::Select:
        return truth(eval(ops[0])) ? eval(ops[1]) : eval(ops[2]);
      case Kind::Compare:
        return Num::of(i128{holds(e.comparison(), eval(ops[0]), eval(ops[1]))});
      case Kind::Sum:
        return sum(e);
    }
    return {};
  }

  [[noreturn]] void fail(const std::string& what, std::string hint = {}) const {
    throw UserError(fmt::format("{} while evaluating '{}'", what, root_.str()), {},
                    std::move(hint));
  }

 private:
  // A value that is no number a program holds: an integer past 128 bits (or
  // a 64-bit conversion of one past 64), a real a width conversion cannot
  // keep, a name bound to Value::unknown(). A product with a factor 0 is 0
  // even so.
  struct NoNumber : UserError {
    using UserError::UserError;
  };
  struct Overflow : NoNumber {
    using NoNumber::NoNumber;
  };

  // A product with a factor 0 is 0, whatever its other factors are, even
  // where one is no number: a guard's 0 (select(c, 1, 0), a side never
  // taken; a probability 0) times the counts of the code it skips, which need
  // not be numbers where that code never runs (a vector body's unsigned count
  // near 2^64, a probe run's mean size below the vector width in its zext, a
  // parameter whose default wraps there). No number where no factor is 0 is
  // still an error; other errors (an unbound name, a division by zero) stay
  // errors, 0 or not. Where every factor evaluates, the product is computed
  // as written (0 times a real NaN stays NaN). The 0 is real when a factor is
  // real, as the product would be.
  Num product(const Expr& e) {
    std::vector<Num> factors;
    std::optional<NoNumber> failed;
    bool zero = false, real = false;
    for (const Expr& op : e.operands()) {
      try {
        factors.push_back(eval(op));
      } catch (const NoNumber& error) {
        if (!failed) failed = error;
        continue;
      }
      zero = zero || (factors.back().is_int ? factors.back().i == 0 : factors.back().d == 0);
      real = real || !factors.back().is_int;
    }
    const Num zero_product = real ? Num::of(0.0) : Num::of(i128{0});
    if (failed) {
      if (zero) return zero_product;
      throw *failed;
    }
    try {
      Num acc = factors[0];
      for (std::size_t k = 1; k < factors.size(); ++k) acc = multiply(e, acc, factors[k]);
      return acc;
    } catch (const Overflow&) {
      if (zero) return zero_product;
      throw;
    }
  }

  Num lookup(const std::string& name) const {
    for (auto it = locals_.rbegin(); it != locals_.rend(); ++it)
      if (*it->first == name) return it->second;
    auto it = bindings_.find(name);
    if (it == bindings_.end()) {
      std::string needed;
      for (const auto& n : free_names(root_)) needed += (needed.empty() ? "" : ", ") + n;
      throw UserError(fmt::format("no value for '{}' in expression '{}' (it needs: {})", name, root_.str(), needed), {},
                      "bind every parameter the expression needs");
    }
    const Value& v = it->second;
    if (!v.is_known())
      throw NoNumber(fmt::format("'{}' has no value here: its default does not evaluate at the values bound, while "
                                 "evaluating '{}'",
                                 name, root_.str()),
                     {}, fmt::format("pass --param {}=VALUE, or see its default with 'perfcast model params'", name));
    return v.is_integer() ? Num::of(i128{v.integer()}) : Num::of(v.real());
  }

  [[noreturn]] void overflow(const Expr& where, const Num& a, const Num& b) const {
    throw Overflow(fmt::format("integer overflow in '{}' (operands {} and {}) while evaluating '{}'",
                               where.str(), a.str(), b.str(), root_.str()));
  }

  [[noreturn]] void division_by_zero(const Expr& where, const Expr& divisor) const {
    fail(fmt::format("division by zero in '{}' ('{}' is 0)", where.str(), divisor.str()));
  }

  Num add(const Expr& where, const Num& a, const Num& b) const {
    if (!a.is_int || !b.is_int) return Num::of(a.real() + b.real());
    i128 r;
    if (__builtin_add_overflow(a.i, b.i, &r)) overflow(where, a, b);
    return Num::of(r);
  }

  Num multiply(const Expr& where, const Num& a, const Num& b) const {
    if (!a.is_int || !b.is_int) return Num::of(a.real() * b.real());
    i128 r;
    if (__builtin_mul_overflow(a.i, b.i, &r)) overflow(where, a, b);
    return Num::of(r);
  }

  Num power(const Expr& where, const Num& base, const Num& exponent) const {
    if (!base.is_int || !exponent.is_int || exponent.i < 0)
      return Num::of(std::pow(base.real(), exponent.real()));
    i128 result = 1, b = base.i;
    for (i128 k = exponent.i; k > 0; k >>= 1) {
      if ((k & 1) && __builtin_mul_overflow(result, b, &result)) overflow(where, base, exponent);
      if (k > 1 && __builtin_mul_overflow(b, b, &b)) overflow(where, base, exponent);
    }
    return Num::of(result);
  }

  Num divide(const Expr& where, const Num& a, const Num& b) const {
    if (b.real() == 0) division_by_zero(where, where.operands()[1]);
    Kind k = where.kind();
    if (!a.is_int || !b.is_int) {
      double x = a.real(), y = b.real();
      if (k == Kind::FloorDiv) return Num::of(std::floor(x / y));
      if (k == Kind::CeilDiv) return Num::of(std::ceil(x / y));
      return Num::of(x - y * std::floor(x / y));
    }
    if (b.i == -1 && a.i == kI128Min) overflow(where, a, b);
    i128 q = a.i / b.i, r = a.i % b.i;
    bool inexact = r != 0;
    bool negative = (a.i < 0) != (b.i < 0);
    if (k == Kind::FloorDiv) return Num::of(inexact && negative ? q - 1 : q);
    if (k == Kind::CeilDiv) return Num::of(inexact && !negative ? q + 1 : q);
    return Num::of(inexact && ((r < 0) != (b.i < 0)) ? r + b.i : r);
  }

  Num extremum(const Expr& e) {
    bool is_min = e.kind() == Kind::Min;
    std::vector<Num> values;
    bool all_int = true;
    for (const Expr& op : e.operands()) {
      values.push_back(eval(op));
      all_int = all_int && values.back().is_int;
    }
    Num best = values[0];
    for (const Num& v : values) {
      bool better = all_int ? (is_min ? v.i < best.i : v.i > best.i)
                            : (is_min ? v.real() < best.real() : v.real() > best.real());
      if (better) best = v;
    }
    return all_int ? best : Num::of(best.real());
  }

  Num width(const Expr& e, const Num& x) const {
    int bits = e.bits();
    i128 modulus = i128{1} << bits;
    if (!x.is_int) {
      // A real here is a mean of integers the program held (a probe run's
      // mean size over the calls): where it lies in the range the conversion
      // keeps (zext, trunc: [0, 2^bits); sext: [-2^(bits-1), 2^(bits-1))), the
      // values it stands for were kept too on the mean, so it passes unchanged.
      // Outside, no mean of kept values lands there: the wrap is not known.
      const double lo = e.kind() == Kind::SExt ? -std::ldexp(1.0, bits - 1) : 0.0;
      const double hi = e.kind() == Kind::SExt ? std::ldexp(1.0, bits - 1) : std::ldexp(1.0, bits);
      if (!(x.d >= lo && x.d < hi))
        throw NoNumber(
            fmt::format("'{}' needs an integer or a real in [{}, {}), and '{}' is the real {} while "
                        "evaluating '{}'",
                        e.str(), lo, hi, e.operands()[0].str(), x.d, root_.str()));
      return x;
    }
    // A 64-bit value the program holds is in [-2^63, 2^64): beyond, the exact
    // value overflowed the machine's registers, and its low bits are no count
    // (a footprint that sums a skipped loop's wrapped trips). Narrower widths
    // wrap as the program's own arithmetic does.
    if (bits == 64 && (x.i < -(modulus >> 1) || x.i >= modulus))
      throw Overflow(fmt::format("integer overflow in '{}' ({} is no 64-bit value) while evaluating '{}'", e.str(),
                                 x.str(), root_.str()));
    i128 low = x.i & (modulus - 1);  // two's complement: the low bits, read unsigned
    if (e.kind() == Kind::SExt && (low >> (bits - 1)) != 0) low -= modulus;
    return Num::of(low);
  }

  static bool truth(const Num& c) { return c.is_int ? c.i != 0 : c.d != 0; }

  static bool holds(Comparison op, const Num& a, const Num& b) {
    int c;
    if (a.is_int && b.is_int) {
      c = a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
    } else {
      double x = a.real(), y = b.real();
      if (std::isnan(x) || std::isnan(y)) return op == Comparison::Ne;
      c = x < y ? -1 : x > y ? 1 : 0;
    }
    switch (op) {
      case Comparison::Lt:
        return c < 0;
      case Comparison::Le:
        return c <= 0;
      case Comparison::Gt:
        return c > 0;
      case Comparison::Ge:
        return c >= 0;
      case Comparison::Eq:
        return c == 0;
      case Comparison::Ne:
        return c != 0;
    }
    return false;
  }

  Num sum(const Expr& e) {
    const auto& ops = e.operands();
    Num lo = eval(ops[0]), hi = eval(ops[1]);
    // A real bound is a probe run's mean of the integers the program held (a
    // loop's mean trips per arrival, the bound of a nest). Where the body does
    // not name the index its terms are all alike: the sum is their number
    // times one, linear in the mean as the loops' total is. Otherwise a real
    // upper bound takes the terms up to its whole part and that fraction of
    // the next: the sum's linear interpolation between the whole bounds
    // around it, which a mean of them lies between.
    if ((!lo.is_int || !hi.is_int) && !free_names(ops[2]).count(e.name())) {
      const double terms = hi.real() - lo.real() + 1;
      return terms <= 0 ? Num::of(i128{0}) : multiply(e, Num::of(terms), eval(ops[2]));
    }
    if (!lo.is_int)
      fail(fmt::format("the lower bound of '{}' must be an integer where its body varies with '{}', and is {}",
                       e.str(), e.name(), lo.str()));
    double fraction = 0;
    if (!hi.is_int) {
      const double whole = std::floor(hi.d);
      if (!std::isfinite(whole) || std::fabs(whole) > 0x1p62)
        fail(fmt::format("the upper bound of '{}' is {}, no count of terms", e.str(), hi.str()));
      fraction = hi.d - whole;
      hi = Num::of(static_cast<i128>(whole));
    }
    Num acc = Num::of(i128{0});
    if (hi.i + 1 < lo.i || (hi.i < lo.i && fraction == 0)) return acc;
    if (hi.i - lo.i >= kMaxSumTerms)
      fail(fmt::format("'{}' has {} terms, more than the {} perfcast adds one by one", e.str(),
                       text_of(hi.i - lo.i + 1), kMaxSumTerms),
           "a sum whose body is a polynomial of degree <= 3 in its index has a closed form: "
           "simplify() the expression first");
    // The index is unbound again however the body's evaluation ends: a
    // product may go on past an overflow in one of its factors.
    locals_.push_back({&e.name(), lo});
    struct Bound {
      std::vector<std::pair<const std::string*, Num>>& locals;
      ~Bound() { locals.pop_back(); }
    } bound{locals_};
    for (i128 i = lo.i; i <= hi.i; ++i) {
      locals_.back().second = Num::of(i);
      acc = add(e, acc, eval(ops[2]));
    }
    if (fraction > 0) {
      locals_.back().second = Num::of(hi.i + 1);
      acc = add(e, acc, multiply(e, Num::of(fraction), eval(ops[2])));
    }
    return acc;
  }

  const Expr& root_;
  const Bindings& bindings_;
  std::vector<std::pair<const std::string*, Num>> locals_;  // sum indices, innermost last
};

}  // namespace

Value evaluate(const Expr& e, const Bindings& bindings) {
  Evaluator evaluator(e, bindings);
  Num v = evaluator.eval(e);
  if (!v.is_int) return Value(v.d);
  if (v.i < INT64_MIN || v.i > INT64_MAX)
    evaluator.fail(fmt::format("integer overflow: the result {} does not fit 64 bits", v.str()));
  return Value(static_cast<std::int64_t>(v.i));
}

std::int64_t evaluate_integer(const Expr& e, const Bindings& bindings) {
  Value v = evaluate(e, bindings);
  if (!v.is_integer())
    throw UserError(fmt::format("expression '{}' evaluates to the real {} where an integer is "
                                "expected",
                                e.str(), v.real()),
                    {}, "use floordiv() or ceildiv() instead of '/' for integer division");
  return v.integer();
}

}  // namespace perfcast::expr
