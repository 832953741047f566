// A build's compiler command line read as the analyser needs it: what reaches
// the front end (-D, -U, -I..., -include, -std=, -f and -m flags, -x), what the
// build decides that the analyser sets itself (the optimisation level, the
// output), and what it drops (dependency files, warnings, the compiler, link
// flags). Shared by `--compile-commands` (compile_commands.h) and the compiler
// mode (`perfcast mpicc`), so both read a command the same way. No LLVM here.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace perfcast::analyze {

struct BuildCommand {
  std::string compiler;                      // argv[0] as written
  std::vector<std::string> front_end_flags;  // kept, relative include paths made absolute
  std::vector<std::string> sources;          // C/C++ inputs, as written (relative to the directory)
  std::optional<std::string> output;         // -o
  std::optional<std::string> opt_level;      // the last -O: "0".."3", "s", "z" ("-O" alone is "1")
  std::optional<std::string> language;       // the last -x before the sources: "c", "c++", ...
  bool compile_only = false;                 // -c
  bool preprocess_only = false;              // -E, -M, -MM, -S: no object to write bitcode beside
};

// Splits a shell command as POSIX sh does for words: blanks separate, single
// quotes keep everything, double quotes keep all but \" \\ \$ \`, a backslash
// outside quotes escapes the next character. Throws UserError (what is
// unterminated) for an open quote or a trailing backslash.
std::vector<std::string> split_shell_words(const std::string& command);

// Reads argv (argv[0] is the compiler). `directory` is where the command runs:
// relative -I, -isystem, -iquote, -idirafter, -include and -imacros paths are
// made absolute against it. Words that take a value take the next word when
// not joined (-o x, -MF x, -I dir, -D X).
BuildCommand parse_build_command(const std::vector<std::string>& argv, const std::filesystem::path& directory);

// Whether the compiler named by argv[0] (any path, any version suffix) is a
// C++ driver: clang++, g++, c++, mpicxx, mpic++, mpiCC.
bool is_cxx_compiler(const std::string& compiler);

// Whether it is an MPI compiler wrapper (mpicc, mpicxx, mpic++, mpiCC, with
// suffixes such as .openmpi). Fortran wrappers (mpif90...) are not C family.
bool is_mpi_wrapper(const std::string& compiler);

// Whether a file is C++ by its extension (.cc .cpp .cxx .c++ .C .ii).
bool is_cxx_source(const std::filesystem::path& source);

// Whether a file is C or C++ source by its extension (.c .i and the C++ ones).
bool is_c_family_source(const std::filesystem::path& source);

// The C++ driver of a C compiler name: clang-19 -> clang++-19, clang -> clang++
// (a name that is already a C++ driver, or no clang, is returned as it is).
std::string cxx_driver_of(const std::string& clang);

// The flags every unit is compiled to analysable bitcode with, after the
// level's front-end decisions: debug info (source names and lines), at -O1
// and above no optnone, TBAA and lifetime markers but none of the level's IR
// passes (the analyser runs them itself, after annotating the MPI
// declarations); at -O0 no optnone either, so the analysis's passes may run.
std::vector<std::string> bitcode_flags(const std::string& opt_level);

// Whether `level` is one the analyser accepts: 0 1 2 3 s z.
bool is_opt_level(const std::string& level);

}  // namespace perfcast::analyze
