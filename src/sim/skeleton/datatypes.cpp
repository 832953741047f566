#include "sim/skeleton/datatypes.h"

#include <fmt/format.h>

#include <complex>
#include <cstring>
#include <type_traits>
#include <vector>

#include "perfcast/mpi.h"

namespace perfcast::sim::skeleton {

namespace {

template <class V, class I>
struct Pair {
  V value;
  I index;
};

struct TypeDesc {
  std::size_t size = 0;
  std::ptrdiff_t extent = 0;
  Datatype basic = MPI_DATATYPE_NULL;
  const char* name = "";
  // Derived: count blocks of blocklength elements of `base`, `stride_bytes` apart.
  Datatype base = MPI_DATATYPE_NULL;
  int count = 0, blocklength = 0;
  std::ptrdiff_t stride_bytes = 0;
  bool contiguous = true;
  bool in_use = false;
};

constexpr int kFirstDerived = 64;

template <class T>
TypeDesc basic(Datatype id, const char* name) {
  TypeDesc d;
  d.size = sizeof(T);
  d.extent = sizeof(T);
  d.basic = id;
  d.name = name;
  d.in_use = true;
  return d;
}

// Datatype handles index this table; derived types are appended (single-threaded:
// a live job runs on one thread).
std::vector<TypeDesc>& types() {
  static std::vector<TypeDesc> table = [] {
    std::vector<TypeDesc> t(kFirstDerived);
    t[MPI_CHAR] = basic<char>(MPI_CHAR, "MPI_CHAR");
    t[MPI_SIGNED_CHAR] = basic<signed char>(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR");
    t[MPI_UNSIGNED_CHAR] = basic<unsigned char>(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR");
    t[MPI_BYTE] = basic<unsigned char>(MPI_BYTE, "MPI_BYTE");
    t[MPI_SHORT] = basic<short>(MPI_SHORT, "MPI_SHORT");
    t[MPI_UNSIGNED_SHORT] = basic<unsigned short>(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT");
    t[MPI_INT] = basic<int>(MPI_INT, "MPI_INT");
    t[MPI_UNSIGNED] = basic<unsigned>(MPI_UNSIGNED, "MPI_UNSIGNED");
    t[MPI_LONG] = basic<long>(MPI_LONG, "MPI_LONG");
    t[MPI_UNSIGNED_LONG] = basic<unsigned long>(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG");
    t[MPI_LONG_LONG] = basic<long long>(MPI_LONG_LONG, "MPI_LONG_LONG");
    t[MPI_UNSIGNED_LONG_LONG] = basic<unsigned long long>(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG");
    t[MPI_FLOAT] = basic<float>(MPI_FLOAT, "MPI_FLOAT");
    t[MPI_DOUBLE] = basic<double>(MPI_DOUBLE, "MPI_DOUBLE");
    t[MPI_LONG_DOUBLE] = basic<long double>(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE");
    t[MPI_C_BOOL] = basic<bool>(MPI_C_BOOL, "MPI_C_BOOL");
    t[MPI_CXX_BOOL] = basic<bool>(MPI_CXX_BOOL, "MPI_CXX_BOOL");
    t[MPI_INT8_T] = basic<std::int8_t>(MPI_INT8_T, "MPI_INT8_T");
    t[MPI_INT16_T] = basic<std::int16_t>(MPI_INT16_T, "MPI_INT16_T");
    t[MPI_INT32_T] = basic<std::int32_t>(MPI_INT32_T, "MPI_INT32_T");
    t[MPI_INT64_T] = basic<std::int64_t>(MPI_INT64_T, "MPI_INT64_T");
    t[MPI_UINT8_T] = basic<std::uint8_t>(MPI_UINT8_T, "MPI_UINT8_T");
    t[MPI_UINT16_T] = basic<std::uint16_t>(MPI_UINT16_T, "MPI_UINT16_T");
    t[MPI_UINT32_T] = basic<std::uint32_t>(MPI_UINT32_T, "MPI_UINT32_T");
    t[MPI_UINT64_T] = basic<std::uint64_t>(MPI_UINT64_T, "MPI_UINT64_T");
    t[MPI_WCHAR] = basic<wchar_t>(MPI_WCHAR, "MPI_WCHAR");
    t[MPI_PACKED] = basic<unsigned char>(MPI_PACKED, "MPI_PACKED");
    t[MPI_AINT] = basic<long>(MPI_AINT, "MPI_AINT");
    t[MPI_OFFSET] = basic<long long>(MPI_OFFSET, "MPI_OFFSET");
    t[MPI_COUNT] = basic<long long>(MPI_COUNT, "MPI_COUNT");
    t[MPI_FLOAT_INT] = basic<Pair<float, int>>(MPI_FLOAT_INT, "MPI_FLOAT_INT");
    t[MPI_DOUBLE_INT] = basic<Pair<double, int>>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
    t[MPI_LONG_INT] = basic<Pair<long, int>>(MPI_LONG_INT, "MPI_LONG_INT");
    t[MPI_2INT] = basic<Pair<int, int>>(MPI_2INT, "MPI_2INT");
    t[MPI_SHORT_INT] = basic<Pair<short, int>>(MPI_SHORT_INT, "MPI_SHORT_INT");
    t[MPI_LONG_DOUBLE_INT] = basic<Pair<long double, int>>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT");
    t[MPI_C_FLOAT_COMPLEX] = basic<std::complex<float>>(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX");
    t[MPI_C_DOUBLE_COMPLEX] = basic<std::complex<double>>(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX");
    return t;
  }();
  return table;
}

const TypeDesc* find(Datatype t) {
  auto& table = types();
  if (t <= 0 || static_cast<std::size_t>(t) >= table.size() || !table[t].in_use) return nullptr;
  return &table[t];
}

Datatype add(TypeDesc d) {
  auto& table = types();
  for (std::size_t i = kFirstDerived; i < table.size(); ++i) {
    if (!table[i].in_use) {
      table[i] = d;
      return static_cast<Datatype>(i);
    }
  }
  table.push_back(d);
  return static_cast<Datatype>(table.size() - 1);
}

struct UserOp {
  UserFunction* fn = nullptr;
  bool in_use = false;
};
constexpr int kFirstUserOp = 32;
std::vector<UserOp>& user_ops() {
  static std::vector<UserOp> ops(kFirstUserOp);
  return ops;
}

template <class T>
bool reduce_arith(Op op, const T* in, T* io, std::size_t n) {
  switch (op) {
    case MPI_SUM:
      for (std::size_t i = 0; i < n; ++i) io[i] = in[i] + io[i];
      return true;
    case MPI_PROD:
      for (std::size_t i = 0; i < n; ++i) io[i] = in[i] * io[i];
      return true;
    case MPI_REPLACE:
      return true;
    default:
      break;
  }
  if constexpr (!std::is_same_v<T, std::complex<float>> && !std::is_same_v<T, std::complex<double>>) {
    switch (op) {
      case MPI_MAX:
        for (std::size_t i = 0; i < n; ++i) io[i] = in[i] > io[i] ? in[i] : io[i];
        return true;
      case MPI_MIN:
        for (std::size_t i = 0; i < n; ++i) io[i] = in[i] < io[i] ? in[i] : io[i];
        return true;
      case MPI_LAND:
        for (std::size_t i = 0; i < n; ++i) io[i] = in[i] && io[i];
        return true;
      case MPI_LOR:
        for (std::size_t i = 0; i < n; ++i) io[i] = in[i] || io[i];
        return true;
      case MPI_LXOR:
        for (std::size_t i = 0; i < n; ++i) io[i] = !in[i] != !io[i];
        return true;
      default:
        break;
    }
    if constexpr (std::is_integral_v<T>) {
      switch (op) {
        case MPI_BAND:
          for (std::size_t i = 0; i < n; ++i) io[i] = in[i] & io[i];
          return true;
        case MPI_BOR:
          for (std::size_t i = 0; i < n; ++i) io[i] = in[i] | io[i];
          return true;
        case MPI_BXOR:
          for (std::size_t i = 0; i < n; ++i) io[i] = in[i] ^ io[i];
          return true;
        default:
          break;
      }
    }
  }
  return false;
}

template <class P>
bool reduce_loc(Op op, const P* in, P* io, std::size_t n) {
  if (op != MPI_MAXLOC && op != MPI_MINLOC) return false;
  for (std::size_t i = 0; i < n; ++i) {
    bool take = op == MPI_MAXLOC ? in[i].value > io[i].value : in[i].value < io[i].value;
    if (in[i].value == io[i].value) take = in[i].index < io[i].index;
    if (take) io[i] = in[i];
  }
  return true;
}

template <class T>
bool typed(Op op, const std::byte* in, std::byte* io, std::size_t bytes) {
  // Packed buffers come from std::vector<std::byte> (malloc alignment), so the cast is aligned.
  return reduce_arith<T>(op, reinterpret_cast<const T*>(in), reinterpret_cast<T*>(io), bytes / sizeof(T));
}
template <class P>
bool typed_loc(Op op, const std::byte* in, std::byte* io, std::size_t bytes) {
  return reduce_loc<P>(op, reinterpret_cast<const P*>(in), reinterpret_cast<P*>(io), bytes / sizeof(P));
}

}  // namespace

bool type_valid(Datatype t) { return find(t) != nullptr; }
std::size_t type_size(Datatype t) {
  const TypeDesc* d = find(t);
  return d ? d->size : 0;
}
std::ptrdiff_t type_extent(Datatype t) {
  const TypeDesc* d = find(t);
  return d ? d->extent : 0;
}
Datatype type_basic(Datatype t) {
  const TypeDesc* d = find(t);
  return d ? d->basic : MPI_DATATYPE_NULL;
}
std::string type_name(Datatype t) {
  const TypeDesc* d = find(t);
  if (!d) return fmt::format("invalid datatype {}", t);
  if (t < kFirstDerived) return d->name;
  return fmt::format("derived datatype {} of {}", t, type_name(d->base));
}

Datatype type_contiguous(int count, Datatype old) { return type_vector(1, count, count, old); }

Datatype type_vector(int count, int blocklength, int stride, Datatype old) {
  const TypeDesc* o = find(old);
  if (!o || count < 0 || blocklength < 0) return MPI_DATATYPE_NULL;
  TypeDesc d;
  d.base = old;
  d.basic = o->basic;
  d.count = count;
  d.blocklength = blocklength;
  d.stride_bytes = static_cast<std::ptrdiff_t>(stride) * o->extent;
  d.size = static_cast<std::size_t>(count) * blocklength * o->size;
  d.extent = count == 0 ? 0 : (count - 1) * d.stride_bytes + blocklength * o->extent;
  d.contiguous = o->contiguous && (count <= 1 || stride == blocklength);
  d.in_use = true;
  return add(d);
}

void type_free(Datatype t) {
  if (t >= kFirstDerived && find(t)) types()[t].in_use = false;
}

void pack(const void* buf, std::size_t count, Datatype t, std::byte* out) {
  const TypeDesc* d = find(t);
  if (!d || count == 0) return;
  auto* src = static_cast<const std::byte*>(buf);
  if (d->contiguous && static_cast<std::ptrdiff_t>(d->size) == d->extent) {
    std::memcpy(out, src, count * d->size);
    return;
  }
  const TypeDesc* base = find(d->base);
  std::size_t block = static_cast<std::size_t>(d->blocklength) * base->size;
  for (std::size_t e = 0; e < count; ++e) {
    for (int b = 0; b < d->count; ++b) {
      pack(src + e * d->extent + b * d->stride_bytes, d->blocklength, d->base, out);
      out += block;
    }
  }
}

void unpack(const std::byte* in, std::size_t bytes, void* buf, Datatype t) {
  const TypeDesc* d = find(t);
  if (!d || d->size == 0 || bytes == 0) return;
  auto* dst = static_cast<std::byte*>(buf);
  if (d->contiguous && static_cast<std::ptrdiff_t>(d->size) == d->extent) {
    std::memcpy(dst, in, bytes);
    return;
  }
  const TypeDesc* base = find(d->base);
  std::size_t block = static_cast<std::size_t>(d->blocklength) * base->size;
  std::size_t count = bytes / d->size;
  for (std::size_t e = 0; e < count; ++e) {
    for (int b = 0; b < d->count; ++b) {
      unpack(in, block, dst + e * d->extent + b * d->stride_bytes, d->base);
      in += block;
    }
  }
}

Op op_create(UserFunction* fn, bool) {
  auto& ops = user_ops();
  for (std::size_t i = kFirstUserOp; i < ops.size(); ++i) {
    if (!ops[i].in_use) {
      ops[i] = {fn, true};
      return static_cast<Op>(i);
    }
  }
  ops.push_back({fn, true});
  return static_cast<Op>(ops.size() - 1);
}

void op_free(Op op) {
  auto& ops = user_ops();
  if (op >= kFirstUserOp && static_cast<std::size_t>(op) < ops.size()) ops[op].in_use = false;
}

bool op_valid(Op op) {
  if (op >= MPI_MAX && op <= MPI_REPLACE) return true;
  auto& ops = user_ops();
  return op >= kFirstUserOp && static_cast<std::size_t>(op) < ops.size() && ops[op].in_use;
}

bool reduce(Op op, Datatype t, const std::byte* in, std::byte* inout, std::size_t bytes) {
  if (op >= kFirstUserOp) {
    if (!op_valid(op)) return false;
    // A user function sees elements of the call's datatype, as in MPI.
    std::size_t size = type_size(t);
    int len = size ? static_cast<int>(bytes / size) : 0;
    int datatype = t;
    user_ops()[op].fn(const_cast<std::byte*>(in), inout, &len, &datatype);
    return true;
  }
  switch (type_basic(t)) {
    case MPI_CHAR:
    case MPI_SIGNED_CHAR:
    case MPI_INT8_T:
      return typed<std::int8_t>(op, in, inout, bytes);
    case MPI_UNSIGNED_CHAR:
    case MPI_BYTE:
    case MPI_UINT8_T:
    case MPI_PACKED:
      return typed<std::uint8_t>(op, in, inout, bytes);
    case MPI_C_BOOL:
    case MPI_CXX_BOOL:
      return typed<std::uint8_t>(op, in, inout, bytes);  // bools are bytes 0/1
    case MPI_SHORT:
    case MPI_INT16_T:
      return typed<std::int16_t>(op, in, inout, bytes);
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T:
      return typed<std::uint16_t>(op, in, inout, bytes);
    case MPI_INT:
    case MPI_INT32_T:
      return typed<std::int32_t>(op, in, inout, bytes);
    case MPI_UNSIGNED:
    case MPI_UINT32_T:
      return typed<std::uint32_t>(op, in, inout, bytes);
    case MPI_WCHAR:
      return typed<wchar_t>(op, in, inout, bytes);
    case MPI_LONG:
    case MPI_AINT:
      return typed<long>(op, in, inout, bytes);
    case MPI_UNSIGNED_LONG:
      return typed<unsigned long>(op, in, inout, bytes);
    case MPI_LONG_LONG:
    case MPI_INT64_T:
    case MPI_OFFSET:
    case MPI_COUNT:
      return typed<long long>(op, in, inout, bytes);
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
      return typed<unsigned long long>(op, in, inout, bytes);
    case MPI_FLOAT:
      return typed<float>(op, in, inout, bytes);
    case MPI_DOUBLE:
      return typed<double>(op, in, inout, bytes);
    case MPI_LONG_DOUBLE:
      return typed<long double>(op, in, inout, bytes);
    case MPI_C_FLOAT_COMPLEX:
      return typed<std::complex<float>>(op, in, inout, bytes);
    case MPI_C_DOUBLE_COMPLEX:
      return typed<std::complex<double>>(op, in, inout, bytes);
    case MPI_FLOAT_INT:
      return typed_loc<Pair<float, int>>(op, in, inout, bytes);
    case MPI_DOUBLE_INT:
      return typed_loc<Pair<double, int>>(op, in, inout, bytes);
    case MPI_LONG_INT:
      return typed_loc<Pair<long, int>>(op, in, inout, bytes);
    case MPI_2INT:
      return typed_loc<Pair<int, int>>(op, in, inout, bytes);
    case MPI_SHORT_INT:
      return typed_loc<Pair<short, int>>(op, in, inout, bytes);
    case MPI_LONG_DOUBLE_INT:
      return typed_loc<Pair<long double, int>>(op, in, inout, bytes);
    default:
      return false;
  }
}

}  // namespace perfcast::sim::skeleton
