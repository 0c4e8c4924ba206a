//===- tools/common/crash.h - The tools' crash report ------------*- C -*-===//
//
// When a tool dies of a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL,
// SIGABRT), it says so instead of exiting silently with 139: the tool, the
// signal, what it was doing (parsing, which pass pipeline, compiling,
// running the model), the command line and the input, that this is an
// internal error in emb or in the MLIR/LLVM it is built on, and how to
// report it. Then the signal is re-raised with the handler that was there
// before (the default one: the exit status stays 128 + the signal, and a
// core dump is written where enabled; a sanitizer's: its report follows).
//
// The handler only calls write(2) on buffers formatted beforehand, by the
// setters below, and runs on an alternate stack, so that a stack overflow
// (deep recursion in a parser) is reported too. Needs no MLIR: emb-opt,
// emb-run, emb-compile and the AOT runner (emb-run-aot-*) install it.
//
// Test hook: EMB_TEST_CRASH=<point>[:abort|:fault] makes the tool crash at
// a named point (embCrashTestPoint): raise(SIGSEGV), abort(), or a store to
// the first page (a real fault), so that the report itself has a test. It
// is not a user option; docs/emb-opt.md lists the points.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TOOLS_COMMON_CRASH_H
#define EMB_TOOLS_COMMON_CRASH_H

/// Installs the handlers. `tool` is the tool's name; argv is quoted into
/// the report as the command line. Call first thing in main.
void embCrashInstall(const char *tool, int argc, char **argv);

/// The input file a report names ("<stdin>" for stdin).
void embCrashSetInput(const char *input);

/// What the tool is doing, for the report: a phrase that follows "while"
/// ("parsing the input", "running the model") and, if one is running, the
/// pass pipeline (NULL: none). The strings are copied.
void embCrashSetStage(const char *stage, const char *pipeline);

/// The test hook: crashes here if EMB_TEST_CRASH names `point` (raise
/// SIGSEGV; "<point>:abort" abort(); "<point>:fault" a real SIGSEGV);
/// otherwise does nothing.
void embCrashTestPoint(const char *point);

#endif // EMB_TOOLS_COMMON_CRASH_H
