//===- emb/export.h - What emb's libraries export -----------------*- C -*-===//
//
// emb's libraries are built with hidden visibility (CMAKE_*_VISIBILITY_PRESET
// in the top-level CMakeLists.txt): a shared library built from them (libemb)
// exports exactly the functions the public headers declare, and none of the
// helpers the layers share among themselves. Each public header puts its
// declarations between EMB_EXPORTS_BEGIN and EMB_EXPORTS_END;
// test/Tools/exports.test compares libemb's exported symbols with the
// headers.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_EXPORT_H
#define EMB_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define EMB_EXPORTS_BEGIN _Pragma("GCC visibility push(default)")
#define EMB_EXPORTS_END _Pragma("GCC visibility pop")
#else
#define EMB_EXPORTS_BEGIN
#define EMB_EXPORTS_END
#endif

#endif // EMB_EXPORT_H
