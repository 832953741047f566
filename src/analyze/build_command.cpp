// Reading a build's compiler command lines (build_command.h).
#include "analyze/build_command.h"

#include <fmt/format.h>

#include <set>

#include "support/error.h"

namespace perfcast::analyze {

namespace fs = std::filesystem;

std::vector<std::string> split_shell_words(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (i + 1 >= command.size()) throw UserError("the command ends in a backslash that escapes nothing");
      word += command[++i];
    } else if (c == '\'') {
      size_t end = command.find('\'', i + 1);
      if (end == std::string::npos) throw UserError(fmt::format("a single quote at character {} is never closed", i));
      word += command.substr(i + 1, end - i - 1);
      i = end;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < command.size() && command[j] != '"'; ++j) {
        if (command[j] == '\\' && j + 1 < command.size() &&
            std::string("\"\\$`").find(command[j + 1]) != std::string::npos)
          ++j;
        word += command[j];
      }
      if (j >= command.size()) throw UserError(fmt::format("a double quote at character {} is never closed", i));
      i = j;
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

namespace {

std::string base_name(const std::string& compiler) { return fs::path(compiler).filename().string(); }

// The name without a version or distribution suffix: g++-12 -> g++, mpicc.openmpi -> mpicc.
std::string stem_of_compiler(const std::string& compiler) {
  std::string name = base_name(compiler);
  size_t end = name.find_first_of(".-", 1);
  return end == std::string::npos ? name : name.substr(0, end);
}

// Options whose value is the next word when not joined to them.
const std::set<std::string> kTakesValue = {"-o",          "-MF",     "-MT",        "-MQ",       "-I",
                                           "-isystem",    "-iquote", "-idirafter", "-include",  "-imacros",
                                           "-D",          "-U",      "-x",         "-Xclang",   "-isysroot",
                                           "--sysroot",   "-target", "-L",         "-Xlinker",  "-Xpreprocessor",
                                           "-Xassembler", "-arch",   "--param",    "-aux-info", "-u",
                                           "-T",          "-l"};

// Path-valued options: relative values are made absolute against the command's directory.
const std::set<std::string> kPathValue = {"-I",       "-isystem", "-iquote",   "-idirafter",
                                          "-include", "-imacros", "-isysroot", "--sysroot"};

// Options that reach the front end as they are (with their value).
const std::set<std::string> kFrontEnd = {"-D",       "-U",       "-I",      "-isystem",  "-iquote",   "-idirafter",
                                         "-include", "-imacros", "-Xclang", "-isysroot", "--sysroot", "-target"};

// -f flags that say how to report, instrument or link, not what the code means:
// sanitisers and coverage would put their instrumentation into the analysed code.
bool is_dropped_f_flag(const std::string& f) {
  for (const char* prefix : {"-fdiagnostics",
                             "-fcolor-diagnostics",
                             "-fno-color-diagnostics",
                             "-fmessage-length",
                             "-fsanitize",
                             "-fno-sanitize",
                             "-fprofile",
                             "-fno-profile",
                             "-fcoverage",
                             "-ftest-coverage",
                             "-flto",
                             "-fno-lto",
                             "-fuse-ld",
                             "-fdebug-prefix-map",
                             "-ffile-prefix-map",
                             "-fmacro-prefix-map",
                             "-fcrash-diagnostics",
                             "-ftime-report",
                             "-ftime-trace",
                             "-fsyntax-only",
                             "-fansi-escape-codes",
                             "-fcaret-diagnostics",
                             "-fshow-column",
                             "-fshow-source-location",
                             "-fno-caret-diagnostics",
                             "-fno-show-column"})
    if (f.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace

bool is_cxx_compiler(const std::string& compiler) {
  std::string stem = stem_of_compiler(compiler);
  if (stem.find("++") != std::string::npos) return true;  // clang++, g++, c++, mpic++
  return stem == "mpicxx" || stem == "mpiCC" || stem == "CC";
}

bool is_mpi_wrapper(const std::string& compiler) {
  std::string stem = stem_of_compiler(compiler);
  return stem == "mpicc" || stem == "mpicxx" || stem == "mpic++" || stem == "mpiCC";
}

bool is_cxx_source(const fs::path& source) {
  static const std::set<std::string> cxx = {".cc", ".cpp", ".cxx", ".c++", ".C", ".CPP", ".cp", ".ii"};
  return cxx.count(source.extension().string()) > 0;
}

bool is_c_family_source(const fs::path& source) {
  std::string ext = source.extension().string();
  return ext == ".c" || ext == ".i" || is_cxx_source(source);
}

std::string cxx_driver_of(const std::string& clang) {
  if (clang.find("clang++") != std::string::npos) return clang;
  size_t at = clang.rfind("clang");
  if (at == std::string::npos) return clang;
  return clang.substr(0, at + 5) + "++" + clang.substr(at + 5);
}

bool is_opt_level(const std::string& level) {
  static const std::set<std::string> levels = {"0", "1", "2", "3", "s", "z"};
  return levels.count(level) > 0;
}

std::vector<std::string> bitcode_flags(const std::string& opt_level) {
  // -fstandalone-debug: each unit describes the classes it uses in full, not
  // only the unit with a class's key function (clang's default on Linux), so
  // a field read through a class's reference is named in every unit.
  std::vector<std::string> flags = {"-emit-llvm", "-g", "-fstandalone-debug", "-O" + opt_level};
  if (opt_level == "0") flags.insert(flags.end(), {"-Xclang", "-disable-O0-optnone"});
  flags.insert(flags.end(), {"-Xclang", "-disable-llvm-passes"});
  // Pre-C99 habits that GCC 12 and clang before 16 warn about and clang 16+
  // rejects by default (a call to an undeclared function, implicit int, int to
  // pointer): the program builds with its own compiler, so its IR must come out
  // too. The user's own flags come after these and can make them errors again.
  flags.insert(flags.end(), {"-Wno-error=implicit-function-declaration", "-Wno-error=implicit-int",
                             "-Wno-error=int-conversion", "-Wno-error=incompatible-pointer-types",
                             "-Wno-error=incompatible-function-pointer-types"});
  return flags;
}

BuildCommand parse_build_command(const std::vector<std::string>& argv, const fs::path& directory) {
  BuildCommand b;
  if (argv.empty()) throw UserError("an empty compiler command");
  b.compiler = argv.front();
  auto absolute = [&](const std::string& path) {
    if (path.empty() || fs::path(path).is_absolute() || path[0] == '=') return path;
    return (directory / path).lexically_normal().string();
  };
  for (size_t i = 1; i < argv.size(); ++i) {
    const std::string& w = argv[i];
    if (w.empty()) continue;
    if (w[0] != '-' || w == "-") {
      if (is_c_family_source(w) || b.language) b.sources.push_back(w);
      continue;  // objects, libraries: the link's business
    }
    // The option and its value, joined (-Iinc, -DX=1, -ofile) or in the next word.
    std::string option = w, value;
    bool has_value = false;
    if (kTakesValue.count(w)) {
      if (i + 1 >= argv.size()) throw UserError(fmt::format("'{}' at the end of the command has no value", w));
      value = argv[++i];
      has_value = true;
    } else {
      for (const char* joined : {"-isystem", "-iquote", "-idirafter", "-include", "-imacros", "-I", "-D", "-U", "-o",
                                 "-MF", "-MT", "-MQ", "-x", "-L", "-l"}) {
        std::string j = joined;
        if (w.size() > j.size() && w.rfind(j, 0) == 0) {
          option = j;
          value = w.substr(j.size());
          has_value = true;
          break;
        }
      }
    }
    if (option == "-o") {
      b.output = value;
    } else if (option == "-x") {
      b.language = value;
      b.front_end_flags.insert(b.front_end_flags.end(), {"-x", value});
    } else if (kFrontEnd.count(option)) {
      b.front_end_flags.push_back(option);
      b.front_end_flags.push_back(kPathValue.count(option) ? absolute(value) : value);
    } else if (has_value) {
      // -MF, -MT, -MQ (dependency files), -L, -l, -Xlinker ... (the link): not the front end's.
    } else if (w == "-c") {
      b.compile_only = true;
    } else if (w == "-E" || w == "-S" || w == "-M" || w == "-MM") {
      b.preprocess_only = true;
    } else if (w.rfind("-O", 0) == 0) {
      std::string level = w.substr(2);
      if (level.empty()) level = "1";
      if (level == "fast") level = "3";
      if (level == "g") level = "1";
      b.opt_level = level;
    } else if (w.rfind("-std=", 0) == 0 || w == "-ansi" || w == "-pthread" || w == "-nostdinc" || w == "-nostdinc++" ||
               w.rfind("-stdlib=", 0) == 0 || w.rfind("--target=", 0) == 0 || w.rfind("-m", 0) == 0 ||
               (w.rfind("-f", 0) == 0 && !is_dropped_f_flag(w))) {
      b.front_end_flags.push_back(w);
    }
    // Everything else (-W*, -w, -g*, -pedantic, -MD, -MMD, -MP, -v, -pipe, -shared, -static ...)
    // says what to warn, record or link: the analyser sets or needs none of it.
  }
  return b;
}

}  // namespace perfcast::analyze
