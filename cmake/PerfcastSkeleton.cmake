# perfcast_add_skeleton(<app> <source> [DEPENDS <files>...] [SHARED <headers>...])
#
# Builds the BSIM skeleton of <app> with `perfcast cc`, exactly as a user builds
# theirs, into ${CMAKE_BINARY_DIR}/apps/<app>_skel (the shared object `perfcast
# simulate --np N -- ./<app>_skel ARGS` loads); its target is skel_<app>. The source's folder and apps/include (the
# helpers skeletons share) are on the include path. SHARED: headers the
# skeleton and the app both include (apps/<app>/<app>_options.h); the app,
# added before by perfcast_add_mpi_app in the same folder, is rebuilt too when
# they change (its custom command tracks no includes).
function(perfcast_add_skeleton app source)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "DEPENDS;SHARED")
  set(shared "")
  foreach(header ${arg_SHARED})
    get_filename_component(header ${header} ABSOLUTE)
    list(APPEND shared ${header})
  endforeach()
  if(shared)
    add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/apps/${app} APPEND DEPENDS ${shared})
  endif()
  get_filename_component(source ${source} ABSOLUTE)
  get_filename_component(source_dir ${source} DIRECTORY)
  set(out ${CMAKE_BINARY_DIR}/apps/${app}_skel)
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/apps
    COMMAND $<TARGET_FILE:perfcast> cc -O2 -g -Wall -I${source_dir} -I${PROJECT_SOURCE_DIR}/apps/include
            ${source} -o ${out}
    DEPENDS perfcast ${source} ${arg_DEPENDS} ${shared} ${PROJECT_SOURCE_DIR}/apps/include/skel_tally.h
            ${PROJECT_SOURCE_DIR}/include/bsim.h ${PROJECT_SOURCE_DIR}/include/perfcast/mpi.h
    COMMENT "perfcast cc ${app}_skel"
    VERBATIM)
  add_custom_target(skel_${app} ALL DEPENDS ${out})
endfunction()
