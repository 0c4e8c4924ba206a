# What `cmake --install` puts beside the targets' own install rules, for
# another project to build against emb (docs/library.md, "Install and use from
# another project"):
#   - the public headers;
#   - emb_torch, the PyTorch extension (pure Python);
#   - the CMake package: find_package(emb CONFIG) gives emb::embrt (libembrt.a),
#     emb::embrt_shared (libembrt.so), emb::emb (libemb.so), the tools
#     (emb::emb-opt, emb::emb-compile, emb::emb-run, emb::emb-run-shared) and
#     emb::EmbPlugin, those that were built;
#   - pkg-config files: embrt.pc (the runtime) and, with the compiler, emb.pc.
# Every path in them is relative to where they are installed, so the prefix
# given at install time (--prefix, DESTDIR) or a later move holds.
include(CMakePackageConfigHelpers)

# The generated files wait outside the places find_package and pkg-config
# search in a build folder (<build>/cmake/ is one, through PATH's <build>/bin):
# they describe the installed layout, not the build's.
set(EMB_INSTALL_FILES ${CMAKE_BINARY_DIR}/CMakeFiles/emb-install)

install(DIRECTORY include/emb DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${EMB_GENERATED_INCLUDE_DIR}/emb/version.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/emb)

# emb_torch finds libembrt.so at ../../lib/libembrt.so from its own folder
# (python/emb_torch/_runtime.py), which is where P/lib is from
# P/python_packages/emb_torch. Pure Python, so not in a Python version's
# site-packages: PYTHONPATH=P/python_packages, as with MLIR's bindings.
install(DIRECTORY python/emb_torch DESTINATION ${EMB_INSTALL_PYTHONDIR}
  FILES_MATCHING PATTERN "*.py"
  PATTERN "__pycache__" EXCLUDE)

# emb_torch's wheel (python/make_wheel.py): the package with libembrt.so
# inside it, for `pip install`. `ninja emb_torch_wheel` writes
# <build>/dist/emb_torch-<version>-py3-none-<platform>.whl; nothing else
# builds it.
# With emb_torch's C++ ops built (cmake/EmbTorchOps.cmake) the wheel holds
# them too and requires the torch they were built against.
if(Python3_Interpreter_FOUND)
  set(_emb_wheel_ops "")
  set(_emb_wheel_deps embrt_shared)
  if(TARGET emb_torch_ops)
    set(_emb_wheel_ops --ops-lib $<TARGET_FILE:emb_torch_ops>)
    list(APPEND _emb_wheel_deps emb_torch_ops)
  endif()
  add_custom_target(emb_torch_wheel
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/python/make_wheel.py
            --lib $<TARGET_FILE:embrt_shared> --version ${PROJECT_VERSION}
            --out ${CMAKE_BINARY_DIR}/dist ${_emb_wheel_ops}
    DEPENDS ${_emb_wheel_deps} ${PROJECT_SOURCE_DIR}/python/make_wheel.py
    COMMENT "emb_torch's wheel in ${CMAKE_BINARY_DIR}/dist"
    VERBATIM)
endif()

# The sanitizer configuration's libraries hold ASan and UBSan calls: whatever
# links them links the sanitizers' runtimes too.
if(EMB_SANITIZE)
  foreach(target embrt embrt_shared emb)
    if(TARGET ${target})
      target_link_options(${target} INTERFACE -fsanitize=address,undefined)
    endif()
  endforeach()
endif()

# The CMake package.
install(EXPORT embTargets NAMESPACE emb:: DESTINATION ${EMB_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/embConfig.cmake.in
  ${EMB_INSTALL_FILES}/embConfig.cmake
  INSTALL_DESTINATION ${EMB_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# While emb is 0.x, a minor release may change the API.
write_basic_package_version_file(${EMB_INSTALL_FILES}/embConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${EMB_INSTALL_FILES}/embConfig.cmake
  ${EMB_INSTALL_FILES}/embConfigVersion.cmake
  DESTINATION ${EMB_INSTALL_CMAKEDIR})

# pkg-config: `pkg-config --cflags --libs embrt` links libembrt.so;
# `--static` adds what libembrt.a needs (Libs.private).
set(EMB_PKGCONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH EMB_PC_PREFIX /${EMB_PKGCONFIG_DIR} /)
string(REGEX REPLACE "/$" "" EMB_PC_PREFIX "${EMB_PC_PREFIX}")
set(EMB_PC_LIBS "")
if(EMB_SANITIZE)
  set(EMB_PC_LIBS " -fsanitize=address,undefined")
endif()
set(EMB_PC_LIBS_PRIVATE "-lm")
if(EMB_HAVE_CUDA)
  set(EMB_PC_LIBS_PRIVATE
    "-L${CUDAToolkit_LIBRARY_DIR} -lcudart -lcublas -lcublasLt")
  if(EMB_HAVE_NCCL)
    string(APPEND EMB_PC_LIBS_PRIVATE " ${EMB_NCCL_LIBRARY}")
  endif()
  string(APPEND EMB_PC_LIBS_PRIVATE " -lstdc++ -lm")
endif()
configure_file(cmake/embrt.pc.in ${EMB_INSTALL_FILES}/embrt.pc @ONLY)
install(FILES ${EMB_INSTALL_FILES}/embrt.pc
  DESTINATION ${EMB_PKGCONFIG_DIR})
if(EMB_HAVE_COMPILER)
  set(EMB_PC_MLIR_CFLAGS "")
  foreach(dir ${MLIR_INCLUDE_DIRS})
    string(APPEND EMB_PC_MLIR_CFLAGS " -I${dir}")
  endforeach()
  configure_file(cmake/emb.pc.in ${EMB_INSTALL_FILES}/emb.pc @ONLY)
  install(FILES ${EMB_INSTALL_FILES}/emb.pc
    DESTINATION ${EMB_PKGCONFIG_DIR})
endif()
