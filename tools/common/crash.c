//===- tools/common/crash.c - The tools' crash report ---------------------===//

#define _XOPEN_SOURCE 700

#include "crash.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

//===----------------------------------------------------------------------===//
// What the report says, formatted before any crash
//
// The handler may run at any point, also while a setter is formatting:
// setters write the buffer that is not current, then flip `current`.
//===----------------------------------------------------------------------===//

enum { NUM_SIGNALS = 5, CONTEXT_SIZE = 4096 };

static const int fatalSignals[NUM_SIGNALS] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL,
                                              SIGABRT};
static const char *const signalText[NUM_SIGNALS] = {
    "SIGSEGV (segmentation fault)", "SIGBUS (bus error)",
    "SIGFPE (arithmetic exception)", "SIGILL (illegal instruction)",
    "SIGABRT (abort)"};
static struct sigaction previous[NUM_SIGNALS];
static bool installed;

static char toolName[64] = "emb";
static char commandLine[2048];
static char input[1024] = "(none)";
static char stage[256] = "starting";
static char pipeline[1024] = "";
static char context[2][CONTEXT_SIZE];
static volatile sig_atomic_t current;
static char header[128];

static const char footer[] =
    "This is an internal error in emb or in the MLIR/LLVM it is built on, "
    "not a\nproblem with your input. Please report it to the emb project: "
    "attach the input\nfile and the command line above; a backtrace helps "
    "(gdb -batch -ex run -ex bt\n--args <the command line>).\n";

static void rebuild(void) {
  int next = !current;
  // A long command line or pipeline is cut short; the rest still ends in
  // a newline.
  int n = snprintf(context[next], CONTEXT_SIZE,
                   " while %s\n  command:  %s\n  input:    %s\n%s%s%s", stage,
                   commandLine, input, *pipeline ? "  pipeline: " : "",
                   pipeline, *pipeline ? "\n" : "");
  if (n >= CONTEXT_SIZE)
    memcpy(context[next] + CONTEXT_SIZE - 5, "...\n", 5);
  current = next;
}

/// Appends `arg` to the command line, quoted for a POSIX shell if needed.
static void appendArg(char *buf, size_t size, const char *arg) {
  size_t n = strlen(buf);
  bool plain = *arg != '\0';
  for (const char *p = arg; *p; ++p)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                "0123456789_./=,:@%+-",
                *p))
      plain = false;
  if (n && n + 1 < size)
    buf[n++] = ' ';
  if (!plain && n + 1 < size)
    buf[n++] = '\'';
  for (const char *p = arg; *p && n + 5 < size; ++p) {
    if (*p == '\'' && !plain) {
      memcpy(buf + n, "'\\''", 4);
      n += 4;
    } else {
      buf[n++] = *p;
    }
  }
  if (!plain && n + 1 < size)
    buf[n++] = '\'';
  buf[n < size ? n : size - 1] = '\0';
}

//===----------------------------------------------------------------------===//
// The handler
//===----------------------------------------------------------------------===//

static void writeAll(const char *s) {
  size_t left = strlen(s);
  while (left) {
    ssize_t n = write(STDERR_FILENO, s, left);
    if (n <= 0)
      return;
    s += n;
    left -= (size_t)n;
  }
}

static void onFatalSignal(int sig, siginfo_t *info, void *ucontext) {
  (void)ucontext;
  // What was there before handles anything from here on, a crash while
  // reporting included.
  int which = 0;
  for (int i = 0; i < NUM_SIGNALS; ++i) {
    sigaction(fatalSignals[i], &previous[i], NULL);
    if (fatalSignals[i] == sig)
      which = i;
  }
  writeAll(header);
  writeAll(signalText[which]);
  writeAll(context[current]);
  writeAll(footer);

  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  if (!info || info->si_code <= 0) {
    // Sent (raise, abort, kill): send it again to the default action, which
    // ends the process once this handler returns and unblocks it.
    sigaction(sig, &dfl, NULL);
    raise(sig);
    return;
  }
  // A fault: returning re-runs the faulting instruction, which faults again
  // into the previous handler (the default, or a sanitizer's).
  if (!(previous[which].sa_flags & SA_SIGINFO) &&
      previous[which].sa_handler == SIG_IGN)
    sigaction(sig, &dfl, NULL);
}

//===----------------------------------------------------------------------===//
// Setup
//===----------------------------------------------------------------------===//

void embCrashInstall(const char *tool, int argc, char **argv) {
  snprintf(toolName, sizeof toolName, "%s", tool);
  snprintf(header, sizeof header, "%s: internal error: ", toolName);
  commandLine[0] = '\0';
  for (int i = 0; i < argc; ++i)
    appendArg(commandLine, sizeof commandLine, argv[i]);
  rebuild();
  if (installed)
    return;
  installed = true;

  // An alternate stack, so that a stack overflow is reported (unless one
  // is set already, e.g. by a sanitizer).
  static char altStack[1 << 16];
  stack_t old;
  if (sigaltstack(NULL, &old) == 0 && (old.ss_flags & SS_DISABLE)) {
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = altStack;
    ss.ss_size = sizeof altStack;
    sigaltstack(&ss, NULL);
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = onFatalSignal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < NUM_SIGNALS; ++i)
    sigaction(fatalSignals[i], &sa, &previous[i]);
}

void embCrashSetInput(const char *name) {
  snprintf(input, sizeof input, "%s", name ? name : "(none)");
  rebuild();
}

void embCrashSetStage(const char *what, const char *passes) {
  snprintf(stage, sizeof stage, "%s", what ? what : "starting");
  snprintf(pipeline, sizeof pipeline, "%s", passes ? passes : "");
  rebuild();
}

void embCrashTestPoint(const char *point) {
  const char *want = getenv("EMB_TEST_CRASH");
  size_t n = strlen(point);
  if (!want || strncmp(want, point, n) != 0)
    return;
  if (want[n] == '\0') {
    raise(SIGSEGV);
  } else if (!strcmp(want + n, ":abort")) {
    abort();
  } else if (!strcmp(want + n, ":fault")) {
    // A store to the first page: a real fault (si_code > 0), which goes on
    // to the previous handler. The address is computed at run time so that
    // the compiler sees no constant null-page access.
    uintptr_t page = ((uintptr_t)strlen(want) | 64) & ~(uintptr_t)63;
    *(volatile int *)page = 1;
  }
}
