# Detects the optional halves of the build and sets EMB_HAVE_CUDA,
# EMB_HAVE_NCCL and EMB_HAVE_COMPILER.

# CUDA ------------------------------------------------------------------------
set(EMB_HAVE_CUDA OFF)
if(NOT EMB_ENABLE_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # sm_90 machine code for Hopper plus PTX that newer GPUs compile at load.
    # Hopper-only kernels (wgmma, TMA) are built for sm_90a in kernels/.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "90-real;80-virtual")
    endif()
    # One CUDA runtime for everything that links embrt: the shared one.
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_CUDA_STANDARD 17)
    set(EMB_HAVE_CUDA ON)
  elseif(EMB_ENABLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "EMB_ENABLE_CUDA=ON but no CUDA compiler was found")
  endif()
endif()

# NCCL ------------------------------------------------------------------------
# Only the collectives of the CUDA backend need it (runtime/cuda/
# collectives.c); the CUDA toolkit here ships it (nccl.h, libnccl.so), other
# installs may not. Without it the CUDA runtime builds all the same and its
# collectives answer EMBRT_UNSUPPORTED, naming what is missing
# (runtime/cuda/collectives_no_nccl.c).
set(EMB_HAVE_NCCL OFF)
if(EMB_HAVE_CUDA AND NOT EMB_ENABLE_NCCL STREQUAL "OFF")
  find_library(EMB_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
  find_path(EMB_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  if(EMB_NCCL_LIBRARY AND EMB_NCCL_INCLUDE)
    set(EMB_HAVE_NCCL ON)
  elseif(EMB_ENABLE_NCCL STREQUAL "ON")
    message(FATAL_ERROR "EMB_ENABLE_NCCL=ON but nccl.h or libnccl was not "
      "found (EMB_NCCL_INCLUDE, EMB_NCCL_LIBRARY)")
  endif()
elseif(EMB_ENABLE_NCCL STREQUAL "ON")
  message(FATAL_ERROR "EMB_ENABLE_NCCL=ON needs the CUDA runtime (EMB_ENABLE_CUDA)")
endif()

# MLIR ------------------------------------------------------------------------
set(EMB_HAVE_COMPILER OFF)
if(NOT EMB_ENABLE_COMPILER STREQUAL "OFF")
  # MLIR's package version file accepts only its exact release, so ask for
  # any version and check the major one.
  find_package(MLIR CONFIG QUIET
    HINTS ${EMB_MLIR_PREFIX}/lib/cmake/mlir NO_DEFAULT_PATH)
  if(MLIR_FOUND AND NOT LLVM_VERSION_MAJOR EQUAL 22)
    message(STATUS "emb: MLIR ${LLVM_PACKAGE_VERSION} found, 22 is needed")
    set(MLIR_FOUND OFF)
  endif()
  if(MLIR_FOUND)
    set(EMB_HAVE_COMPILER ON)
    # Only the prefix, include directories and tools are taken from the package:
    # the imported MLIRCAPI* targets would link static C++ MLIR beside
    # libMLIR.so (two copies of MLIR's global state). cmake/EmbLibrary.cmake
    # links libemb against the C API archives (EMB_MLIR_CAPI_COMPONENTS,
    # cmake/EmbCompiler.cmake) and libMLIR.so directly instead.
    get_filename_component(EMB_LLVM_PREFIX "${MLIR_DIR}/../../.." ABSOLUTE)
    set(EMB_LLVM_LIBDIR ${EMB_LLVM_PREFIX}/lib)
    set(EMB_LLVM_BINDIR ${EMB_LLVM_PREFIX}/bin)
  elseif(EMB_ENABLE_COMPILER STREQUAL "ON")
    message(FATAL_ERROR "EMB_ENABLE_COMPILER=ON but MLIR 22 was not found under ${EMB_MLIR_PREFIX}")
  endif()
endif()

# Test tools: lit and FileCheck come with LLVM; the runtime's tests need only lit.
find_program(EMB_LIT NAMES lit lit.py llvm-lit
  HINTS ${EMB_MLIR_PREFIX}/bin ${EMB_MLIR_PREFIX}/build/utils/lit)
find_program(EMB_FILECHECK NAMES FileCheck HINTS ${EMB_MLIR_PREFIX}/bin)
find_program(EMB_NOT NAMES not HINTS ${EMB_MLIR_PREFIX}/bin)
# clang-format: the major version the tree is formatted with first
# (test/Format/check_format.py, PINNED_MAJOR), then whatever is called
# clang-format, which the Format test checks the version of.
find_program(EMB_CLANG_FORMAT NAMES clang-format-14 clang-format)
# The install tests build a program against the installed emb with pkg-config.
find_program(EMB_PKG_CONFIG NAMES pkg-config pkgconf)
find_package(Python3 COMPONENTS Interpreter)
