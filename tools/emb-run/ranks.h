//===- tools/emb-run/ranks.h - emb-run --ranks: one process a rank -*- C
//-*-===//
//
// The launcher of `emb-run --ranks N` and what each rank's process does
// before it runs (ranks.c): N processes of emb-run itself, the
// communicator's id made by rank 0 and sent to the others through pipes.
// MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TOOLS_RANKS_H
#define EMB_TOOLS_RANKS_H

#include "emb/runtime.h"

#include <stdbool.h>

/// The most ranks emb-run starts.
enum { EMB_RUN_MAX_RANKS = 1024 };

/// Starts `numRanks` copies of this program (argv[0..argc) plus
/// `--rank-process R:FDS`), waits for them and relays their stdout and
/// stderr in rank order, each line prefixed "rank R: ". Returns 0 when every
/// rank exited with 0.
int embRanksLaunch(int argc, char **argv, int numRanks);

/// Parses the value of --rank-process, "R:FD,FD,...": the rank and the pipe
/// ends it was given (rank 0: one to each other rank; rank R > 0: its own).
/// Returns 0, or -1 when it is malformed.
int embRanksParseProcess(const char *value, int *rank, int *fds, int maxFds,
                         int *numFds);

/// Rank 0 makes the communicator's id for `device` and writes it to `fds`;
/// another rank reads it from its one fd. The fds are closed. Returns 0, or
/// -1 after printing why.
int embRanksExchangeId(int rank, const int *fds, int numFds, embrtDevice device,
                       embrtCommId *id);

#endif // EMB_TOOLS_RANKS_H
