# `advisor analyze` loads no LibTorch (docs/architecture.md, "Two binaries"): advisor's dynamic
# section names none of LibTorch's libraries. advisor-torch's must name them, so that a readelf
# that printed nothing, or libraries renamed, fail here rather than pass.
#   cmake -DADVISOR=build/advisor -DADVISOR_TORCH=build/advisor-torch -P links_no_libtorch.cmake
cmake_minimum_required(VERSION 3.18)

# The LibTorch library among `binary`'s NEEDED entries ("" where none), into `result`.
function(libtorch_needed binary result)
  execute_process(COMMAND readelf --dynamic ${binary} OUTPUT_VARIABLE dynamic
                  RESULT_VARIABLE status)
  if(NOT status EQUAL 0 OR NOT dynamic MATCHES "\\(NEEDED\\)")
    message(FATAL_ERROR "readelf --dynamic ${binary} gave no NEEDED entries (status ${status})")
  endif()
  string(REGEX MATCH "\\[lib(torch|torch_cpu|c10)\\.so[^]]*\\]" library "${dynamic}")
  set(${result} "${library}" PARENT_SCOPE)
endfunction()

libtorch_needed(${ADVISOR_TORCH} torch_side)
if(NOT torch_side)
  message(FATAL_ERROR "${ADVISOR_TORCH} needs no LibTorch library by these names: this check "
                      "cannot tell whether ${ADVISOR} does")
endif()
libtorch_needed(${ADVISOR} analyze_side)
if(analyze_side)
  message(FATAL_ERROR "${ADVISOR} needs ${analyze_side}: advisor analyze would load LibTorch")
endif()
