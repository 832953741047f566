// The instructions of an ELF object, from `objdump -d -M intel`, classified;
// and where its code came from after inlining, from `llvm-symbolizer --inlining`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "counts/instruction.h"

namespace perfcast::counts {

struct ObjectCode {
  std::string path;
  std::map<uint64_t, InstructionClass> instructions;  // by file virtual address
  std::map<std::string, uint64_t> symbols;            // function labels <name> -> address
  bool has_debug_info = false;                        // a .debug_info section: inlining can be traced
};

// Parses objdump's text (-d -M intel --no-show-raw-insn -w). Lines that are not
// instructions or labels are ignored.
ObjectCode parse_objdump(std::string_view text, const std::string& path = {});

// Runs objdump on the object. Throws UserError when it cannot.
ObjectCode disassemble(const std::string& path);

// For each address, the functions whose code it is, innermost inlined first
// and the containing function last (llvm-symbolizer's frames). Addresses are
// the file's virtual addresses. Unknown addresses get an empty list.
std::map<uint64_t, std::vector<std::string>> inline_frames(const std::string& path,
                                                           const std::vector<uint64_t>& addresses);

// Parses llvm-symbolizer's plain output for the given addresses, in order.
std::map<uint64_t, std::vector<std::string>> parse_symbolizer(std::string_view text,
                                                              const std::vector<uint64_t>& addresses);

}  // namespace perfcast::counts
