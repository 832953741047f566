// The LLVM tools perfcast runs, named after the one LLVM release it is built
// for (PERFCAST_LLVM_VERSION, set once in the top-level CMakeLists.txt): the
// analyser reads the IR this clang emits, so the apps, skeletons and test
// kernels are compiled by the same one, and the disassembly is read by the
// same release's tools.
#pragma once

#ifndef PERFCAST_LLVM_VERSION
#error "PERFCAST_LLVM_VERSION is set by CMake on perfcast_support and whatever links it"
#endif

#define PERFCAST_TOOLCHAIN_TEXT_(x) #x
#define PERFCAST_TOOLCHAIN_TEXT(x) PERFCAST_TOOLCHAIN_TEXT_(x)

namespace perfcast::toolchain {

inline constexpr int kLlvmVersion = PERFCAST_LLVM_VERSION;
// "LLVM 19", for messages and model notes.
inline constexpr const char* kLlvmName = "LLVM " PERFCAST_TOOLCHAIN_TEXT(PERFCAST_LLVM_VERSION);
inline constexpr const char* kClang = "clang-" PERFCAST_TOOLCHAIN_TEXT(PERFCAST_LLVM_VERSION);
inline constexpr const char* kClangxx = "clang++-" PERFCAST_TOOLCHAIN_TEXT(PERFCAST_LLVM_VERSION);
// Fortran sources: the same release's flang, whose IR the analyser reads too.
inline constexpr const char* kFlang = "flang-new-" PERFCAST_TOOLCHAIN_TEXT(PERFCAST_LLVM_VERSION);
inline constexpr const char* kLlc = "llc-" PERFCAST_TOOLCHAIN_TEXT(PERFCAST_LLVM_VERSION);
inline constexpr const char* kLlvmSymbolizer = "llvm-symbolizer-" PERFCAST_TOOLCHAIN_TEXT(PERFCAST_LLVM_VERSION);
// Debian's package that holds clang, and the one that holds the other tools.
inline constexpr const char* kClangPackage = "clang-" PERFCAST_TOOLCHAIN_TEXT(PERFCAST_LLVM_VERSION);
inline constexpr const char* kFlangPackage = "flang-" PERFCAST_TOOLCHAIN_TEXT(PERFCAST_LLVM_VERSION);
inline constexpr const char* kLlvmPackage = "llvm-" PERFCAST_TOOLCHAIN_TEXT(PERFCAST_LLVM_VERSION);

}  // namespace perfcast::toolchain
