//===- tools/emb-run/ranks.c - emb-run --ranks: one process a rank --------===//
//
// `emb-run --ranks N` runs a sharded model as N processes, one a rank (and a
// GPU on CUDA: NCCL refuses two ranks of one communicator on one GPU). The
// launcher (this process) starts N copies of itself with the internal
// option `--rank-process R:FDS`, each with its stdout and stderr in a file
// of its own (unlinked at once, so nothing is left behind), waits for them
// and relays their output in rank order, each line prefixed "rank R: ".
//
// The communicator's id is made by rank 0 (ncclGetUniqueId on CUDA, where
// its bootstrap lives in the process that made it) and sent to the other
// ranks through pipes the launcher made: rank 0 gets their write ends (FDS
// lists them), rank R > 0 the read end of its own. emb builds no transport
// of its own: the pipes carry the 128 bytes of the id, and NCCL does the
// rest.
//
// A rank that fails may leave the others waiting in a collective for ever:
// once one has failed, the launcher gives the others a grace period and then
// stops them (SIGKILL, by their process ids) and says so.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "ranks.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/// How long the other ranks may run on once one has failed.
enum { graceSeconds = 20 };

//===----------------------------------------------------------------------===//
// The communicator's id (in a rank)
//===----------------------------------------------------------------------===//

/// Writes or reads all `n` bytes; false on an error or an early end.
static bool writeAll(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n > 0) {
    ssize_t k = write(fd, c, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return false;
    c += k;
    n -= (size_t)k;
  }
  return true;
}

static bool readAll(int fd, void *p, size_t n) {
  char *c = p;
  while (n > 0) {
    ssize_t k = read(fd, c, n);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return false;
    c += k;
    n -= (size_t)k;
  }
  return true;
}

int embRanksParseProcess(const char *value, int *rank, int *fds, int maxFds,
                         int *numFds) {
  char *end = NULL;
  long r = strtol(value, &end, 10);
  if (end == value || r < 0 || r >= EMB_RUN_MAX_RANKS || *end != ':')
    return -1;
  *rank = (int)r;
  *numFds = 0;
  for (const char *p = end + 1; *p;) {
    long fd = strtol(p, &end, 10);
    if (end == p || fd < 0 || *numFds >= maxFds)
      return -1;
    fds[(*numFds)++] = (int)fd;
    p = *end == ',' ? end + 1 : end;
    if (*end && *end != ',')
      return -1;
  }
  return 0;
}

int embRanksExchangeId(int rank, const int *fds, int numFds, embrtDevice device,
                       embrtCommId *id) {
  if (rank == 0) {
    embrtStatus st = embrtCommGetUniqueId(device, id);
    for (int i = 0; i < numFds; ++i) {
      if (st == EMBRT_OK && !writeAll(fds[i], id->bytes, sizeof id->bytes)) {
        fprintf(stderr,
                "emb-run: error: rank 0: sending the communicator's id: %s\n",
                strerror(errno));
        st = EMBRT_DEVICE_ERROR;
      }
      close(fds[i]);
    }
    if (st != EMBRT_OK)
      fprintf(stderr,
              "emb-run: error: rank 0: making the communicator's id "
              "(embrtCommGetUniqueId): %s%s\n",
              embrtStatusName(st),
              st == EMBRT_UNSUPPORTED && device == EMBRT_DEVICE_CUDA
                  ? " (this build of the runtime has no CUDA, or no NCCL)"
                  : "");
    return st == EMBRT_OK ? 0 : -1;
  }
  bool ok = numFds == 1 && readAll(fds[0], id->bytes, sizeof id->bytes);
  if (numFds == 1)
    close(fds[0]);
  if (!ok)
    fprintf(stderr,
            "emb-run: error: rank %d: rank 0 sent no communicator id (it "
            "failed before making one: see its messages)\n",
            rank);
  return ok ? 0 : -1;
}

//===----------------------------------------------------------------------===//
// The launcher
//===----------------------------------------------------------------------===//

/// A file for a rank's output: made, opened and unlinked at once.
static int anonymousFile(void) {
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/emb-run-rank-XXXXXX",
           dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd >= 0)
    unlink(path);
  return fd;
}

/// Prints the file `fd` holds to `to`, each line prefixed "rank R: ".
static void relay(int fd, FILE *to, int rank) {
  if (lseek(fd, 0, SEEK_SET) < 0)
    return;
  FILE *from = fdopen(fd, "r");
  if (!from)
    return;
  char line[4096];
  bool start = true;
  while (fgets(line, sizeof line, from)) {
    if (start)
      fprintf(to, "rank %d: ", rank);
    fputs(line, to);
    start = strchr(line, '\n') != NULL;
  }
  if (!start)
    fputc('\n', to);
  fclose(from);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int embRanksLaunch(int argc, char **argv, int numRanks) {
  int n = numRanks;
  pid_t *pids = calloc((size_t)n, sizeof *pids);
  int *outs = calloc((size_t)n, sizeof *outs),
      *errs = calloc((size_t)n, sizeof *errs);
  int *status = calloc((size_t)n, sizeof *status);
  bool *done = calloc((size_t)n, sizeof *done), *killed = calloc((size_t)n, 1);
  int(*pipes)[2] = calloc((size_t)n, sizeof *pipes);
  char **childArgv = calloc((size_t)argc + 3, sizeof *childArgv);
  char *fdList = calloc((size_t)n * 12 + 16, 1);
  int result = 1, started = 0;
  if (!pids || !outs || !errs || !status || !done || !killed || !pipes ||
      !childArgv || !fdList) {
    fprintf(stderr, "emb-run: error: out of memory\n");
    goto cleanup;
  }
  for (int r = 0; r < n; ++r)
    outs[r] = errs[r] = pipes[r][0] = pipes[r][1] = -1;
  // A pipe to each rank but 0, which writes the id into all of them.
  for (int r = 1; r < n; ++r)
    if (pipe(pipes[r]) != 0) {
      fprintf(stderr, "emb-run: error: pipe: %s\n", strerror(errno));
      goto cleanup;
    }
  for (int r = 0; r < n; ++r) {
    outs[r] = anonymousFile();
    errs[r] = anonymousFile();
    if (outs[r] < 0 || errs[r] < 0) {
      fprintf(stderr, "emb-run: error: a file for rank %d's output: %s\n", r,
              strerror(errno));
      goto cleanup;
    }
  }
  fflush(stdout);
  fflush(stderr);
  for (int r = 0; r < n; ++r) {
    // --rank-process R:FDS, after the launcher's own arguments.
    char process[32];
    size_t at = 0;
    fdList[0] = '\0';
    if (r == 0)
      for (int k = 1; k < n; ++k)
        at += (size_t)snprintf(fdList + at, 12, "%s%d", k > 1 ? "," : "",
                               pipes[k][1]);
    else
      snprintf(fdList, 12, "%d", pipes[r][0]);
    snprintf(process, sizeof process, "%d:", r);
    char *arg = malloc(strlen(process) + strlen(fdList) + 1);
    if (!arg) {
      fprintf(stderr, "emb-run: error: out of memory\n");
      goto cleanup;
    }
    strcpy(arg, process);
    strcat(arg, fdList);
    int k = 0;
    childArgv[k++] = argv[0];
    for (int i = 1; i < argc; ++i)
      childArgv[k++] = argv[i];
    childArgv[k++] = "--rank-process";
    childArgv[k++] = arg;
    childArgv[k] = NULL;
    pid_t pid = fork();
    if (pid < 0) {
      fprintf(stderr, "emb-run: error: fork: %s\n", strerror(errno));
      free(arg);
      goto cleanup;
    }
    if (pid == 0) {
      // The rank keeps its own ends of the pipes only.
      for (int q = 1; q < n; ++q) {
        if (r != 0)
          close(pipes[q][1]);
        if (q != r)
          close(pipes[q][0]);
      }
      dup2(outs[r], STDOUT_FILENO);
      dup2(errs[r], STDERR_FILENO);
      execv("/proc/self/exe", childArgv);
      fprintf(stderr, "emb-run: error: starting rank %d: %s\n", r,
              strerror(errno));
      _exit(127);
    }
    free(arg);
    pids[r] = pid;
    ++started;
  }
  // The ranks hold the pipes now.
  for (int r = 1; r < n; ++r) {
    close(pipes[r][0]);
    close(pipes[r][1]);
    pipes[r][0] = pipes[r][1] = -1;
  }
  fprintf(stderr, "emb-run: started %d rank%s\n", n, n > 1 ? "s" : "");
  double deadline = 0;
  int left = n, firstFailed = -1;
  while (left > 0) {
    int st = 0;
    pid_t pid = waitpid(-1, &st, WNOHANG);
    if (pid > 0) {
      for (int r = 0; r < n; ++r)
        if (pids[r] == pid && !done[r]) {
          done[r] = true;
          status[r] = st;
          --left;
          bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
          if (!ok && firstFailed < 0) {
            firstFailed = r;
            deadline = now() + graceSeconds;
          }
        }
      continue;
    }
    if (pid < 0 && errno != EINTR)
      break;
    if (firstFailed >= 0 && now() > deadline) {
      for (int r = 0; r < n; ++r)
        if (!done[r] && !killed[r]) {
          kill(pids[r], SIGKILL);
          killed[r] = true;
        }
    }
    struct timespec pause = {0, 20 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  result = 0;
  for (int r = 0; r < n; ++r) {
    relay(outs[r], stdout, r);
    relay(errs[r], stderr, r);
    outs[r] = errs[r] = -1; // closed by relay
  }
  fflush(stdout);
  for (int r = 0; r < n; ++r) {
    int st = status[r];
    if (killed[r]) {
      fprintf(stderr,
              "emb-run: error: rank %d was stopped %d s after rank %d "
              "failed (it would have waited in a collective for ever)\n",
              r, graceSeconds, firstFailed);
      result = 1;
    } else if (WIFSIGNALED(st)) {
      fprintf(stderr, "emb-run: error: rank %d died of signal %d\n", r,
              WTERMSIG(st));
      result = 1;
    } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "emb-run: error: rank %d failed (exit status %d)\n", r,
              WIFEXITED(st) ? WEXITSTATUS(st) : -1);
      result = 1;
    }
  }
  if (result == 0)
    fprintf(stderr,
            "emb-run: --ranks %d: every rank's result matches the unsharded "
            "CPU reference of its batch\n",
            n);
cleanup:
  for (int r = 0; pids && r < n; ++r) {
    if (r >= started || done[r])
      continue;
    kill(pids[r], SIGKILL); // only after a failure to start them all
    waitpid(pids[r], NULL, 0);
  }
  for (int r = 0; pipes && r < n; ++r) {
    if (pipes[r][0] >= 0)
      close(pipes[r][0]);
    if (pipes[r][1] >= 0)
      close(pipes[r][1]);
    if (outs && outs[r] >= 0)
      close(outs[r]);
    if (errs && errs[r] >= 0)
      close(errs[r]);
  }
  free(pids);
  free(outs);
  free(errs);
  free(status);
  free(done);
  free(killed);
  free(pipes);
  free(childArgv);
  free(fdList);
  return result;
}
