# The sanitized build's suites (ADVISOR_FUZZ: clang 14, -O0, both sanitizers), which CI compiles
# from nothing on every run beside the Debian lane (scripts/sanitize.sh). Most of one of their
# units' compile is GoogleTest's headers and the templates they instantiate: -fsyntax-only took
# 1.25 of host_loop_test.cpp's 1.75 CPU-seconds. With ADVISOR_TEST_PCH, one target,
# advisor_test_pch, precompiles GoogleTest, GoogleMock, nlohmann::json and the standard headers the
# suites use most, its templates instantiated once in the header (-fpch-instantiate-templates,
# which CMake passes clang); every suite that links GoogleTest reuses it. Without the
# instantiation the header saved nothing. docs/benchmarks.md#build-and-ci-checks has the figures.
# The sources still include what they use: -DADVISOR_TEST_PCH=OFF builds as before.
option(ADVISOR_TEST_PCH "Precompile the test suites' common headers once in the ADVISOR_FUZZ build"
       ON)

# Called at the end of the top-level CMakeLists.txt, once every target exists.
function(advisor_test_pch_targets)
  if(NOT ADVISOR_FUZZ OR NOT ADVISOR_TEST_PCH OR NOT ADVISOR_BUILD_TESTS)
    return()
  endif()
  # The precompiled header's own target: one empty unit. clang refuses a header precompiled
  # without -fPIE in an executable's unit ("is pie differs in PCH file"), and a library here
  # compiles with -fPIC (CMAKE_POSITION_INDEPENDENT_CODE): this one is compiled as the suites are.
  set(_source ${CMAKE_BINARY_DIR}/advisor_test_pch.cpp)
  # Written only when it differs, so that configuring again recompiles nothing.
  file(CONFIGURE OUTPUT ${_source}
       CONTENT "// The unit that carries the suites' precompiled header (cmake/TestPch.cmake).\n")
  add_library(advisor_test_pch OBJECT ${_source})
  set_target_properties(advisor_test_pch PROPERTIES POSITION_INDEPENDENT_CODE OFF)
  target_compile_options(advisor_test_pch PRIVATE -fPIE)
  target_link_libraries(advisor_test_pch PRIVATE GTest::gtest GTest::gmock
                                                 nlohmann_json::nlohmann_json)
  target_precompile_headers(advisor_test_pch PRIVATE
    <gtest/gtest.h> <gmock/gmock.h> <nlohmann/json.hpp> <algorithm> <filesystem> <fstream>
    <functional> <map> <memory> <optional> <set> <sstream> <string> <vector>)
  # Every executable under tests/ that links GoogleTest itself: the suites.
  set(_directories ${ADVISOR_ROOT}/tests)
  while(_directories)
    list(POP_FRONT _directories _directory)
    get_property(_subdirectories DIRECTORY ${_directory} PROPERTY SUBDIRECTORIES)
    list(APPEND _directories ${_subdirectories})
    get_property(_targets DIRECTORY ${_directory} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(_target ${_targets})
      get_target_property(_type ${_target} TYPE)
      get_target_property(_links ${_target} LINK_LIBRARIES)
      if(_type STREQUAL "EXECUTABLE" AND _links MATCHES "GTest::")
        target_precompile_headers(${_target} REUSE_FROM advisor_test_pch)
      endif()
    endforeach()
  endwhile()
endfunction()
