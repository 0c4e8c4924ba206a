//===- runtime/shared.c - The shared library's own source ---------*- C -*-===//
//
// libembrt.so is the whole of libembrt.a linked into a shared library
// (runtime/CMakeLists.txt, target embrt_shared), for programs that load the
// runtime at run time, such as python/emb_torch through ctypes.
// CMake wants one source file of the target's own: this one, empty.
//
//===----------------------------------------------------------------------===//

typedef int embrtSharedLibrary;
