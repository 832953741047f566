// The classification of one disassembled instruction: flops (precision, lanes,
// FMA), memory reads and writes with their bytes. Lines as objdump -M intel prints them.
#include <gtest/gtest.h>

#include "counts/instruction.h"

namespace perfcast::counts {
namespace {

struct Flops {
  const char* text;
  Precision precision;
  VectorWidth width;
  int lanes;
  int flops;
};

TEST(Instruction, FlopsByPrecisionWidthAndFma) {
  const Flops cases[] = {
      {"addsd  xmm1,QWORD PTR [rdx+rcx*8]", Precision::Double, VectorWidth::Scalar, 1, 1},
      {"mulsd  xmm1,xmm0", Precision::Double, VectorWidth::Scalar, 1, 1},
      {"vaddss xmm0,xmm1,xmm2", Precision::Single, VectorWidth::Scalar, 1, 1},
      {"sqrtsd xmm0,xmm0", Precision::Double, VectorWidth::Scalar, 1, 1},
      {"divpd  xmm0,xmm1", Precision::Double, VectorWidth::Xmm, 2, 2},
      {"mulps  xmm0,XMMWORD PTR [rax]", Precision::Single, VectorWidth::Xmm, 4, 4},
      {"vaddpd ymm0,ymm1,ymm2", Precision::Double, VectorWidth::Ymm, 4, 4},
      {"vsubps ymm0,ymm1,YMMWORD PTR [rdi]", Precision::Single, VectorWidth::Ymm, 8, 8},
      {"vmulpd zmm0,zmm1,zmm2", Precision::Double, VectorWidth::Zmm, 8, 8},
      {"vmaxps zmm0,zmm1,zmm2", Precision::Single, VectorWidth::Zmm, 16, 16},
      {"vfmadd213pd ymm2,ymm1,YMMWORD PTR [rdx+rdi*8]", Precision::Double, VectorWidth::Ymm, 4, 8},
      {"vfmadd231sd xmm0,xmm1,QWORD PTR [rdx+rsi*8]", Precision::Double, VectorWidth::Scalar, 1, 2},
      {"vfnmsub132ps xmm0,xmm1,xmm2", Precision::Single, VectorWidth::Xmm, 4, 8},
      {"vfmaddsub231pd ymm0,ymm1,ymm2", Precision::Double, VectorWidth::Ymm, 4, 8},
      {"vfmaddpd xmm0,xmm1,xmm2,xmm3", Precision::Double, VectorWidth::Xmm, 2, 4},  // FMA4
      {"haddpd xmm0,xmm1", Precision::Double, VectorWidth::Xmm, 2, 2},
      {"vrcp14ps zmm0,zmm1", Precision::Single, VectorWidth::Zmm, 16, 16},
      {"rsqrtss xmm0,xmm1", Precision::Single, VectorWidth::Scalar, 1, 1},
      {"fmulp  st(1),st", Precision::X87, VectorWidth::Scalar, 1, 1},
      {"fadd   QWORD PTR [rsp+0x8]", Precision::X87, VectorWidth::Scalar, 1, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto k = classify_instruction(c.text);
    EXPECT_TRUE(k.parsed);
    EXPECT_EQ(k.precision, c.precision);
    EXPECT_EQ(k.width, c.width);
    EXPECT_EQ(k.lanes, c.lanes);
    EXPECT_EQ(k.flops, c.flops);
  }
}

TEST(Instruction, NoFlopsForMovesConversionsComparisonsAndLogic) {
  for (const char* text :
       {"movsd  xmm1,QWORD PTR [rsi+rcx*8]", "vmovupd ymm2,YMMWORD PTR [rsi+rdi*8]", "cvtsi2sd xmm0,eax",
        "ucomisd xmm0,xmm1", "vxorpd xmm0,xmm0,xmm0", "vcmppd ymm0,ymm1,ymm2,0x1", "vbroadcastsd ymm1,xmm0",
        "roundsd xmm0,xmm0,0x9", "dppd   xmm0,xmm1,0x31", "paddd  xmm0,xmm1", "vpaddq ymm0,ymm1,ymm2", "add    rax,0x1",
        "mulx   rax,rbx,rcx", "vaddsubx ymm0", "minsx xmm0"}) {
    SCOPED_TRACE(text);
    auto k = classify_instruction(text);
    EXPECT_EQ(k.flops, 0);
    EXPECT_EQ(k.precision, Precision::None);
  }
}

TEST(Instruction, MaskedAvx512IsFlagged) {
  auto k = classify_instruction("vaddpd zmm0{k1}{z},zmm1,zmm2");
  EXPECT_EQ(k.flops, 8);
  EXPECT_TRUE(k.masked);
}

struct Memory {
  const char* text;
  int loads, stores, load_bytes, store_bytes;
};

TEST(Instruction, MemoryAccessesAndBytes) {
  const Memory cases[] = {
      {"mov    rax,QWORD PTR [rip+0x5f75]        # 7f80 <__gmon_start__@Base>", 1, 0, 8, 0},
      {"mov    DWORD PTR [rdi],eax", 0, 1, 0, 4},
      {"vmovupd YMMWORD PTR [rdx+rdi*8+0x20],ymm3", 0, 1, 0, 32},
      {"vfmadd213pd ymm2,ymm1,YMMWORD PTR [rdx+rdi*8]", 1, 0, 32, 0},
      {"movss  DWORD PTR [rdx+rcx*4],xmm1", 0, 1, 0, 4},
      {"movaps XMMWORD PTR [rsp+0x10],xmm0", 0, 1, 0, 16},
      {"vmovups zmm0,ZMMWORD PTR [rax]", 1, 0, 64, 0},
      {"add    QWORD PTR [rip+0x2ed9],rax        # 4020 <g>", 1, 1, 8, 8},  // read-modify-write
      {"lock xadd DWORD PTR [rdi],eax", 1, 1, 4, 4},
      {"inc    DWORD PTR [rax]", 1, 1, 4, 4},
      {"cmp    QWORD PTR [rdi+0x8],0x0", 1, 0, 8, 0},
      {"test   BYTE PTR [rdi],0x1", 1, 0, 1, 0},
      {"imul   eax,DWORD PTR [rsi],0x3", 1, 0, 4, 0},
      {"sete   BYTE PTR [rsp+0x7]", 0, 1, 0, 1},
      {"lea    rax,[rcx-0x10]", 0, 0, 0, 0},
      {"nop    DWORD PTR [rax+rax*1+0x0]", 0, 0, 0, 0},
      {"data16 data16 cs nop WORD PTR [rax+rax*1+0x0]", 0, 0, 0, 0},
      {"prefetcht0 BYTE PTR [rax]", 0, 0, 0, 0},
      {"push   rbx", 0, 1, 0, 8},
      {"pop    rbx", 1, 0, 8, 0},
      {"push   QWORD PTR [rip+0x5fca]        # 7ff0 <_GLOBAL_OFFSET_TABLE_+0x8>", 1, 1, 8, 8},
      {"call   1070 <sin@plt>", 0, 1, 0, 8},
      {"call   QWORD PTR [rip+0x2fe2]", 1, 1, 8, 8},
      {"jmp    QWORD PTR [rip+0x5fca]        # 8000 <MPI_Barrier@Base>", 1, 0, 8, 0},
      {"ret", 1, 0, 8, 0},
      {"repz ret", 1, 0, 8, 0},
      {"leave", 1, 0, 8, 0},
      {"rep movs BYTE PTR es:[rdi],BYTE PTR ds:[rsi]", 1, 1, 1, 1},
      {"rep stos QWORD PTR es:[rdi],rax", 0, 1, 0, 8},
      {"repz cmps BYTE PTR ds:[rsi],BYTE PTR es:[rdi]", 2, 0, 2, 0},
      {"fld    QWORD PTR [rsp]", 1, 0, 8, 0},
      {"fstp   TBYTE PTR [rsp]", 0, 1, 0, 10},
      {"vextractf128 XMMWORD PTR [rdi],ymm0,0x1", 0, 1, 0, 16},
      {"vpextrq QWORD PTR [rdi],xmm0,0x1", 0, 1, 0, 8},
      {"vmaskmovpd YMMWORD PTR [rdi],ymm1,ymm0", 0, 1, 0, 32},
      {"vgatherdpd ymm0,QWORD PTR [rax+xmm1*8],ymm2", 4, 0, 32, 0},
      {"xchg   QWORD PTR [rdi],rax", 1, 1, 8, 8},
      {"mov    rax,QWORD PTR fs:0x28", 1, 0, 8, 0},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    auto k = classify_instruction(c.text);
    EXPECT_TRUE(k.parsed);
    EXPECT_EQ(k.loads, c.loads);
    EXPECT_EQ(k.stores, c.stores);
    EXPECT_EQ(k.load_bytes, c.load_bytes);
    EXPECT_EQ(k.store_bytes, c.store_bytes);
  }
}

TEST(Instruction, UnsizedAccessesAreFlagged) {
  auto k = classify_instruction("xsavec [rsp+0x40]");
  EXPECT_EQ(k.stores, 1);
  EXPECT_EQ(k.store_bytes, 0);
  EXPECT_TRUE(k.unknown_size);
}

TEST(Instruction, PrefixesAreNotMnemonics) {
  EXPECT_EQ(classify_instruction("rep stos QWORD PTR es:[rdi],rax").mnemonic, "stos");
  EXPECT_TRUE(classify_instruction("rep stos QWORD PTR es:[rdi],rax").rep);
  EXPECT_EQ(classify_instruction("notrack jmp rax").mnemonic, "jmp");
  EXPECT_EQ(classify_instruction("lock cmpxchg DWORD PTR [rdi],esi").mnemonic, "cmpxchg");
  EXPECT_FALSE(classify_instruction("(bad)").parsed);
}

}  // namespace
}  // namespace perfcast::counts
