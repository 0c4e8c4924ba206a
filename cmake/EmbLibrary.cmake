# libemb: the compiler as one shared C library (dialect, passes, codegen)
# carrying the MLIR C API it needs, linked with --no-undefined.
set(_capi_archives "")
foreach(component ${EMB_MLIR_CAPI_COMPONENTS})
  list(APPEND _capi_archives ${EMB_LLVM_LIBDIR}/libMLIRCAPI${component}.a)
endforeach()

add_library(emb SHARED
  $<TARGET_OBJECTS:emb_dialect>
  $<TARGET_OBJECTS:emb_passes>
  $<TARGET_OBJECTS:emb_codegen>)
set_target_properties(emb PROPERTIES
  LINKER_LANGUAGE CXX
  BUILD_RPATH ${EMB_LLVM_LIBDIR}
  INSTALL_RPATH ${EMB_LLVM_LIBDIR})
target_include_directories(emb PUBLIC
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
  $<BUILD_INTERFACE:${EMB_GENERATED_INCLUDE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
  ${MLIR_INCLUDE_DIRS})
target_link_libraries(emb
  PRIVATE -Wl,--whole-archive ${_capi_archives} -Wl,--no-whole-archive
  PUBLIC embrt
  PRIVATE ${EMB_LLVM_LIBDIR}/libMLIR.so ${EMB_LLVM_LIBDIR}/libLLVM.so
  -Wl,--no-undefined)
install(TARGETS emb EXPORT embTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
