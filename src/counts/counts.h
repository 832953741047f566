// Exact dynamic counts per function: a callgrind profile (executions of every
// instruction) joined with the classified disassembly of each object
// (instruction.h). The ground truth for perfcast's static counts where
// hardware counters are unavailable.
//
// Attribution: every executed instruction counts for the function callgrind
// places it in (its symbol, so code inlined into it is included), and, when the
// object has debug info, also for every source function it was inlined from
// (llvm-symbolizer's inline frames): a `static` kernel inlined into main gets
// its own row, and main's row still includes it. Rows therefore do not sum to
// the total. Costs of real calls stay with the callee (exclusive counts).
//
// Call instructions execute as often as their call records say: callgrind
// writes the cost of the PLT stub a call goes through at the call's address.
// Code callgrind places in no object ("???": PLT stubs it has no symbols for)
// stays unclassified.
//
// Addresses: callgrind writes addresses relative to each object's load bias
// when valgrind could read the object's symbols; otherwise absolute. Each
// object's bias is found by checking that every executed address falls on an
// instruction boundary of the disassembly (bias 0 first, then the offset of
// each profiled function's first executed instruction from its symbol).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "counts/callgrind.h"
#include "counts/disassembly.h"

namespace perfcast::counts {

// Signed, so that the difference of two runs is a count too.
struct FunctionCounts {
  std::string object;
  std::string name;
  bool inlined_only = false;  // known only from inline frames: no out-of-line copy executed
  int64_t calls = 0;          // times called (callgrind's calls= records); 0 for inlined-only code
  int64_t instructions = 0;   // executed (Ir; rep-prefixed instructions count each iteration)
  // Flops by precision (0 single, 1 double) and VectorWidth.
  std::array<std::array<int64_t, vector_width_count>, 2> flops{};
  int64_t flops_x87 = 0;
  int64_t fma_instructions = 0;
  int64_t loads = 0;
  int64_t stores = 0;
  int64_t load_bytes = 0;
  int64_t store_bytes = 0;
  int64_t callgrind_dr = 0;  // callgrind's own Dr/Dw: a read-modify-write is one Dw and no Dr there
  int64_t callgrind_dw = 0;
  std::map<std::string, int64_t> math_calls;  // normalised callee name -> calls made from here
  int64_t unclassified_instructions = 0;      // executed addresses missing from the disassembly
  int64_t unknown_size_accesses = 0;          // accesses whose bytes are not counted (xsave...)
  int64_t masked_vector_instructions = 0;     // AVX-512 masked: lanes counted as all active
  // PLT stub instructions callgrind folds into call sites (--skip-plt=yes):
  // not in `instructions` nor in the accesses, which count the function's own code.
  int64_t skipped_stub_instructions = 0;

  int64_t flops_single() const;
  int64_t flops_double() const;
  int64_t flops_single_scalar() const { return flops[0][0]; }
  int64_t flops_double_scalar() const { return flops[1][0]; }
  int64_t flops_single_simd() const { return flops_single() - flops[0][0]; }
  int64_t flops_double_simd() const { return flops_double() - flops[1][0]; }
  int64_t flops_total() const { return flops_single() + flops_double() + flops_x87; }
  int64_t math_calls_total() const;

  FunctionCounts& operator-=(const FunctionCounts& other);  // counts only; names kept
};

struct ObjectMapping {
  std::string object;
  int64_t bias = 0;  // subtracted from callgrind's addresses
  bool disassembled = false;
  int64_t unmatched_addresses = 0;  // executed addresses not on an instruction boundary
};

struct ProfileCounts {
  std::string profile;  // callgrind file
  std::string command;
  int rank = 0;
  std::string main_object;                // the object holding main(), or empty
  std::vector<FunctionCounts> functions;  // every function with executed code or calls
  FunctionCounts total;                   // every instruction once
  std::vector<ObjectMapping> objects;

  const FunctionCounts* find(const std::string& name) const;  // first row with this name
};

// Disassemblies shared across profiles (ranks, runs), each object read once.
class CodeCache {
 public:
  // Null when the object cannot be disassembled (deleted, not ELF, "???").
  const ObjectCode* get(const std::string& path);
  const std::map<uint64_t, std::vector<std::string>>& frames(const std::string& path,
                                                             const std::vector<uint64_t>& addresses);
  using Loader = std::function<ObjectCode(const std::string&)>;
  void set_loader(Loader loader) { loader_ = std::move(loader); }  // tests: disassembly from text

 private:
  std::map<std::string, std::unique_ptr<ObjectCode>> code_;
  std::map<std::string, std::map<uint64_t, std::vector<std::string>>> frames_;
  Loader loader_;
};

struct CountOptions {
  bool inlining = true;  // attribute inlined code to its source functions too (needs debug info)
};

ProfileCounts count(const CallgrindProfile& profile, CodeCache& cache, const CountOptions& options = {});

// a - b, row by row (matched by object and name); rows of b alone appear negated.
ProfileCounts subtract(const ProfileCounts& a, const ProfileCounts& b);

// Math library names reduced to their C name: "__sin_fma" -> "sin", "__acos_finite@GLIBC_2.15" -> "acos";
// empty when the name is no math function.
std::string math_function(const std::string& symbol);

nlohmann::json to_json(const FunctionCounts& counts);

// Whether `function` is an entry point of an MPI test or probe (MPI_Test,
// PMPI_Testall, mpi_iprobe_, ...): its calls are the passes of the loops that
// poll with it, as many as the messages took to arrive in this run, timing
// and not a count of the input (`timing_dependent` in the JSON).
bool is_polling_call(const std::string& function);
nlohmann::json to_json(const ProfileCounts& counts);

}  // namespace perfcast::counts
