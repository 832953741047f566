# LLVM, for the code that reads LLVM IR (the analyser, the probes' pass plugin
# and the rewrites both make). The path picks the release: LLVM's version file
# accepts a request only with its minor version as well (19.1, not 19), which
# the release's packages change.
find_package(LLVM REQUIRED CONFIG PATHS /usr/lib/llvm-${PERFCAST_LLVM_VERSION}/lib/cmake/llvm NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL PERFCAST_LLVM_VERSION)
  message(FATAL_ERROR "found LLVM ${LLVM_PACKAGE_VERSION} in ${LLVM_DIR}, perfcast needs ${PERFCAST_LLVM_VERSION}")
endif()

# What a source that includes LLVM's headers is compiled with: LLVM's
# definitions, and no RTTI where LLVM was built without it (the rest of
# perfcast keeps RTTI and exceptions).
separate_arguments(PERFCAST_LLVM_COMPILE_OPTIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
if(NOT LLVM_ENABLE_RTTI)
  list(APPEND PERFCAST_LLVM_COMPILE_OPTIONS -fno-rtti)
endif()

# Every source of `target` includes LLVM's headers.
function(perfcast_use_llvm_headers target)
  target_include_directories(${target} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
  target_compile_options(${target} PRIVATE ${PERFCAST_LLVM_COMPILE_OPTIONS})
endfunction()
