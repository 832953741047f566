# The one MPI perfcast uses: Debian's Open MPI 4.1, always called by the full
# names of its wrappers and launcher (plain mpicc/mpirun follow Debian's
# alternatives and may point at MPICH). Applications are compiled with
# clang-${PERFCAST_LLVM_VERSION}, the compiler whose IR the static analyser reads.
find_program(PERFCAST_MPICC mpicc.openmpi REQUIRED)
find_program(PERFCAST_MPICXX mpicxx.openmpi REQUIRED)
find_program(PERFCAST_MPIRUN mpirun.openmpi REQUIRED)
find_program(PERFCAST_CLANG clang-${PERFCAST_LLVM_VERSION} REQUIRED)
find_program(PERFCAST_CLANGXX clang++-${PERFCAST_LLVM_VERSION} REQUIRED)

# Launch prefix used by tests and by the timing module. yield_when_idle keeps
# oversubscribed runs (more ranks than the 2 cores here) from busy-polling.
set(PERFCAST_MPIRUN_FLAGS --allow-run-as-root --oversubscribe --mca mpi_yield_when_idle 1)

# perfcast_add_mpi_app(NAME SOURCES a.c b.c [LANG C|CXX] [FLAGS ...] [LIBS ...])
# Builds an MPI executable with the pinned wrapper and PERFCAST_CLANG into
# ${CMAKE_BINARY_DIR}/apps/NAME. A custom command rather than a CMake target with
# a toolchain switch: one CMake project cannot have two C compilers.
function(perfcast_add_mpi_app name)
  cmake_parse_arguments(ARG "" "LANG;OUTPUT_DIR" "SOURCES;FLAGS;LIBS" ${ARGN})
  if(NOT ARG_LANG)
    set(ARG_LANG C)
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR ${CMAKE_BINARY_DIR}/apps)
  endif()
  set(srcs "")
  foreach(s ${ARG_SOURCES})
    list(APPEND srcs ${CMAKE_CURRENT_SOURCE_DIR}/${s})
  endforeach()
  if(ARG_LANG STREQUAL "CXX")
    set(wrapper ${PERFCAST_MPICXX})
    set(envvar OMPI_CXX=${PERFCAST_CLANGXX})
  else()
    set(wrapper ${PERFCAST_MPICC})
    set(envvar OMPI_CC=${PERFCAST_CLANG})
  endif()
  set(out ${ARG_OUTPUT_DIR}/${name})
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ARG_OUTPUT_DIR}
    COMMAND ${CMAKE_COMMAND} -E env ${envvar} ${wrapper} -O2 -g ${ARG_FLAGS} ${srcs} -o ${out} ${ARG_LIBS} -lm
    DEPENDS ${srcs}
    COMMENT "MPI app ${name} (${wrapper}, clang-${PERFCAST_LLVM_VERSION})"
    VERBATIM)
  add_custom_target(app_${name} ALL DEPENDS ${out})
  set_property(GLOBAL APPEND PROPERTY PERFCAST_MPI_APPS ${name})
endfunction()
