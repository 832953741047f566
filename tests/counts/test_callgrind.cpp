// The callgrind reader on a hand-written profile (name and subposition
// compression, calls with relative targets, inlined-file switches, jumps), and
// the counting on it with a hand-written disassembly: each figure below is
// worked out from the two texts.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "counts/callgrind.h"
#include "counts/counts.h"
#include "support/error.h"

namespace perfcast::counts {
namespace {

// `base` is added to the addresses of /tmp/app: 0 as callgrind writes them for
// objects it has symbols for, or a load address as it writes them otherwise.
std::string profile_text(uint64_t base) {
  return fmt::format(R"(# callgrind format
version: 1
creator: hand
pid: 42
cmd: ./app --n 3
positions: instr line
events: Ir Dr Dw D1mr

ob=(1) /tmp/app
fl=(1) app.c
fn=(1) main
{:#x} 10 1 0 1
+4 * 1 1
+3 +1 2 1 1 5
cob=(2) /lib/libm.so.6
cfi=(2) s_sin.c
cfn=(2) __sin_fma
calls=3 0x5000 0
* * 300 30
+5 * 1
fi=(3) inl.h
+2 20 4
fe=(1)
-2 -10 1 0 0
jump=2 +10 *
* *
fn=(3) kernel
+20 30 5 5
* * 5 0 5
cob=(2)
cfn=(2)
calls=2 -8 *
* * 200

ob=(2)
fl=(2)
fn=(2)
0x5000 0 100 10 5
totals: 120 16 11 5
)",
                     base + 0x1000);
}

const char* app_disassembly = R"(
/tmp/app:     file format elf64-x86-64

Disassembly of section .text:

0000000000001000 <main>:
    1000:	push   rbx
    1004:	vaddpd ymm0,ymm1,YMMWORD PTR [rdi]
    1007:	call   5000 <sin@plt>
    100c:	mulsd  xmm0,xmm1
    100e:	add    QWORD PTR [rax],rbx

0000000000001020 <kernel>:
    1020:	vfmadd231ps zmm0,zmm1,zmm2
)";

const char* libm_disassembly = R"(
0000000000005000 <__sin_fma>:
    5000:	sqrtsd xmm0,xmm0
)";

CallgrindProfile parse(const std::string& text) {
  std::istringstream in(text);
  return parse_callgrind(in, "hand.out");
}

TEST(Callgrind, ParsesCompressedNamesAndSubpositions) {
  auto p = parse(profile_text(0));
  EXPECT_EQ(p.pid, 42);
  EXPECT_EQ(p.command, "./app --n 3");
  EXPECT_TRUE(p.has_data_events);
  EXPECT_EQ(p.total_executions, 120u);
  ASSERT_EQ(p.functions.size(), 3u);

  long main_index = p.find("/tmp/app", "main");
  ASSERT_GE(main_index, 0);
  const auto& main = p.functions[main_index];
  std::map<uint64_t, std::array<uint64_t, 3>> expected = {
      {0x1000, {1, 0, 1}}, {0x1004, {1, 1, 0}}, {0x1007, {2, 1, 1}}, {0x100c, {2, 0, 0}}, {0x100e, {4, 0, 0}}};
  ASSERT_EQ(main.instructions.size(), expected.size());
  for (const auto& [address, cost] : expected) {
    SCOPED_TRACE(address);
    ASSERT_TRUE(main.instructions.count(address));
    EXPECT_EQ(main.instructions.at(address).executions, cost[0]);
    EXPECT_EQ(main.instructions.at(address).data_reads, cost[1]);
    EXPECT_EQ(main.instructions.at(address).data_writes, cost[2]);
  }
  ASSERT_EQ(main.calls.size(), 1u);
  EXPECT_EQ(main.calls[0].call_site, 0x1007u);  // the call line does not move the position
  EXPECT_EQ(main.calls[0].count, 3u);
  EXPECT_EQ(main.calls[0].inclusive_executions, 300u);
  EXPECT_EQ(p.functions[main.calls[0].callee].name, "__sin_fma");
  EXPECT_EQ(p.functions[main.calls[0].callee].object, "/lib/libm.so.6");

  const auto& kernel = p.functions[p.find("/tmp/app", "kernel")];
  ASSERT_EQ(kernel.instructions.size(), 1u);
  EXPECT_EQ(kernel.instructions.at(0x1020).executions, 10u);  // 0x100c + 20, twice
  EXPECT_EQ(kernel.instructions.at(0x1020).data_reads, 5u);
  EXPECT_EQ(kernel.instructions.at(0x1020).data_writes, 5u);
  ASSERT_EQ(kernel.calls.size(), 1u);
  EXPECT_EQ(kernel.calls[0].call_site, 0x1020u);
  EXPECT_EQ(kernel.calls[0].count, 2u);

  const auto& sin = p.functions[p.find("/lib/libm.so.6", "__sin_fma")];
  EXPECT_EQ(sin.instructions.at(0x5000).executions, 100u);
}

// A recursion's deeper levels (`kernel'2`, callgrind's --separate-recs) are the
// same function at the same addresses: one function, their costs added.
TEST(Callgrind, RecursionLevelsAreOneFunction) {
  auto p = parse(R"(# callgrind format
version: 1
positions: instr line
events: Ir

ob=(1) /tmp/app
fl=(1) app.c
fn=(1) kernel
0x1020 30 5
cfn=(2) kernel'2
calls=1 0x1020 30
* * 40
fn=(2)
0x1020 30 7
cfn=(2)
calls=3 0x1020 30
* * 21
totals: 12
)");
  ASSERT_EQ(p.functions.size(), 1u);
  const auto& kernel = p.functions[p.find("/tmp/app", "kernel")];
  EXPECT_EQ(kernel.instructions.at(0x1020).executions, 12u);
  ASSERT_EQ(kernel.calls.size(), 2u);
  EXPECT_EQ(p.functions[kernel.calls[0].callee].name, "kernel");
}

TEST(Callgrind, RejectsProfilesWithoutInstructionPositions) {
  EXPECT_THROW(parse("positions: line\nevents: Ir\nfn=(1) main\n10 5\n"), UserError);
  EXPECT_THROW(parse("positions: instr\nevents: Ir\nfn=(7)\n0x10 5\n"), UserError);  // (7) never defined
  EXPECT_THROW(parse("positions: instr\nevents: Ir\nfn=main\nbogus line\n"), UserError);
}

CodeCache hand_cache() {
  CodeCache cache;
  cache.set_loader([](const std::string& path) {
    if (path == "/tmp/app") {
      auto code = parse_objdump(app_disassembly, path);
      return code;
    }
    if (path == "/lib/libm.so.6") return parse_objdump(libm_disassembly, path);
    throw UserError("no such object");
  });
  return cache;
}

void expect_hand_counts(const ProfileCounts& c) {
  const auto* main = c.find("main");
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->instructions, 10);
  EXPECT_EQ(main->flops[1][static_cast<int>(VectorWidth::Ymm)], 4);     // vaddpd ymm once
  EXPECT_EQ(main->flops[1][static_cast<int>(VectorWidth::Scalar)], 2);  // mulsd twice
  EXPECT_EQ(main->flops_double(), 6);
  EXPECT_EQ(main->loads, 5);         // vaddpd once, add [rax] 4 times
  EXPECT_EQ(main->load_bytes, 64);   // 32 + 4 * 8
  EXPECT_EQ(main->stores, 7);        // push once, call twice, add [rax] 4 times
  EXPECT_EQ(main->store_bytes, 56);  // 8 + 2 * 8 + 4 * 8
  EXPECT_EQ(main->callgrind_dr, 2);
  EXPECT_EQ(main->callgrind_dw, 2);
  EXPECT_EQ(main->math_calls.at("sin"), 3);
  EXPECT_EQ(main->unclassified_instructions, 0);

  const auto* kernel = c.find("kernel");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->flops_single_simd(), 320);  // 16 lanes * 2 (FMA) * 10
  EXPECT_EQ(kernel->fma_instructions, 10);
  EXPECT_EQ(kernel->math_calls.at("sin"), 2);

  const auto* sin = c.find("__sin_fma");
  ASSERT_NE(sin, nullptr);
  EXPECT_EQ(sin->calls, 5);
  EXPECT_EQ(sin->flops_double_scalar(), 100);
  EXPECT_TRUE(sin->math_calls.empty());

  EXPECT_EQ(c.total.instructions, 120);
  EXPECT_EQ(c.total.flops_total(), 6 + 320 + 100);
  EXPECT_EQ(c.total.math_calls.at("sin"), 5);
  EXPECT_EQ(c.main_object, "/tmp/app");
}

TEST(Counts, HandProfileWithHandDisassembly) {
  auto cache = hand_cache();
  auto c = count(parse(profile_text(0)), cache);
  expect_hand_counts(c);
  for (const auto& m : c.objects) EXPECT_EQ(m.bias, 0) << m.object;
}

TEST(Counts, AbsoluteAddressesAreMappedToTheObject) {
  // As if /tmp/app (a PIE) were loaded at 0x108000 and callgrind wrote absolute addresses.
  auto cache = hand_cache();
  auto c = count(parse(profile_text(0x108000)), cache);
  expect_hand_counts(c);
  for (const auto& m : c.objects) {
    EXPECT_EQ(m.bias, m.object == "/tmp/app" ? 0x108000 : 0) << m.object;
    EXPECT_EQ(m.unmatched_addresses, 0) << m.object;
  }
}

TEST(Counts, SubtractingARunLeavesTheDifference) {
  auto cache = hand_cache();
  auto a = count(parse(profile_text(0)), cache);
  auto d = subtract(a, a);
  for (const auto& f : d.functions) {
    EXPECT_EQ(f.instructions, 0) << f.name;
    EXPECT_EQ(f.flops_total(), 0) << f.name;
    EXPECT_TRUE(f.math_calls.empty()) << f.name;
  }
  EXPECT_EQ(d.total.load_bytes, 0);
}

TEST(Counts, MathFunctionNames) {
  EXPECT_EQ(math_function("__sin_fma"), "sin");
  EXPECT_EQ(math_function("__ieee754_acos_fma"), "acos");
  EXPECT_EQ(math_function("__acos_finite@GLIBC_2.15"), "acos");
  EXPECT_EQ(math_function("expf"), "expf");
  EXPECT_EQ(math_function("__exp1_avx2"), "");  // an internal helper, not a call the program made
  EXPECT_EQ(math_function("lround"), "lround");
  EXPECT_EQ(math_function("main"), "");
  EXPECT_EQ(math_function("sinister"), "");
}

}  // namespace
}  // namespace perfcast::counts

// A test's or probe's calls are the passes of the loops polling with it:
// labelled timing-dependent through every entry point, C, profiling and
// Fortran; other MPI calls and the program's own functions are not.
TEST(Counts, TestAndProbeCallsAreLabelledTimingDependent) {
  for (const char* name : {"MPI_Test", "PMPI_Testall", "mpi_testsome_", "pmpi_iprobe__", "MPI_Improbe", "MPI_TESTANY"})
    EXPECT_TRUE(perfcast::counts::is_polling_call(name)) << name;
  for (const char* name : {"MPI_Wait", "mpi_send_", "MPI_Testing_helper", "test", "main"})
    EXPECT_FALSE(perfcast::counts::is_polling_call(name)) << name;
  perfcast::counts::FunctionCounts test;
  test.name = "PMPI_Test";
  test.calls = 3221;
  EXPECT_TRUE(perfcast::counts::to_json(test).value("timing_dependent", false));
  perfcast::counts::FunctionCounts send;
  send.name = "PMPI_Send";
  EXPECT_FALSE(perfcast::counts::to_json(send).contains("timing_dependent"));
}
