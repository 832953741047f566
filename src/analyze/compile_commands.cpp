// Reading compile_commands.json (compile_commands.h).
#include "analyze/compile_commands.h"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "analyze/build_command.h"
#include "support/error.h"

namespace perfcast::analyze {

namespace fs = std::filesystem;

namespace {

bool matches(const std::string& glob, const std::string& text) { return fnmatch(glob.c_str(), text.c_str(), 0) == 0; }

// The line of byte `offset` (1-based), for a parse error's position.
int line_of(const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace

BuildUnits read_compile_commands(const fs::path& path, const std::vector<std::string>& exclude) {
  BuildUnits out;
  std::error_code ec;
  out.file = fs::is_directory(path, ec) ? path / "compile_commands.json" : path;
  const std::string file = out.file.string();
  std::ifstream in(out.file);
  if (!in)
    throw UserError(fmt::format("cannot read '{}'", file), {},
                    fs::is_directory(path, ec) ? "configure the build with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON, or "
                                                 "record it with `bear -- make`"
                                               : "give the compile_commands.json or the build directory holding it");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json entries;
  try {
    entries = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw UserError(fmt::format("not valid JSON: {}", e.what()),
                    {file, line_of(text.str(), e.byte ? e.byte - 1 : 0), {}});
  }
  if (!entries.is_array())
    throw UserError("expected an array of compile commands (objects with directory, file and command or arguments)",
                    {file, std::nullopt, {}});

  // file (resolved) -> index into out.units, to find the same unit twice.
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < entries.size(); ++i) {
    const nlohmann::json& e = entries[i];
    auto where = [&](const std::string& field) {
      return SourceLocation{file, std::nullopt, fmt::format("[{}].{}", i, field)};
    };
    if (!e.is_object()) throw UserError("expected an object (directory, file, command or arguments)", where(""));
    auto string_field = [&](const char* name) {
      if (!e.contains(name)) throw UserError(fmt::format("entry {} has no \"{}\"", i, name), where(name));
      if (!e[name].is_string())
        throw UserError(fmt::format("expected a string, found {}", e[name].dump()), where(name));
      return e[name].get<std::string>();
    };
    fs::path directory = string_field("directory");
    if (directory.is_relative())
      throw UserError(
          fmt::format("'{}' is relative; the directory of a compile command is absolute", directory.string()),
          where("directory"));
    std::string file_as_written = string_field("file");
    std::vector<std::string> argv;
    if (e.contains("arguments")) {
      if (!e["arguments"].is_array() || e["arguments"].empty())
        throw UserError("expected a non-empty array of strings (the compiler, then its arguments)", where("arguments"));
      for (const auto& w : e["arguments"]) {
        if (!w.is_string()) throw UserError(fmt::format("expected strings, found {}", w.dump()), where("arguments"));
        argv.push_back(w.get<std::string>());
      }
    } else if (e.contains("command")) {
      std::string command = string_field("command");
      try {
        argv = split_shell_words(command);
      } catch (const UserError& bad) {
        throw UserError(fmt::format("cannot split the command: {}", bad.what()), where("command"));
      }
      if (argv.empty()) throw UserError("the command is empty", where("command"));
    } else {
      throw UserError(fmt::format("entry {} has neither \"arguments\" nor \"command\"", i), where("arguments"));
    }

    fs::path source = fs::path(file_as_written).is_absolute() ? fs::path(file_as_written)
                                                              : (directory / file_as_written).lexically_normal();
    bool excluded = false;
    for (const auto& glob : exclude)
      excluded = excluded || matches(glob, file_as_written) || matches(glob, source.string()) ||
                 matches(glob, source.filename().string());
    if (excluded) {
      out.notes.push_back(fmt::format("{}: excluded (--exclude)", source.string()));
      continue;
    }
    BuildCommand b;
    try {
      b = parse_build_command(argv, directory);
    } catch (const UserError& bad) {
      throw UserError(bad.what(), where(e.contains("arguments") ? "arguments" : "command"));
    }
    if (!b.language && !is_c_family_source(source)) {
      out.notes.push_back(fmt::format("{}: left out (not C or C++)", source.string()));
      continue;
    }
    if (b.language && *b.language != "c" && *b.language != "c++") {
      out.notes.push_back(fmt::format("{}: left out (-x {})", source.string(), *b.language));
      continue;
    }
    CompileUnit u;
    u.source = source;
    u.flags = b.front_end_flags;
    u.cxx = b.language ? *b.language == "c++" : (is_cxx_compiler(b.compiler) || is_cxx_source(source));
    // A C++ driver reads a .c file as C++; clang++ does too but warns that it is deprecated.
    if (u.cxx && !b.language && !is_cxx_source(source)) u.flags.insert(u.flags.begin(), {"-x", "c++"});
    u.origin = fmt::format("{} entry {}", file, i);
    auto [it, fresh] = seen.emplace(source.string(), out.units.size());
    if (!fresh) {
      const CompileUnit& first = out.units[it->second];
      if (first.flags != u.flags || first.cxx != u.cxx)
        out.notes.push_back(fmt::format("{}: compiled again with other flags ({}); analysing it once, as {}",
                                        source.string(), u.origin, first.origin));
      continue;
    }
    out.opt_levels.insert(b.opt_level.value_or("0"));
    out.units.push_back(std::move(u));
  }
  if (out.units.empty())
    throw UserError(fmt::format("no C or C++ unit to analyse ({} entries{})", entries.size(),
                                exclude.empty() ? "" : ", after --exclude"),
                    {file, std::nullopt, {}});
  return out;
}

}  // namespace perfcast::analyze
