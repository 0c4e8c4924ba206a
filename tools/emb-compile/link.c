//===- tools/emb-compile/link.c - Link a model into a shared object -------===//
//
// emb-compile --shared: the model's object and the source of its descriptor
// (embEmitSharedDescriptor) become a shared object, linked by the system C
// compiler ($CC, else `cc` on the PATH, as a build tool finds it).
//
// The shared object names libembrt.so as a dependency (DT_NEEDED) rather
// than leaving the runtime's symbols to whatever the process loaded
// globally: the dynamic loader matches that name against the sonames of the
// libraries already loaded, however they were loaded (ctypes loads
// RTLD_LOCAL by default), so the model binds to the runtime instance its
// caller's contexts come from; and where none is loaded yet, it finds one
// the usual way (LD_LIBRARY_PATH, then next to the model: RUNPATH $ORIGIN,
// then the system's), or dlopen fails naming libembrt.so. The runtime is not
// needed to link: a stub of that soname stands in for it, so emb-compile
// links on a machine without a built runtime, and the runtime the model
// meets at load time is the one of the machine it runs on.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "link.h"

#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

enum { MAX_ARGS = 64 };

/// Appends the words of `text` (split at blanks: CC may be `ccache cc`) to
/// argv. Returns false when they do not fit.
static bool appendWords(char *text, char **argv, int *argc) {
  for (char *w = strtok(text, " \t"); w; w = strtok(NULL, " \t")) {
    if (*argc + 1 >= MAX_ARGS)
      return false;
    argv[(*argc)++] = w;
  }
  return true;
}

/// The command line as one string, for messages.
static void commandText(char *const *argv, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; argv[i] && n < size; ++i)
    n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? " " : "", argv[i]);
}

/// Runs the C compiler with the arguments `args` (NULL-terminated) after its
/// own words. Returns 0 if it ran and exited with status 0; else reports
/// the command and why.
static int runCompiler(const char *const *args, const char *what) {
  const char *cc = getenv("CC");
  char *words = strdup(cc && *cc ? cc : "cc");
  char *argv[MAX_ARGS];
  int argc = 0;
  if (!words || !appendWords(words, argv, &argc) || argc == 0) {
    fprintf(stderr, "emb-compile: error: CC '%s' is not a command\n",
            cc ? cc : "");
    free(words);
    return 1;
  }
  for (int i = 0; args[i]; ++i) {
    if (argc + 1 >= MAX_ARGS) {
      fprintf(stderr, "emb-compile: error: CC '%s' has too many words\n", cc);
      free(words);
      return 1;
    }
    argv[argc++] = (char *)args[i];
  }
  argv[argc] = NULL;
  char command[4096];
  commandText(argv, command, sizeof command);
  pid_t pid;
  int err = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
  int status = 1;
  if (err) {
    fprintf(stderr,
            "emb-compile: error: cannot run the C compiler '%s' to %s (set "
            "CC to one): %s\n  command: %s\n",
            argv[0], what, strerror(err), command);
  } else {
    int ws;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
      ;
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0)
      status = 0;
    else if (WIFEXITED(ws))
      fprintf(stderr,
              "emb-compile: error: the C compiler failed to %s (exit status "
              "%d)\n  command: %s\n",
              what, WEXITSTATUS(ws), command);
    else
      fprintf(stderr,
              "emb-compile: error: the C compiler was killed (signal %d) "
              "while it tried to %s\n  command: %s\n",
              WIFSIGNALED(ws) ? WTERMSIG(ws) : 0, what, command);
  }
  free(words);
  return status;
}

int embLinkShared(const char *dir, const char *object, const char *descriptor,
                  const char *output) {
  char stubSource[4096], stub[4096], libDir[4200];
  snprintf(stubSource, sizeof stubSource, "%s/embrt_stub.c", dir);
  snprintf(stub, sizeof stub, "%s/libembrt.so", dir);
  snprintf(libDir, sizeof libDir, "-L%s", dir);
  FILE *f = fopen(stubSource, "w");
  if (!f || fputs("typedef int embrtStub;\n", f) < 0 || fclose(f) != 0) {
    fprintf(stderr, "emb-compile: error: cannot write '%s': %s\n", stubSource,
            strerror(errno));
    return 1;
  }
  // The stand-in for the runtime: the soname alone, for DT_NEEDED.
  const char *stubArgs[] = {"-shared", "-fPIC", "-Wl,-soname,libembrt.so",
                            "-o",      stub,    stubSource,
                            NULL};
  if (runCompiler(stubArgs, "build the libembrt.so stand-in"))
    return 1;
  // --no-as-needed: the stub defines none of the symbols the model uses, and
  // a linker that drops unused libraries by default would drop it.
  // --enable-new-dtags: RUNPATH, which LD_LIBRARY_PATH overrides.
  const char *linkArgs[] = {"-shared",
                            "-fPIC",
                            "-o",
                            output,
                            object,
                            descriptor,
                            libDir,
                            "-Wl,--no-as-needed",
                            "-lembrt",
                            "-Wl,--enable-new-dtags",
                            "-Wl,-rpath,$ORIGIN",
                            "-lm",
                            NULL};
  return runCompiler(linkArgs, "link the shared object");
}
