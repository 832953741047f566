// Symbolic expressions over named program parameters (`nx`, `steps`, `rank`, `size`).
//
// The static analyser turns LLVM ScalarEvolution results into these; the program
// model stores them in JSON as text and evaluates them per rank with bound
// parameters. An expression is an immutable tree shared by value: copying an Expr
// is cheap and never changes what another copy sees.
//
// Text form (what parse() reads and to_string() writes):
//   integers, decimal reals (1.5, 2e-3), names [A-Za-z_][A-Za-z0-9_.]*,
//   + - * / ^, unary minus, parentheses, comparisons < <= > >= == != (value 1 or 0),
//   floordiv(a, b)  ceildiv(a, b)  mod(a, b)      integer division; mod has the sign of b
//   min(a, ...)     max(a, ...)
//   zext(x, bits)   trunc(x, bits)  sext(x, bits)  two's-complement width conversions:
//                   zext and trunc keep the low `bits` bits read as unsigned
//                   (x mod 2^bits), sext reads them as signed; both names are kept
//                   so that the text follows the IR it came from. A real (a mean
//                   of the integers a program held) passes unchanged where it
//                   lies in the range the conversion keeps, and fails outside
//   select(cond, a, b)                             a when cond != 0, else b
//   sum(i, lo, hi, body)                           Σ_{i=lo}^{hi} body, 0 when hi < lo
// `/` is real division (its result is a real); `^` is a power (an integer when
// both sides are integers and the exponent is not negative).
//
// Contract: parse(to_string(e)) == e for every e, where == is structural equality.
#pragma once

#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace perfcast::expr {

enum class Kind : std::uint8_t {
  Integer,
  Real,
  Name,
  Add,
  Mul,
  Div,
  Pow,
  FloorDiv,
  CeilDiv,
  Mod,
  Min,
  Max,
  ZExt,
  Trunc,
  SExt,
  Select,
  Compare,
  Sum,
};

enum class Comparison : std::uint8_t { Lt, Le, Gt, Ge, Eq, Ne };

struct Node;

class Expr {
 public:
  Expr();                    // the integer 0
  Expr(std::int64_t value);  // implicit so that `n * 2 + 1` reads as written

  Kind kind() const;
  bool is_constant() const { return kind() == Kind::Integer || kind() == Kind::Real; }
  std::int64_t int_value() const;   // Integer only
  double real_value() const;        // Integer or Real
  const std::string& name() const;  // Name; the index of a Sum
  int bits() const;                 // ZExt, Trunc, SExt
  Comparison comparison() const;    // Compare
  // Add, Mul: the terms/factors; Div, Pow, FloorDiv, CeilDiv, Mod, Compare: {a, b};
  // Min, Max: the arguments; ZExt, Trunc, SExt: {x}; Select: {cond, a, b};
  // Sum: {lo, hi, body}.
  const std::vector<Expr>& operands() const;

  std::string str() const;

  friend bool operator==(const Expr& a, const Expr& b);

 private:
  friend Expr make_node(Node node);
  friend int structural_compare(const Expr& a, const Expr& b);
  explicit Expr(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  std::shared_ptr<const Node> node_;
};

// A total order on trees (kind, then payload, then operands); names sort
// alphabetically. Returns <0, 0, >0.
int structural_compare(const Expr& a, const Expr& b);
struct StructuralLess {
  bool operator()(const Expr& a, const Expr& b) const { return structural_compare(a, b) < 0; }
};

// ---- Builders. They flatten nested + and *, and nested min/max, and nothing else:
// the tree keeps the shape of what was written, simplify() normalises.
Expr integer(std::int64_t value);
Expr real(double value);
Expr var(std::string_view name);      // throws UserError if `name` is not a valid name
Expr add(std::vector<Expr> terms);    // empty: 0
Expr mul(std::vector<Expr> factors);  // empty: 1
Expr neg(const Expr& e);              // folds into a leading constant: neg(2*x) is -2*x
Expr sub(const Expr& a, const Expr& b);
Expr div(const Expr& a, const Expr& b);  // real division
Expr pow(const Expr& base, const Expr& exponent);
Expr floordiv(const Expr& a, const Expr& b);
Expr ceildiv(const Expr& a, const Expr& b);
Expr mod(const Expr& a, const Expr& b);
Expr minimum(std::vector<Expr> args);  // throws UserError when empty
Expr maximum(std::vector<Expr> args);
Expr zext(const Expr& x, int bits);  // bits in [1, 64], else UserError
Expr trunc(const Expr& x, int bits);
Expr sext(const Expr& x, int bits);
Expr select(const Expr& cond, const Expr& a, const Expr& b);
Expr compare(Comparison op, const Expr& a, const Expr& b);
Expr sum(std::string_view index, const Expr& lo, const Expr& hi, const Expr& body);

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator/(const Expr& a, const Expr& b);  // real division
Expr operator-(const Expr& a);

// ---- Text.
// Throws UserError "in expression '<text>': column <c>: expected <what>, found <what>".
Expr parse(std::string_view text);
// Readable and minimal in parentheses: `floordiv(nx - 2, 4) * ny + 1`.
std::string to_string(const Expr& e);
std::ostream& operator<<(std::ostream& os, const Expr& e);

// ---- Values.
// An exact integer or a real. Integers stay integers through + - * ^ floordiv
// ceildiv mod min max and the width conversions; a value becomes real only when `/`
// or a real operand is involved.
class Value {
 public:
  Value() = default;
  template <std::integral T>
  Value(T v) : is_integer_(true), integer_(static_cast<std::int64_t>(v)) {}
  template <std::floating_point T>
  Value(T v) : is_integer_(false), real_(static_cast<double>(v)) {}

  // A name bound to no number: a parameter's default that does not evaluate
  // at the values bound (it overflows, divides by zero). Evaluating it is an
  // error, but one a product with a factor 0 absorbs, as it absorbs an
  // overflow: a default needed only by code a guard skips. real() is NaN,
  // integer() throws, str() is "unknown".
  static Value unknown() {
    Value v(0.0);
    v.known_ = false;
    v.real_ = std::numeric_limits<double>::quiet_NaN();
    return v;
  }
  bool is_known() const { return known_; }

  bool is_integer() const { return is_integer_; }
  std::int64_t integer() const;  // throws UserError when the value is real
  double real() const { return is_integer_ ? static_cast<double>(integer_) : real_; }
  std::string str() const;

  // Exact: an integer never equals a real.
  friend bool operator==(const Value& a, const Value& b) {
    if (!a.known_ || !b.known_) return a.known_ == b.known_;
    return a.is_integer_ == b.is_integer_ &&
           (a.is_integer_ ? a.integer_ == b.integer_ : a.real_ == b.real_);
  }

 private:
  bool is_integer_ = true;
  bool known_ = true;
  std::int64_t integer_ = 0;
  double real_ = 0;
};
std::ostream& operator<<(std::ostream& os, const Value& v);

using Bindings = std::map<std::string, Value, std::less<>>;

// Sums without a closed form are evaluated term by term up to this many terms.
inline constexpr std::int64_t kMaxSumTerms = 100'000'000;

// Evaluates exactly: integer arithmetic is carried in 128 bits and checked, and the
// result must fit 64 bits. Throws UserError (naming the expression) for an unbound
// name (listing the names the expression needs), division or mod by zero, integer
// overflow (a 64-bit conversion of a value outside [-2^63, 2^64) is one), a width
// conversion applied to a real outside the range it keeps, a sum bound that is a
// real, or a sum of more than kMaxSumTerms
// terms that simplify() could not close, or a name bound to Value::unknown(). A
// product with a factor 0 is 0 even where another factor is no number (an
// overflow, a real a width conversion cannot keep, an unknown value): a guard's
// 0 times the counts of code it skips, which need not be numbers where that
// code does not run.
Value evaluate(const Expr& e, const Bindings& bindings);
// As evaluate(), and throws UserError when the result is real.
std::int64_t evaluate_integer(const Expr& e, const Bindings& bindings);

// The names an expression needs a value for (sum indices are bound, not free).
std::set<std::string> free_names(const Expr& e);

// Replaces free names by expressions, all at once (a replacement is not itself
// substituted again). Sum indices are renamed when a replacement would capture them.
using Substitution = std::map<std::string, Expr, std::less<>>;
Expr substitute(const Expr& e, const Substitution& replacements);

// An equivalent, usually smaller expression: constants folded, + and * flattened
// and sorted, like terms collected, integer identities of floordiv/ceildiv/mod
// applied (floordiv(a*k, k) -> a, floordiv(4*n + 3, 4) -> n), min/max flattened with
// dominated arguments dropped, and sums whose body is a polynomial of degree <= 3
// in the index closed (Faulhaber), with symbolic bounds; rational results stay
// exact as floordiv(numerator, denominator).
//
// Contract: names are assumed bound to integers. Then, wherever e evaluates without
// error, simplify(e) evaluates to the same value. simplify(e) may evaluate where e
// failed (x*0 drops a division by zero in x) and, rarely, the reverse when a
// closed form's intermediate products exceed 128 bits.
Expr simplify(const Expr& e);
// simplify(e), or e unchanged where folding one of its constants fails (a
// value past 64 bits, a division by zero): an evaluation of e reports that
// failure later, where the caller knows what e counts and whether it runs.
Expr simplify_or_keep(const Expr& e);

}  // namespace perfcast::expr
