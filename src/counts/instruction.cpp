#include "counts/instruction.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace perfcast::counts {

namespace {

using namespace std::string_view_literals;

bool one_of(std::string_view word, std::initializer_list<std::string_view> set) {
  return std::find(set.begin(), set.end(), word) != set.end();
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_prefix_word(std::string_view w) {
  return one_of(w, {"rep", "repz", "repe", "repnz", "repne",  "lock",   "bnd",    "notrack", "cs",       "ds",
                    "es",  "ss",   "fs",   "gs",    "data16", "data32", "addr32", "addr16",  "xacquire", "xrelease"}) ||
         starts_with(w, "rex");
}

struct Operand {
  std::string_view text;
  bool memory = false;
  int size = 0;  // bytes of a memory operand; 0 when objdump gives no size
};

int size_keyword(std::string_view word) {
  if (word == "BYTE") return 1;
  if (word == "WORD") return 2;
  if (word == "DWORD") return 4;
  if (word == "FWORD") return 6;
  if (word == "QWORD") return 8;
  if (word == "TBYTE") return 10;
  if (word == "XMMWORD" || word == "OWORD") return 16;
  if (word == "YMMWORD") return 32;
  if (word == "ZMMWORD") return 64;
  return 0;
}

Operand parse_operand(std::string_view text) {
  Operand op;
  op.text = trim(text);
  auto ptr = op.text.find(" PTR");
  if (ptr == std::string_view::npos) ptr = op.text.find(" BCST");
  op.memory = ptr != std::string_view::npos || op.text.find('[') != std::string_view::npos;
  if (ptr != std::string_view::npos) op.size = size_keyword(op.text.substr(0, ptr));
  return op;
}

std::vector<Operand> split_operands(std::string_view text) {
  std::vector<Operand> ops;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    char c = i < text.size() ? text[i] : ',';
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      auto piece = trim(text.substr(start, i - start));
      if (!piece.empty()) ops.push_back(parse_operand(piece));
      start = i + 1;
    }
  }
  return ops;
}

VectorWidth register_width(std::string_view operand) {
  if (starts_with(operand, "xmm")) return VectorWidth::Xmm;
  if (starts_with(operand, "ymm")) return VectorWidth::Ymm;
  if (starts_with(operand, "zmm")) return VectorWidth::Zmm;
  return VectorWidth::Scalar;
}

int width_bytes(VectorWidth w) {
  switch (w) {
    case VectorWidth::Xmm:
      return 16;
    case VectorWidth::Ymm:
      return 32;
    case VectorWidth::Zmm:
      return 64;
    default:
      return 0;
  }
}

// Splits "fmadd231pd" style names: true when the name is an arithmetic SSE/AVX
// operation we count, with its precision suffix.
void classify_flops(std::string_view mnemonic, const std::vector<Operand>& ops, InstructionClass& out) {
  std::string_view name = mnemonic;
  if (one_of(name, {"fadd", "faddp", "fiadd", "fsub", "fsubp", "fsubr", "fsubrp", "fisub", "fisubr", "fmul", "fmulp",
                    "fimul", "fdiv", "fdivp", "fdivr", "fdivrp", "fidiv", "fidivr", "fsqrt"})) {
    out.precision = Precision::X87;
    out.lanes = 1;
    out.flops = 1;
    return;
  }
  if (name.size() < 4) return;
  if (name.front() == 'v') name.remove_prefix(1);
  std::string_view suffix = name.substr(name.size() - 2);
  if (!one_of(suffix, {"ps", "pd", "ss", "sd"})) return;
  std::string_view body = name.substr(0, name.size() - 2);

  bool fma = false;
  for (auto base : {"fmaddsub"sv, "fmsubadd"sv, "fnmadd"sv, "fnmsub"sv, "fmadd"sv, "fmsub"sv}) {
    if (starts_with(body, base)) {
      std::string_view order = body.substr(base.size());
      if (order.empty() || one_of(order, {"132", "213", "231"})) fma = true;
      break;
    }
  }
  if (!fma && !one_of(body, {"add", "sub", "mul", "div", "sqrt", "min", "max", "hadd", "hsub", "addsub", "rcp", "rsqrt",
                             "rcp14", "rsqrt14", "rcp28", "rsqrt28"}))
    return;

  bool single = suffix[1] == 's';
  bool scalar = suffix[0] == 's';
  out.precision = single ? Precision::Single : Precision::Double;
  out.fma = fma;
  if (scalar) {
    out.width = VectorWidth::Scalar;
    out.lanes = 1;
  } else {
    VectorWidth w = ops.empty() ? VectorWidth::Xmm : register_width(ops.front().text);
    if (w == VectorWidth::Scalar) w = VectorWidth::Xmm;  // legacy SSE always works on xmm
    out.width = w;
    out.lanes = width_bytes(w) / (single ? 4 : 8);
  }
  for (const auto& op : ops)
    if (op.text.find("{k") != std::string_view::npos) out.masked = true;
  out.flops = out.lanes * (fma ? 2 : 1);
}

bool no_memory_access(std::string_view m) {
  return m == "lea" || starts_with(m, "nop") || starts_with(m, "prefetch") || starts_with(m, "clflush") ||
         m == "clwb" || m == "cldemote";
}

bool read_modify_write(std::string_view m) {
  return one_of(m, {"add",  "adc",  "sub",  "sbb",     "and",       "or",         "xor", "inc", "dec", "neg",
                    "not",  "shl",  "shr",  "sal",     "sar",       "rol",        "ror", "rcl", "rcr", "shld",
                    "shrd", "xchg", "xadd", "cmpxchg", "cmpxchg8b", "cmpxchg16b", "bts", "btr", "btc"});
}

bool x87_store(std::string_view m) {
  return one_of(m, {"fst", "fstp", "fist", "fistp", "fisttp", "fbstp", "fnstcw", "fstcw", "fnstsw", "fstsw", "fnstenv",
                    "fstenv", "fnsave", "fsave", "fxsave", "fxsave64"});
}

// Instructions whose first (or only) operand is memory and only read.
bool reads_first_operand(std::string_view m) {
  if (one_of(m, {"cmp",  "test",    "bt",       "mul",    "imul",     "div",     "idiv",      "jmp",
                 "call", "ldmxcsr", "vldmxcsr", "xrstor", "xrstor64", "xrstors", "xrstors64", "lgdt",
                 "lidt", "lldt",    "ltr",      "verr",   "verw",     "ptwrite"}))
    return true;
  return m.front() == 'f' && !x87_store(m);  // x87 loads and arithmetic with a memory operand
}

void add_access(InstructionClass& out, bool write, int size, int count = 1) {
  if (size == 0) out.unknown_size = true;
  if (write) {
    out.stores += count;
    out.store_bytes += size * count;
  } else {
    out.loads += count;
    out.load_bytes += size * count;
  }
}

void classify_memory(std::string_view m, const std::vector<Operand>& ops, InstructionClass& out) {
  constexpr int stack_slot = 8;
  std::vector<const Operand*> memory;
  for (const auto& op : ops)
    if (op.memory) memory.push_back(&op);

  // Implicit stack accesses.
  if (m == "push" || m == "pushf" || m == "pushfq" || m == "call" || m == "enter") add_access(out, true, stack_slot);
  if (m == "pop" || m == "popf" || m == "popfq" || m == "ret" || m == "retq" || m == "leave")
    add_access(out, false, stack_slot);
  if (memory.empty() || no_memory_access(m)) return;

  if (starts_with(m, "vgather") || starts_with(m, "vpgather") || starts_with(m, "vscatter") ||
      starts_with(m, "vpscatter")) {
    bool scatter = m.find("scatter") != std::string_view::npos;
    const Operand* vector = nullptr;
    for (const auto& op : ops)
      if (!op.memory && register_width(op.text) != VectorWidth::Scalar) {
        vector = &op;
        if (!scatter) break;  // a gather's destination is its first register
      }
    int element = memory.front()->size;
    int lanes = (vector && element > 0) ? width_bytes(register_width(vector->text)) / element : 1;
    add_access(out, scatter, element, lanes);
    return;
  }
  if (memory.size() == 2) {  // string instructions: movs writes the first, cmps reads both
    add_access(out, m != "cmps", memory[0]->size);
    add_access(out, false, memory[1]->size);
    return;
  }
  const Operand& mem = *memory.front();
  bool first = &mem == &ops.front();
  if (m == "push" || m == "call" || m == "jmp") {
    add_access(out, false, mem.size);
  } else if (m == "pop") {
    add_access(out, true, mem.size);
  } else if (read_modify_write(m)) {
    add_access(out, false, mem.size);
    add_access(out, true, mem.size);
  } else if (!first || reads_first_operand(m)) {
    add_access(out, false, mem.size);
  } else {
    add_access(out, true, mem.size);
  }
}

}  // namespace

InstructionClass classify_instruction(std::string_view text) {
  InstructionClass out;
  // objdump appends "# 4020 <g>" for rip-relative operands and "<f+0x10>" for targets.
  if (auto hash = text.find('#'); hash != std::string_view::npos) text = text.substr(0, hash);
  if (auto angle = text.find('<'); angle != std::string_view::npos) text = text.substr(0, angle);
  text = trim(text);
  if (text.empty() || text.front() == '(' || text == "...") return out;

  std::string_view rest = text;
  std::string_view mnemonic;
  while (!rest.empty()) {
    size_t end = 0;
    while (end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[end]))) ++end;
    std::string_view word = rest.substr(0, end);
    rest = trim(rest.substr(end));
    if (is_prefix_word(word) && !rest.empty()) {
      if (starts_with(word, "rep")) out.rep = true;
      continue;
    }
    mnemonic = word;
    break;
  }
  if (mnemonic.empty()) return out;
  // A prefix word alone ("rep" before a ret, "lock" on its own line) is the instruction then.
  out.mnemonic = std::string(mnemonic);
  out.parsed = true;
  auto ops = split_operands(rest);
  out.is_call = mnemonic == "call";
  classify_flops(mnemonic, ops, out);
  classify_memory(mnemonic, ops, out);
  return out;
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::Single:
      return "single";
    case Precision::Double:
      return "double";
    case Precision::X87:
      return "x87";
    default:
      return "none";
  }
}

const char* vector_width_name(VectorWidth w) {
  switch (w) {
    case VectorWidth::Xmm:
      return "xmm";
    case VectorWidth::Ymm:
      return "ymm";
    case VectorWidth::Zmm:
      return "zmm";
    default:
      return "scalar";
  }
}

}  // namespace perfcast::counts
