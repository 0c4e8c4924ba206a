# libemb_torch_ops.so (python/csrc/: emb_torch_ops.cpp, tbe.cpp): emb_torch's
# C++ ops, built against the PyTorch of the configured Python (docs/pytorch.md, "The
# C++ ops library"). EMB_ENABLE_TORCH_OPS: AUTO builds it when that Python
# imports torch, ON requires it, OFF leaves it out; without it emb_torch runs
# its Python path. It uses torch's headers and its c10 and torch_cpu
# libraries only, so it needs neither CUDA nor Python's headers, and binds to
# the one torch version it was built against (emb_torch checks the version
# before loading it).
set(EMB_ENABLE_TORCH_OPS AUTO CACHE STRING
  "Build emb_torch's C++ ops against the configured Python's torch (AUTO, ON, OFF)")
set(EMB_HAVE_TORCH_OPS OFF)
if(NOT EMB_ENABLE_TORCH_OPS STREQUAL "OFF" AND Python3_Interpreter_FOUND)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c
      "import os, torch; print(torch.__version__); print(os.path.dirname(torch.__file__)); print(int(torch._C._GLIBCXX_USE_CXX11_ABI))"
    OUTPUT_VARIABLE _emb_torch_out ERROR_QUIET RESULT_VARIABLE _emb_torch_rc
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_emb_torch_rc EQUAL 0)
    string(REPLACE "\n" ";" _emb_torch_out "${_emb_torch_out}")
    list(GET _emb_torch_out 0 EMB_TORCH_VERSION)
    list(GET _emb_torch_out 1 _emb_torch_dir)
    list(GET _emb_torch_out 2 _emb_torch_abi)
    if(EXISTS ${_emb_torch_dir}/include/torch/library.h
       AND EXISTS ${_emb_torch_dir}/lib/libc10.so)
      set(EMB_HAVE_TORCH_OPS ON)
    endif()
  endif()
endif()
if(EMB_ENABLE_TORCH_OPS STREQUAL "ON" AND NOT EMB_HAVE_TORCH_OPS)
  message(FATAL_ERROR
    "EMB_ENABLE_TORCH_OPS=ON: the configured Python (${Python3_EXECUTABLE}) "
    "has no torch with its C++ headers")
endif()

if(EMB_HAVE_TORCH_OPS)
  add_library(emb_torch_ops SHARED
    python/csrc/emb_torch_ops.cpp
    python/csrc/tbe.cpp)
  # The runtime's C API (its argument structs; the entry points come from
  # emb_torch's libembrt.so at run time, so it is not linked here).
  target_include_directories(emb_torch_ops PRIVATE ${PROJECT_SOURCE_DIR}/include)
  # torch's headers as system headers: emb's warning flags are for emb's code.
  target_include_directories(emb_torch_ops SYSTEM PRIVATE
    ${_emb_torch_dir}/include
    ${_emb_torch_dir}/include/torch/csrc/api/include)
  target_compile_definitions(emb_torch_ops PRIVATE
    _GLIBCXX_USE_CXX11_ABI=${_emb_torch_abi})
  # Loaded into a process that has imported torch, which has loaded these.
  target_link_libraries(emb_torch_ops PRIVATE
    ${_emb_torch_dir}/lib/libc10.so ${_emb_torch_dir}/lib/libtorch_cpu.so)
  set_target_properties(emb_torch_ops PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
    CXX_STANDARD 17
    # The library registers its ops at load time and exports nothing else.
    CXX_VISIBILITY_PRESET hidden)
  # The version it was built against, beside it: emb_torch loads the library
  # only under that torch (another's C++ ABI may differ).
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/lib/libemb_torch_ops.torch_version
    CONTENT "${EMB_TORCH_VERSION}\n")
  install(TARGETS emb_torch_ops LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${CMAKE_BINARY_DIR}/lib/libemb_torch_ops.torch_version
    DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
