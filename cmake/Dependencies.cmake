# Third-party packages. Debian's packages on CI and developer machines; on the GPU machine
# LibTorch comes from the PyTorch wheel and Lua from Debian's .deb files unpacked beside the
# build (ADVISOR_LUA_ROOT).
find_package(nlohmann_json 3.9 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)  # .json.gz traces (advisor analyze)
# s3:// URLs (advisor analyze, engine/object_store): libcurl signs S3's requests (CURLOPT_AWS_SIGV4,
# 7.75). Optional: the GPU machine has no libcurl headers, and such a build refuses s3:// URLs.
find_package(CURL 7.75 QUIET)
set(ADVISOR_CURL OFF)
if(CURL_FOUND)
  set(ADVISOR_CURL ON)
endif()
message(STATUS "advisor: libcurl for s3:// URLs: ${ADVISOR_CURL}")
# .json.gz traces inflate with ISA-L (Debian's libisal-dev) where it is found, about three times
# zlib's speed (docs/benchmarks.md, issue #32); else with zlib. Optional: the GPU machine has no
# ISA-L headers. -DADVISOR_USE_ISAL=OFF builds zlib's inflater where ISA-L is installed.
option(ADVISOR_USE_ISAL "inflate .json.gz traces with ISA-L where it is found" ON)
set(ADVISOR_ISAL OFF)
if(ADVISOR_USE_ISAL)
  find_path(ISAL_INCLUDE_DIR isa-l/igzip_lib.h)
  find_library(ISAL_LIBRARY NAMES isal)
endif()
if(ADVISOR_USE_ISAL AND ISAL_INCLUDE_DIR AND ISAL_LIBRARY)
  set(ADVISOR_ISAL ON)
  add_library(advisor::isal INTERFACE IMPORTED)
  target_include_directories(advisor::isal INTERFACE ${ISAL_INCLUDE_DIR})
  target_link_libraries(advisor::isal INTERFACE ${ISAL_LIBRARY})
endif()
message(STATUS "advisor: ISA-L's inflate for .json.gz traces: ${ADVISOR_ISAL}")

# ---- Lua 5.4 ----
if(ADVISOR_LUA_ROOT)
  set(_lua_multiarch ${ADVISOR_LUA_ROOT}/usr/include/x86_64-linux-gnu)
  find_path(LUA54_INCLUDE_DIR lua.h PATHS ${ADVISOR_LUA_ROOT}/usr/include/lua5.4 NO_DEFAULT_PATH)
  find_library(LUA54_LIBRARY NAMES liblua5.4.a
               PATHS ${ADVISOR_LUA_ROOT}/usr/lib/x86_64-linux-gnu NO_DEFAULT_PATH)
  set(LUA54_INCLUDE_DIRS ${LUA54_INCLUDE_DIR} ${_lua_multiarch})
else()
  find_path(LUA54_INCLUDE_DIR lua.h PATH_SUFFIXES lua5.4)
  find_library(LUA54_LIBRARY NAMES lua5.4 lua54)
  set(LUA54_INCLUDE_DIRS ${LUA54_INCLUDE_DIR})
endif()
if(NOT LUA54_INCLUDE_DIR OR NOT LUA54_LIBRARY)
  message(FATAL_ERROR "Lua 5.4 not found: install liblua5.4-dev, or set ADVISOR_LUA_ROOT to a "
                      "folder where its .deb was unpacked (scripts/gpu-check.sh does this)")
endif()
add_library(advisor::lua INTERFACE IMPORTED)
target_include_directories(advisor::lua INTERFACE ${LUA54_INCLUDE_DIRS})
target_link_libraries(advisor::lua INTERFACE ${LUA54_LIBRARY} ${CMAKE_DL_LIBS} m)

# ---- CUPTI (headers for the record adapter; the library only for CUDA builds of LibTorch) ----
find_package(CUDAToolkit QUIET)
set(ADVISOR_CUPTI_HEADERS OFF)
if(CUDAToolkit_FOUND)
  find_path(ADVISOR_CUPTI_INCLUDE_DIR cupti_activity.h
            PATHS ${CUDAToolkit_INCLUDE_DIRS} ${CUDAToolkit_TARGET_DIR}/extras/CUPTI/include)
  if(ADVISOR_CUPTI_INCLUDE_DIR)
    set(ADVISOR_CUPTI_HEADERS ON)
  endif()
endif()

# ---- LibTorch ----
if(ADVISOR_WITH_TORCH)
  # TorchConfig looks Caffe2's configuration and c10 up the system's folders first: where
  # Debian's LibTorch is installed beside a wheel's (the modern-torch lane), a build against the
  # wheel would take Debian's libtorch and libc10 (1.13) and fail to link. A Torch_DIR inside a
  # wheel (<prefix>/share/cmake/Torch) names the wheel's own.
  if(Torch_DIR AND EXISTS "${Torch_DIR}/../Caffe2" AND EXISTS "${Torch_DIR}/../../../lib")
    get_filename_component(_wheel_cmake "${Torch_DIR}/.." ABSOLUTE)
    set(Caffe2_DIR "${_wheel_cmake}/Caffe2" CACHE PATH "Caffe2's CMake files: the wheel's" FORCE)
    find_library(c10_LIBRARY c10 PATHS "${_wheel_cmake}/../../lib" NO_DEFAULT_PATH)
    # A CUDA wheel's libraries need the CUDA, cuDNN and NCCL libraries its pip packages bring
    # (site-packages/nvidia/*/lib); the linker must find those before a CUDA toolkit's older NCCL.
    file(GLOB _wheel_cuda_libs "${_wheel_cmake}/../../../nvidia/*/lib")
    foreach(_folder IN LISTS _wheel_cuda_libs)
      add_link_options("LINKER:-rpath-link,${_folder}")
    endforeach()
  endif()
  find_package(Torch REQUIRED)
  # Debian's LibTorch and the PyTorch wheel both export TORCH_CXX_FLAGS (the C++ ABI setting).
  # Debian's names the new ABI, which the wheel leaves unsaid; where it is the compiler's default
  # anyway it is left out, so that a torch-free unit compiles to one command under either torch
  # and ccache gives build-modern/ the units build/ compiled (scripts/test.sh).
  string(REPLACE " " ";" _torch_flags "${TORCH_CXX_FLAGS}")
  if("-D_GLIBCXX_USE_CXX11_ABI=1" IN_LIST _torch_flags)
    include(CheckCXXSourceCompiles)
    check_cxx_source_compiles([[
      #include <string>
      #if !_GLIBCXX_USE_CXX11_ABI
      #error the old ABI
      #endif
      int main() { return 0; }]] ADVISOR_CXX11_ABI_BY_DEFAULT)
    if(ADVISOR_CXX11_ABI_BY_DEFAULT)
      list(REMOVE_ITEM _torch_flags "-D_GLIBCXX_USE_CXX11_ABI=1")
    endif()
  endif()
  add_compile_options(${_torch_flags})
  set(ADVISOR_TORCH_CUDA OFF)
  if(TARGET torch_cuda OR TORCH_CUDA_LIBRARIES)
    set(ADVISOR_TORCH_CUDA ON)
  endif()
  message(STATUS "advisor: LibTorch ${Torch_VERSION}, CUDA build: ${ADVISOR_TORCH_CUDA}")
endif()
message(STATUS "advisor: CUPTI headers: ${ADVISOR_CUPTI_HEADERS}")

# ---- GoogleTest ----
if(ADVISOR_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# ---- A Python with torch, to export the bundled demo and the integration tests' models ----
set(ADVISOR_PYTHON "" CACHE FILEPATH "Python interpreter with torch (default: found)")
if(NOT ADVISOR_PYTHON)
  foreach(candidate /usr/bin/python3 python3)
    find_program(_python NAMES ${candidate} NO_CACHE)
    if(_python)
      execute_process(COMMAND ${_python} -c "import torch" RESULT_VARIABLE _no_torch
                      OUTPUT_QUIET ERROR_QUIET)
      if(_no_torch EQUAL 0)
        set(ADVISOR_PYTHON ${_python} CACHE FILEPATH "Python interpreter with torch" FORCE)
        break()
      endif()
    endif()
    unset(_python)
  endforeach()
endif()
message(STATUS "advisor: Python with torch: ${ADVISOR_PYTHON}")
