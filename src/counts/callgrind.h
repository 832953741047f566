// Reading callgrind's output (format version 1, valgrind's "Callgrind Format
// Specification"): per function, the cost of each instruction address, and the
// calls between functions.
//
// The profile must have been written with --dump-instr=yes (an "instr"
// position): counts are attributed to instructions, which the disassembly then
// classifies. Supported: name compression "(id) name" / "(id)" for ob, fl, fi,
// fe, fn and their c-forms; subposition compression "+N", "-N", "*"; hex and
// decimal positions; cost lines with fewer events than declared (the rest are
// zero); several parts in one file (summed); jump=/jcnd= records (skipped).
//
// Relative positions follow callgrind's writer (callgrind/dump.c): the target of
// calls=/jump= and the call-site line after calls= are relative to the last
// plain cost line, and do not move it.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace perfcast::counts {

struct InstructionCost {
  uint64_t executions = 0;   // Ir: one per execution (per iteration for rep-prefixed instructions)
  uint64_t data_reads = 0;   // Dr (present with --cache-sim=yes)
  uint64_t data_writes = 0;  // Dw
};

struct CallRecord {
  uint64_t call_site = 0;  // address of the call instruction in the caller
  size_t callee = 0;       // index into CallgrindProfile::functions
  uint64_t count = 0;
  uint64_t inclusive_executions = 0;  // Ir spent in the callee and below, for these calls
};

struct ProfiledFunction {
  std::string object;                                // ob= (path of the ELF object), "???" if unknown
  std::string name;                                  // fn=
  std::map<uint64_t, InstructionCost> instructions;  // by address as written
  std::vector<CallRecord> calls;
};

struct CallgrindProfile {
  std::string source;   // file name, for messages
  std::string command;  // cmd:
  long pid = 0;
  std::vector<std::string> events;
  bool has_data_events = false;  // Dr and Dw present
  std::vector<ProfiledFunction> functions;
  uint64_t total_executions = 0;  // sum of self Ir over all functions

  // Index of (object, name), or -1.
  long find(const std::string& object, const std::string& name) const;
};

// Throws UserError (with file and line) on malformed input or a profile without
// instruction positions.
CallgrindProfile parse_callgrind(std::istream& in, const std::string& source_name = "<callgrind>");
CallgrindProfile read_callgrind_file(const std::string& path);

}  // namespace perfcast::counts
