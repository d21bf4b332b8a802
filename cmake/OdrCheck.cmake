# The ODR check (scripts/odr-check.sh, run before a change lands): two different types with one
# qualified name in two translation units (once two structs advisor::TraceWindow) compile and
# link silently, and the program then misreads one as the other. GCC's link-time optimiser
# compares every type it streams across units: with ADVISOR_ODR_CHECK everything is compiled
# with -flto, and one executable, advisor_odr_check, links every static library of engine/ and
# probes/ whole (--whole-archive, so that no object is left out for being unreferenced) with the
# CLI's and the script probe's sources, where -Werror=odr makes a clash fail the link, naming the
# type and both definitions. -O0: the types are compared whatever the optimisation level, and the
# check then costs compile time only.
option(ADVISOR_ODR_CHECK
       "Build advisor_odr_check: every engine and probe library in one LTO link with -Werror=odr"
       OFF)
if(ADVISOR_ODR_CHECK)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "ADVISOR_ODR_CHECK needs GCC (-flto -Wodr): configure with "
                        "-DCMAKE_CXX_COMPILER=g++, as scripts/odr-check.sh does")
  endif()
  set(_advisor_odr_flags -O0 -flto=auto -fno-fat-lto-objects -Wodr -Werror=odr
      -Werror=lto-type-mismatch)
  # Build type "OdrCheck" has no flags of its own (scripts/odr-check.sh): these are all.
  add_compile_options(${_advisor_odr_flags})
  add_link_options(${_advisor_odr_flags})
endif()

# Called at the end of the top-level CMakeLists.txt, once every library exists.
function(advisor_odr_check_target)
  if(NOT ADVISOR_ODR_CHECK)
    return()
  endif()
  set(_libraries "")
  set(_directories "")
  foreach(_top engine probes)
    get_property(_subdirectories DIRECTORY ${CMAKE_SOURCE_DIR}/${_top} PROPERTY SUBDIRECTORIES)
    list(APPEND _directories ${_subdirectories})
  endforeach()
  foreach(_directory ${_directories})
    get_property(_targets DIRECTORY ${_directory} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(_target ${_targets})
      get_target_property(_type ${_target} TYPE)
      if(_type STREQUAL "STATIC_LIBRARY")
        list(APPEND _libraries ${_target})
      endif()
    endforeach()
  endforeach()
  # The executables' and shared libraries' own sources: the CLI's two binaries (with advisor's
  # main; advisor-torch's is a second one) and the probe.
  set(_sources "")
  set(_link "")
  foreach(_target advisor advisor_torch_binary advisor_script_probe)
    if(TARGET ${_target})
      get_target_property(_target_sources ${_target} SOURCES)
      get_target_property(_target_dir ${_target} SOURCE_DIR)
      list(FILTER _target_sources EXCLUDE REGEX "torch_main\\.cpp$")
      foreach(_source ${_target_sources})
        if(NOT IS_ABSOLUTE ${_source})
          set(_source ${_target_dir}/${_source})
        endif()
        list(APPEND _sources ${_source})
      endforeach()
      get_target_property(_target_link ${_target} LINK_LIBRARIES)
      list(APPEND _link ${_target_link})
    endif()
  endforeach()
  if(NOT TARGET advisor)
    list(APPEND _sources ${CMAKE_SOURCE_DIR}/cmake/odr_check_main.cpp)
  endif()
  add_executable(advisor_odr_check ${_sources})
  target_compile_definitions(advisor_odr_check PRIVATE ADVISOR_VERSION="${PROJECT_VERSION}")
  # Every archive whole, ahead of the objects (CMake's $<LINK_LIBRARY:WHOLE_ARCHIVE> refuses a
  # library that also comes in plainly, as these do through each other); then the libraries again
  # as usual, for what they link in turn (LibTorch, Lua, zlib).
  set(_whole "")
  foreach(_library ${_libraries})
    list(APPEND _whole "$<TARGET_FILE:${_library}>")
  endforeach()
  target_link_options(advisor_odr_check PRIVATE "LINKER:--whole-archive" ${_whole}
                      "LINKER:--no-whole-archive")
  target_link_libraries(advisor_odr_check PRIVATE ${_libraries} ${_link})
  list(LENGTH _libraries _count)
  message(STATUS "advisor: ODR check links ${_count} libraries whole: ${_libraries}")
endfunction()
