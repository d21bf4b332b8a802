# LibTorch's headers, parsed once a build. GCC 12 spends more than half of a LibTorch translation
# unit's compile parsing them (13 of 24 CPU-seconds for engine/torch/training_step.cpp at -O3), and
# CI builds those units three times (build/, build-odr/, build-modern/). With ADVISOR_TORCH_PCH,
# one target, advisor_torch_pch, precompiles <torch/script.h>, which most LibTorch units include,
# and every library with LibTorch sources reuses its precompiled header (its units that include
# little of LibTorch pay a few seconds to load it; docs/benchmarks.md#build-and-ci-checks has the
# figures). The sources still include what they use: -DADVISOR_TORCH_PCH=OFF builds as before.
option(ADVISOR_TORCH_PCH "Precompile LibTorch's headers once for the libraries with LibTorch sources"
       ON)

# Called at the end of the top-level CMakeLists.txt, once every target exists.
function(advisor_torch_pch_targets)
  if(NOT ADVISOR_WITH_TORCH OR NOT ADVISOR_TORCH_PCH)
    return()
  endif()
  # The precompiled header's own target: one empty unit, compiled with the flags every target
  # here shares (GCC refuses a header precompiled with other ones; -Winvalid-pch says so).
  set(_source ${CMAKE_BINARY_DIR}/advisor_torch_pch.cpp)
  # Written only when it differs, so that configuring again recompiles nothing.
  file(CONFIGURE OUTPUT ${_source}
       CONTENT "// The unit that carries LibTorch's precompiled header (cmake/TorchPch.cmake).\n")
  add_library(advisor_torch_pch OBJECT ${_source})
  target_link_libraries(advisor_torch_pch PRIVATE ${TORCH_LIBRARIES})
  target_precompile_headers(advisor_torch_pch PRIVATE <torch/script.h>)
  # The libraries whose sources include LibTorch; a new one belongs here. Not the executables
  # (the test suites, bench/probe_overhead): they compile with -fPIE, and GCC refuses a header
  # precompiled with -fPIC ("created and used with different settings of -fpie", an error under
  # CI's -Werror).
  foreach(_target advisor_torch advisor_model_candidate advisor_markers advisor_op_probe
                  advisor_script_probe)
    if(TARGET ${_target})
      target_precompile_headers(${_target} REUSE_FROM advisor_torch_pch)
    endif()
  endforeach()
endfunction()
