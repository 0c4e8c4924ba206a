//===- tools/emb-run/runner.h - Running a compiled model ---------*- C -*-===//
//
// The part of emb-run that needs no MLIR: make or load inputs, put them on
// the device, call an entry (EmbModelSpec), time it, bring the results back,
// write them and compare two entries on the same inputs. emb-run (JIT) and
// emb-run-aot (a model compiled ahead of time, linked on a GPU machine) are
// two front ends of it.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_TOOLS_RUNNER_H
#define EMB_TOOLS_RUNNER_H

#include "emb/model.h"
#include "emb/runtime.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct EmbRunOptions {
  embrtDevice device;
  int ordinal;
  const char *const *inputs; ///< .npy paths, one per input, in order
  int numInputs;
  bool random; ///< make valid random inputs instead
  uint64_t seed;
  int64_t dynamicSize;   ///< ids per bag where a length of ids is
                         ///< dynamic; default 4, 0: every bag empty
  const char *outputDir; ///< write results as .npy there (NULL: no)
  int repeat;            ///< timed runs after one warm-up (0: just run)
  double atol, rtol;     ///< comparison tolerance (< 0: per dtype)
  bool print;            ///< print a summary of each result on stdout
  bool cudaGraph;        ///< also capture one call into a CUDA graph, check its
                  ///< replay against a direct call and time `repeat` replays
  /// A sharded program's world (emb-shard's emb.world_size; 0: none): the
  /// contexts join a communicator of `worldSize` ranks as `rank`, from
  /// `commId` (NULL: a world of one, which needs none).
  int worldSize, rank;
  const embrtCommId *commId;
  /// The entry's argument names as its source spells them (`%table`), one
  /// per input, for the comparison's messages; NULL (or a NULL name) where
  /// not known, as in a model compiled ahead of time.
  const char *const *inputNames;
} EmbRunOptions;

/// The defaults: cpu, seed 1, 4 ids per bag, tolerance per dtype.
void embRunOptionsInit(EmbRunOptions *opts);

/// Runs `model` once (plus `repeat` timed runs), and, when `reference` is
/// set, runs it on its own copies of the same inputs and checks that the
/// two computed the same: the largest absolute and relative difference per
/// result, and per argument either call updated in place, each within the
/// tolerance; when a call fails, both outcomes (an error on one side only
/// is a mismatch, an error on both agrees). Progress and timings go to
/// stderr, results and the comparison to stdout. Returns 0 on success, 1 on
/// any error (both sides failing included) or mismatch.
int embRunModel(const EmbModelSpec *model, const EmbModelSpec *reference,
                const EmbRunOptions *opts);

/// Where input `i` of a rank's program lies in input `i` of the unsharded
/// function (embShardArgumentWindow): a window of rows and columns of a
/// table (`cut`), or the whole input.
typedef struct EmbShardWindow {
  bool cut;
  int64_t offsets[2], sizes[2];
} EmbShardWindow;

/// Runs rank `opts->rank`'s program `model` of a world of `opts->worldSize`
/// ranks (its context joined to the world from `opts->commId`) on random
/// inputs, and `reference`, the unsharded function, on a CPU context: the
/// tables come from `opts->seed` alone (one set for every rank, each rank's
/// program given its shards of them by `windows`), the rest of the inputs
/// (the rank's batch) from the seed and the rank. Compares each result with
/// the reference's as embRunModel does. Returns 0 when they match.
int embRunRank(const EmbModelSpec *model, const EmbModelSpec *reference,
               const EmbShardWindow *windows, const EmbRunOptions *opts);

/// Parses the shared command-line options (--device, --inputs, --input,
/// --random-inputs, --seed, --output-dir, --repeat, --atol, --rtol,
/// --dynamic-size, --print, --cuda-graph) at argv[*i], advancing *i. Returns 1
/// if it took the argument, 0 if it is not one of these, -1 on a bad value
/// (reported).
int embRunParseOption(int argc, char **argv, int *i, EmbRunOptions *opts,
                      const char *tool);

/// The help text of those options.
extern const char *const embRunOptionsHelp;

#endif // EMB_TOOLS_RUNNER_H
