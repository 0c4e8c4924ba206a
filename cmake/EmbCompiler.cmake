# Helpers for the compiler half of the build (needs MLIR).

# The MLIR C API archives libemb carries. There is no libMLIR-C.so in
# Debian's packages; the C API lives in static archives, so libemb
# whole-archives them on top of libMLIR.so and libLLVM.so (one copy of MLIR).
set(EMB_MLIR_CAPI_COMPONENTS
  IR IRDL Interfaces Debug RegisterEverything Transforms Conversion
  ExecutionEngine Target Func Arith Math Tensor SCF MemRef LLVM Bufferization
  Linalg ControlFlow Index GPU)

# emb_add_compiler_objects(name sources...): an object library of compiler
# code, compiled against MLIR's C API headers.
function(emb_add_compiler_objects name)
  add_library(${name} OBJECT ${ARGN})
  target_include_directories(${name} PRIVATE
    ${MLIR_INCLUDE_DIRS} ${CMAKE_SOURCE_DIR}/dialect)
endfunction()
