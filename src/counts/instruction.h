// What one x86-64 instruction does, per execution, read from its disassembly
// (objdump -d -M intel): floating-point operations by precision and vector
// width, and memory accesses with their bytes.
//
// Flops follow the definition of Intel's FP_ARITH_INST_RETIRED counters, so that
// the figures mean what hardware counters would have said: add, sub, mul, div,
// sqrt, min, max, horizontal add/sub, addsub, rcp and rsqrt count one operation
// per lane; fused multiply-add (FMA3 and FMA4, any sign variant) counts two.
// Moves, conversions, comparisons, logic (xorpd as negation), shuffles, rounding
// and dot products (dpps/dppd) count none. x87 arithmetic (fadd, fmul, fdiv,
// fsub, fsqrt and their variants) is counted apart, as extended precision.
//
// Memory accesses are counted from the instruction's semantics, not from
// callgrind's Dr/Dw: callgrind counts a read-modify-write (add [m], r) as one
// write and no read, whereas the instruction, like the LLVM IR it came from,
// loads and then stores; and it splits accesses wider than 16 bytes (ymm) into
// several events. Here one instruction's access is one load or store, with
// the operand's bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace perfcast::counts {

enum class Precision { None, Single, Double, X87 };

// Register width of a vector operation; Scalar for ss/sd and x87.
enum class VectorWidth { Scalar = 0, Xmm = 1, Ymm = 2, Zmm = 3 };
inline constexpr int vector_width_count = 4;

struct InstructionClass {
  std::string mnemonic;  // without prefixes (rep, lock, ...)
  bool rep = false;      // rep/repz/repnz: valgrind counts each iteration as one execution
  bool parsed = false;   // false for "(bad)" and lines that are no instruction

  // Floating point, per execution.
  Precision precision = Precision::None;
  VectorWidth width = VectorWidth::Scalar;
  int lanes = 0;  // elements operated on (1 for scalar)
  int flops = 0;  // lanes, times 2 for FMA
  bool fma = false;
  bool masked = false;  // AVX-512 {k} mask: lanes counted as if all were active

  // Memory, per execution.
  int loads = 0;  // memory reads (a gather counts one per lane)
  int stores = 0;
  int load_bytes = 0;
  int store_bytes = 0;
  bool unknown_size = false;  // a memory operand without a size (xsave, fxsave...): bytes not counted

  // Calls, for math function attribution.
  bool is_call = false;
};

// Classifies the instruction text of one objdump line (after the address and
// tab), e.g. "vfmadd231pd ymm0,ymm1,YMMWORD PTR [rdi+rax*8]". Never throws;
// unknown text gives parsed=false.
InstructionClass classify_instruction(std::string_view text);

const char* precision_name(Precision p);
const char* vector_width_name(VectorWidth w);  // "scalar", "xmm", "ymm", "zmm"

}  // namespace perfcast::counts
