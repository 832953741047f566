// What the driver reads from a unit's bitcode (bitcode_facts.h). Compiled with
// LLVM's settings (-fno-rtti); exceptions only from our own frames.
#include "analyze/bitcode_facts.h"

#include <fmt/format.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

#include "analyze/build_command.h"
#include "support/error.h"

namespace perfcast::analyze::detail {

BitcodeFacts read_bitcode_facts(const std::filesystem::path& file) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> m = llvm::parseIRFile(file.string(), diag, context);
  if (!m) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    diag.print("perfcast", os);
    throw UserError(fmt::format("{}: not LLVM bitcode: {}", file.string(), os.str()), {},
                    "give the .perfcast.bc files `perfcast mpicc -c` writes beside the objects");
  }
  BitcodeFacts facts;
  facts.source = m->getSourceFileName();
  const llvm::Function* main = m->getFunction("main");
  facts.defines_main = main && !main->isDeclaration();
  // -grecord-command-line keeps the compiler's arguments in the compile unit's flags.
  for (const llvm::DICompileUnit* cu : m->debug_compile_units()) {
    std::string flags = cu->getFlags().str();
    if (flags.empty()) continue;
    std::vector<std::string> words;
    try {
      words = split_shell_words(flags);
    } catch (const UserError&) {
      continue;  // clang quotes what it records; an unreadable record is no level
    }
    for (const auto& w : words)
      if (w.rfind("-O", 0) == 0 && is_opt_level(w.substr(2))) facts.opt_level = w.substr(2);
  }
  return facts;
}

}  // namespace perfcast::analyze::detail
