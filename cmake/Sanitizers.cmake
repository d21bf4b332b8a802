# Sanitizer builds (docs/security.md#sanitizers-and-fuzzing).
#  ADVISOR_SANITIZE: everything, LibTorch suites included, with AddressSanitizer and
#    UndefinedBehaviorSanitizer (any compiler). LibTorch itself is not instrumented.
#  ADVISOR_FUZZ: the torch-free libraries, their tests and the fuzz targets (fuzz/), with both
#    sanitizers and libFuzzer's coverage instrumentation; clang only, LibTorch left out.
set(_advisor_sanitizers -fsanitize=address,undefined -fno-sanitize-recover=undefined
    -fno-omit-frame-pointer)
# Compile time rules CI's budget: -O0 with line tables compiles in half the time of -O1 -g, and
# reports still name file and line. A long fuzzing run is faster with -DADVISOR_FUZZ_OPTIMIZE=-O1.
set(ADVISOR_FUZZ_OPTIMIZE "-O0" CACHE STRING "Optimisation level of the ADVISOR_FUZZ build")
if(ADVISOR_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "ADVISOR_FUZZ needs clang (libFuzzer): configure with "
                        "-DCMAKE_CXX_COMPILER=clang++-14, as scripts/fuzz.sh does")
  endif()
  set(ADVISOR_WITH_TORCH OFF)
  add_compile_options(${_advisor_sanitizers} -fsanitize=fuzzer-no-link -gline-tables-only
                      ${ADVISOR_FUZZ_OPTIMIZE})
  add_link_options(-fsanitize=address,undefined)
elseif(ADVISOR_SANITIZE)
  add_compile_options(${_advisor_sanitizers} -g -O1)
  add_link_options(-fsanitize=address,undefined)
endif()
