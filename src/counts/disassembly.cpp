#include "counts/disassembly.h"

#include <fmt/format.h>

#include <charconv>

#include "measure/launcher.h"
#include "support/error.h"
#include "support/toolchain.h"

namespace perfcast::counts {

namespace {

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string tail(const std::string& text, size_t n = 800) {
  return text.size() <= n ? text : "..." + text.substr(text.size() - n);
}

}  // namespace

ObjectCode parse_objdump(std::string_view text, const std::string& path) {
  ObjectCode code;
  code.path = path;
  for (std::string_view line : lines_of(text)) {
    if (line.empty()) continue;
    if (is_hex(line.front())) {  // "0000000000001130 <modify>:"
      auto open = line.find(" <");
      if (open == std::string_view::npos || line.size() < open + 4 || line.substr(line.size() - 2) != ">:") continue;
      uint64_t address = 0;
      if (std::from_chars(line.data(), line.data() + open, address, 16).ec != std::errc()) continue;
      code.symbols.emplace(std::string(line.substr(open + 2, line.size() - open - 4)), address);
      continue;
    }
    // "    1130:\ttest   rdi,rdi"
    size_t i = 0;
    while (i < line.size() && line[i] == ' ') ++i;
    size_t start = i;
    while (i < line.size() && is_hex(line[i])) ++i;
    if (i == start || i + 1 >= line.size() || line[i] != ':' || line[i + 1] != '\t') continue;
    uint64_t address = 0;
    if (std::from_chars(line.data() + start, line.data() + i, address, 16).ec != std::errc()) continue;
    code.instructions[address] = classify_instruction(line.substr(i + 2));
  }
  return code;
}

ObjectCode disassemble(const std::string& path) {
  auto run = measure::run_process({"objdump", "-d", "-C", "-M", "intel", "--no-show-raw-insn", "-w", path});
  if (run.exit_code != 0)
    throw UserError(fmt::format("objdump could not disassemble '{}': {}", path, tail(run.stderr_text)), {},
                    "install binutils, and check that the object still exists");
  ObjectCode code = parse_objdump(run.stdout_text, path);
  auto headers = measure::run_process({"objdump", "-h", path});
  code.has_debug_info = headers.exit_code == 0 && headers.stdout_text.find(" .debug_info ") != std::string::npos;
  return code;
}

std::map<uint64_t, std::vector<std::string>> parse_symbolizer(std::string_view text,
                                                              const std::vector<uint64_t>& addresses) {
  std::map<uint64_t, std::vector<std::string>> frames;
  size_t next = 0;
  std::vector<std::string> record;
  int line_in_record = 0;
  auto flush = [&] {
    if (next < addresses.size()) frames[addresses[next]] = record;
    ++next;
    record.clear();
    line_in_record = 0;
  };
  for (std::string_view line : lines_of(text)) {
    if (line.empty()) {
      if (line_in_record > 0) flush();
      continue;
    }
    // Frames are (function, file:line:column) pairs; "??" is an unknown function.
    if (line_in_record % 2 == 0 && line != "??") record.emplace_back(line);
    ++line_in_record;
  }
  if (line_in_record > 0) flush();
  return frames;
}

std::map<uint64_t, std::vector<std::string>> inline_frames(const std::string& path,
                                                           const std::vector<uint64_t>& addresses) {
  std::map<uint64_t, std::vector<std::string>> frames;
  constexpr size_t chunk = 4000;  // addresses go on the command line: keep it well under ARG_MAX
  for (size_t from = 0; from < addresses.size(); from += chunk) {
    std::vector<uint64_t> part(addresses.begin() + from, addresses.begin() + std::min(addresses.size(), from + chunk));
    std::vector<std::string> argv = {toolchain::kLlvmSymbolizer, "--inlining", "--functions=linkage", "--obj=" + path};
    for (auto a : part) argv.push_back(fmt::format("0x{:x}", a));
    auto run = measure::run_process(argv);
    if (run.exit_code != 0)
      throw UserError(fmt::format("{} failed on '{}': {}", toolchain::kLlvmSymbolizer, path, tail(run.stderr_text)),
                      {}, fmt::format("install {}, or name functions that are not inlined", toolchain::kLlvmPackage));
    frames.merge(parse_symbolizer(run.stdout_text, part));
  }
  return frames;
}

}  // namespace perfcast::counts
