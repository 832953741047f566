// Reads the skeleton's ELF symbol tables directly (<elf.h>): no dependency on
// binutils being installed where perfcast runs.
#include <cxxabi.h>
#include <elf.h>
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include "sim/skeleton/live_job.h"
#include "support/error.h"

namespace perfcast::sim::skeleton {

namespace {

std::string demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return name;
  std::string out = d;
  std::free(d);
  return out;
}

// Sections whose objects every rank would share. .data.rel.ro is writable only
// while the loader relocates it; .got, .init_array and friends belong to the loader.
bool shared_section(const std::string& name) {
  if (name.rfind(".data.rel.ro", 0) == 0) return false;
  for (const char* prefix : {".data", ".bss", ".tdata", ".tbss"}) {
    std::size_t n = std::strlen(prefix);
    if (name.compare(0, n, prefix) == 0 && (name.size() == n || name[n] == '.')) return true;
  }
  return false;
}

// Written by the C runtime and the compiler, not by the skeleton's code.
bool runtime_symbol(const std::string& name) {
  static const std::set<std::string> known = {
      "completed.0", "completed.1", "__dso_handle", "__TMC_END__",
      "_edata",      "_end",        "__bss_start",  "DW.ref.__gxx_personality_v0"};
  return known.count(name) > 0 || name.rfind("DW.ref.", 0) == 0;
}

}  // namespace

std::vector<std::string> shared_writable_globals(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto bad = [&](const char* why) {
    return UserError(fmt::format("'{}' is not a skeleton shared object: {}", path, why), {},
                     "build it with `perfcast cc skel.c -o skel`");
  };
  if (image.size() < sizeof(Elf64_Ehdr) || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0)
    throw bad("not an ELF file");
  Elf64_Ehdr eh;
  std::memcpy(&eh, image.data(), sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) throw bad("not a 64-bit ELF file");
  if (eh.e_type != ET_DYN) throw bad("not a shared object");
  if (eh.e_shoff == 0 || eh.e_shoff + std::size_t{eh.e_shnum} * sizeof(Elf64_Shdr) > image.size()) {
    throw bad("truncated section table");
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  std::memcpy(sections.data(), image.data() + eh.e_shoff, sections.size() * sizeof(Elf64_Shdr));
  auto in_image = [&](std::size_t off, std::size_t size) { return off <= image.size() && size <= image.size() - off; };
  auto string_at = [&](const Elf64_Shdr& table, std::size_t offset) -> std::string {
    if (!in_image(table.sh_offset, table.sh_size) || offset >= table.sh_size) return {};
    const char* s = image.data() + table.sh_offset + offset;
    return std::string(s, strnlen(s, table.sh_size - offset));
  };
  if (eh.e_shstrndx >= sections.size()) throw bad("no section names");
  const Elf64_Shdr& names = sections[eh.e_shstrndx];

  std::vector<std::string> out;
  std::set<std::string> seen;
  // .symtab has the skeleton's static (file-local) globals too; .dynsym survives strip.
  for (Elf64_Word type : {SHT_SYMTAB, SHT_DYNSYM}) {
    for (const auto& table : sections) {
      if (table.sh_type != type || table.sh_link >= sections.size()) continue;
      if (!in_image(table.sh_offset, table.sh_size) || table.sh_entsize != sizeof(Elf64_Sym)) continue;
      const Elf64_Shdr& strings = sections[table.sh_link];
      std::size_t count = table.sh_size / sizeof(Elf64_Sym);
      for (std::size_t i = 1; i < count; ++i) {
        Elf64_Sym sym;
        std::memcpy(&sym, image.data() + table.sh_offset + i * sizeof sym, sizeof sym);
        int kind = ELF64_ST_TYPE(sym.st_info);
        if ((kind != STT_OBJECT && kind != STT_TLS) || sym.st_shndx == SHN_UNDEF || sym.st_shndx >= sections.size()) {
          continue;
        }
        const Elf64_Shdr& where = sections[sym.st_shndx];
        std::string section = string_at(names, where.sh_name);
        if (!(where.sh_flags & SHF_WRITE) || !shared_section(section)) continue;
        std::string name = string_at(strings, sym.st_name);
        if (name.empty() || runtime_symbol(name) || !seen.insert(name).second) continue;
        out.push_back(fmt::format("{} ({}, {} bytes)", demangle(name), section, sym.st_size));
      }
    }
  }
  return out;
}

}  // namespace perfcast::sim::skeleton
