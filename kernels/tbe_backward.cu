//===- kernels/tbe_backward.cu - The fused TBE backward on CUDA -*- C++ -*-===//
//
// The backward of emb.tbe with the optimizer fused (emb.tbe_backward, and
// emb.embedding_bag_backward as a TBE of one table): for every (table, row)
// that some bag position touched, the sum of the gradient rows of those
// positions (times the per-sample weight, or 1 / the bag's count for mean
// pooling; the position's own row for pooling NONE), then one SGD, exact
// rowwise Adagrad or Adam update of the row and its state, in place. No
// weight gradient is materialised. Tables f32, f16 or bf16 (rows written
// back with seeded stochastic rounding, kernels/stochastic_rounding.h),
// states f32 unless stated (below), gradients f32 or the table dtype, i32 or
// i64 ids and offsets, pooling sum, mean or none, mixed D (1..2048), shared
// tables, padding ids, all four bounds-check modes.
//
// The step, all on the stream, no host synchronisation and no allocation
// (every scratch byte, CUB's temporary storage included, is the caller's
// workspace, sized from the shapes and N alone):
//
//   1. linearizeKernel: one warp per 32 consecutive bags. The warp reads the
//      33 offsets once, checks them (bad ones go to the device error record,
//      and are clamped so that every position is written exactly once by
//      some warp), then walks the bags' positions 32 at a time, coalesced:
//      each lane finds its position's bag among the 33 offsets with a
//      5-step shuffle search (no per-position search over all offsets, no
//      bag-id pass), and writes the position's key, (table, row) linearised
//      in the key order below, and its value: what the gradient gather
//      needs (the gradient row's first element for SUM, the bag for MEAN,
//      the position for weighted SUM and NONE). Padding ids and ids outside
//      their table get the sentinel key (the total row count), which sorts
//      last and is dropped. MEAN: per-bag counts in shared memory, then
//      1 / count per bag.
//   2. cub::DeviceRadixSort::SortPairs (key, value), keys of 32 bits when
//      the total row count fits (half the sort's work), only the key bits in
//      use (22 of them for 32 tables of 1e5 rows: 3 passes of 8 bits).
//      Stable, so each run's positions stay in position order: the sums are
//      deterministic.
//   3. cub::DeviceRunLengthEncode::Encode: unique keys and run lengths, the
//      run count in device memory; cub::DeviceScan::ExclusiveSum of the
//      lengths: run starts.
//   4. classifyKernel: persistent, over the runs the encode counted (read
//      from device memory). Each block finds where each D bucket's runs
//      begin and end (keys are ordered by bucket), and routes runs of at
//      least `threshold` positions (the routing table,
//      kernels/tbe_backward_config.h) as long: a descriptor and
//      max(1, n / chunk) chunk items per run, allocated with one 64-bit
//      atomic per block and bucket (descriptor and chunk counts packed, so
//      both come from one allocation) and a block prefix sum; the block
//      writes the chunk items together.
//   5. accumulateKernel, one launch per D bucket (gather width below),
//      persistent, counts read from device memory. A group of G lanes first
//      takes long chunks: it gathers the chunk's gradient rows, stores the
//      partial sum in its slot of the workspace, fences (device scope) and
//      counts the run's chunks down; the group that takes the count to zero
//      sums all partials of the run in chunk order and applies the update
//      (the same launch: no second kernel, no global barrier; the fence
//      before the count and the fence after it make every partial visible to
//      the last group). Then it takes units of 8 consecutive short runs: a
//      short run is owned whole by the group: gather, accumulate in f32
//      registers, optimizer, plain stores. The next run's descriptor and
//      table row are loaded while the current run's gradient rows are
//      gathered (a two-deep software pipeline), so the table row's DRAM
//      latency hides under the gather.
//      By default (EMB_TBE_BWD_OCC=1, since call 6) the short runs go to a
//      kernel of their own instead (shortRunsKernel): one run a group, no
//      pipeline, 6 CTAs an SM, launched after this one, which then takes
//      only the long chunks; the pipeline above is EMB_TBE_BWD_OCC=0.
//
// Key order: tables sorted by D bucket (then by index), each table's rows
// contiguous. So each bucket's runs are one contiguous range of runs, found
// in step 4 without a search, and a launch per bucket needs no list of
// short runs at all.
//
// Gather width (kernels/tbe_backward_config.h): lane l of a group holds
// columns [l * E, l * E + E) of the row, E * sizeof(gradient) <= 16 bytes
// (32 for f32 rows wider than 1024), G = the power of two of lanes that
// covers D (up to 256: groups of several warps synchronise on named
// barriers). Per lane, 8 gradient rows (4 at 32 bytes) are in flight per
// batch: at most 32 registers of loads whatever D is.
//
// Files, split as FBGEMM splits its backward. They are parts of one
// translation unit, this file, which includes them (each part's code is in
// the anonymous namespace): the kernels compile to the code they had as one
// file, and a variant (kernels/variants.cmake) stays one object whose only
// external symbols are its suffixed entry points.
//   kernels/tbe_backward/common.cuh      knobs, launch metadata, device
//                                        helpers, groups of lanes
//   kernels/tbe_backward/sort.cuh        steps 1 and 4: linearize, classify
//   kernels/tbe_backward/update.cuh      the gather and the row update that
//                                        long and short runs share
//   kernels/tbe_backward/long_runs.cuh   step 5: the accumulate kernel (and
//                                        the per-run pipeline)
//   kernels/tbe_backward/short_runs.cuh  short runs: shortRunsKernel
//   kernels/tbe_backward/launch.cuh      instantiations, the host plan of a
//                                        call, the launch of its steps
//   kernels/tbe_backward_config.h        routing and gather widths (plain C,
//                                        CPU-tested)
//   kernels/tbe_common.cuh               loads of ids, offsets and weights
//                                        and the bad-offsets report, shared
//                                        with the forward
//

#include "kernels/launch.h"
#include "kernels/tbe_backward/launch.cuh"

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// Variants (kernels/variants.cmake) append EMB_TBE_BWD_SUFFIX to the entry
// points' names, so that a benchmark links them beside the library's.
#ifdef EMB_TBE_BWD_SUFFIX
#define EMB_TBE_BWD_PASTE2(a, b) a##b
#define EMB_TBE_BWD_PASTE(a, b) EMB_TBE_BWD_PASTE2(a, b)
#define EMB_TBE_BWD_ENTRY(name) EMB_TBE_BWD_PASTE(name, EMB_TBE_BWD_SUFFIX)
#else
#define EMB_TBE_BWD_ENTRY(name) name
#endif

//===----------------------------------------------------------------------===//
// Entry points (called by runtime/cuda/)
//===----------------------------------------------------------------------===//

extern "C" embrtStatus EMB_TBE_BWD_ENTRY(embrtCudaTbeBackwardWorkspaceSize)(
    embrtLaunchEnv *env, const embrtTbeBackwardArgs *args, size_t *bytes) {
  *bytes = 0;
  const embrtTbeArgs *l = &args->lookup;
  if (l->numIndices > INT32_MAX - 1)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "tbe_backward: %lld ids, the CUDA backward takes "
                            "at most 2^31 - 2",
                            (long long)l->numIndices);
  Layout L;
  TRY(planLayout(env, args, &L));
  *bytes = L.total;
  return EMBRT_OK;
}

extern "C" embrtStatus EMB_TBE_BWD_ENTRY(embrtCudaLaunchTbeBackward)(
    embrtLaunchEnv *env, const embrtTbeBackwardArgs *args) {
  const embrtTbeArgs *l = &args->lookup;
  const int64_t T = l->numTables, F = l->numFeatures, B = l->batchSize;
  const int64_t N = l->numIndices;
  if (F == 0 || B == 0)
    return EMBRT_OK;
  if (N > INT32_MAX - 1 || F * B > INT32_MAX - 1)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "tbe_backward: %lld ids in %lld bags, the CUDA "
                            "backward takes at most 2^31 - 2 of each",
                            (long long)N, (long long)(F * B));
  for (int64_t t = 0; t < T; ++t)
    if (l->tableRows[t] > 0xffffffffll)
      return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                              "tbe_backward: table %lld has %lld rows, the "
                              "CUDA backward takes at most 2^32 - 1",
                              (long long)t, (long long)l->tableRows[t]);
  Layout L;
  TRY(planLayout(env, args, &L));
  if (args->workspaceBytes < L.total)
    return embrtLaunchError(env, EMBRT_INVALID_ARGUMENT,
                            "tbe_backward: workspace has %zu bytes, needs %zu",
                            args->workspaceBytes, L.total);
  // The kernels hold the gradient rows' pitch in 32 bits.
  const int64_t pitch = gradRowPitch(args);
  if (pitch > 0xffffffffll)
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "tbe_backward: gradient rows %lld elements apart, "
                            "the CUDA backward takes at most 2^32 - 1",
                            (long long)pitch);
  const int none = l->pooling == EMBRT_POOLING_NONE;

  Params *P = static_cast<Params *>(calloc(1, sizeof(Params)));
  TableMeta *tables =
      static_cast<TableMeta *>(calloc((size_t)T + 1, sizeof(TableMeta)));
  FeatureMeta *features =
      static_cast<FeatureMeta *>(calloc((size_t)F + 1, sizeof(FeatureMeta)));
  embrtStatus status = EMBRT_OK;
  if (!P || !tables || !features)
    status = embrtLaunchError(env, EMBRT_OUT_OF_MEMORY,
                              "tbe_backward: no host memory for metadata");
  if (status == EMBRT_OK)
    status = buildMeta(env, args, P, tables, features);
  if (status == EMBRT_OK) {
    char *ws = static_cast<char *>(args->workspace);
    cudaStream_t stream = static_cast<cudaStream_t>(env->stream);
    Shared &s = P->s;
    s.indices = l->indices;
    s.offsets = l->offsets;
    s.weights = l->perSampleWeights;
    s.grad = args->gradOutput;
    s.hyper = args->hyperParams;
    s.step = reinterpret_cast<const long long *>(args->step);
    s.errors = env->deviceErrors;
    s.ctrl = reinterpret_cast<Control *>(ws + L.ctrl);
    s.keys = ws + L.keys0;
    s.vals = reinterpret_cast<unsigned *>(ws + L.vals0);
    s.bagOf = L.bagOf ? reinterpret_cast<unsigned *>(ws + L.bagOf) : nullptr;
    s.invCount =
        L.invCount ? reinterpret_cast<float *>(ws + L.invCount) : nullptr;
    s.desc = reinterpret_cast<uint4 *>(ws + L.desc);
    s.chunks = reinterpret_cast<uint4 *>(ws + L.chunks);
    s.countdown = reinterpret_cast<unsigned *>(ws + L.countdown);
    s.partial = reinterpret_cast<float *>(ws + L.partial);
    s.batch = B;
    s.numIndices = N;
    s.numBags = F * B;
    s.paddingIdx = l->paddingIdx;
    s.sentinel = L.totalRows;
    s.seed = args->seed;
    s.gradPitch = (unsigned)pitch;
    s.cap = L.cap;
    s.partialStride = L.partialStride;
    s.threshold = (unsigned)(L.cfg->threshold < 0xffffffffll ? L.cfg->threshold
                                                             : 0xffffffffll);
    s.chunk = (unsigned)L.cfg->chunk;
    s.spacing = (unsigned)tbeBwdChunkSpacing(L.cfg);
    s.numTables = (int)T;
    s.numFeatures = (int)F;
    s.byBatch = makeFastDiv((unsigned)B);
    s.pooling = (unsigned char)l->pooling;
    s.bounds = (unsigned char)l->boundsCheck;
    s.idx64 = l->indexDtype == EMBRT_I64;
    s.off64 = l->offsetDtype == EMBRT_I64;
    s.weightKind = 0;
    if (l->perSampleWeights)
      s.weightKind = l->perSampleWeightDtype == EMBRT_F32   ? 1
                     : l->perSampleWeightDtype == EMBRT_F16 ? 2
                                                            : 3;
    s.hasPadding = l->hasPaddingIdx != 0;
    if (none)
      s.mode = MODE_POS_NONE;
    else if (l->perSampleWeights)
      s.mode = MODE_POS_WEIGHTED;
    else if (l->pooling == EMBRT_POOLING_MEAN)
      s.mode = MODE_BAG_MEAN;
    else if ((unsigned long long)B * (unsigned long long)pitch < 0xffffffffull)
      s.mode = MODE_ROW;
    else
      s.mode = MODE_BAG_SUM;
    s.optimizer = (unsigned char)args->optimizer;
    s.key64 = (unsigned char)L.key64;
    s.m1Prec = (unsigned char)args->momentum1Precision;
    s.m2Prec = (unsigned char)args->momentum2Precision;
    if (quantizedStates(args)) {
      // The fp8 states' scales by slot, where the kernels read them.
      StateMeta *sm =
          static_cast<StateMeta *>(calloc((size_t)T + 1, sizeof(StateMeta)));
      if (!sm || L.stateMeta != kStateMetaOffset)
        status = embrtLaunchError(env, EMBRT_OUT_OF_MEMORY,
                                  "tbe_backward: no host memory for metadata");
      for (int64_t slot = 0; sm && slot < T; ++slot) {
        const int t = tables[slot].index;
        if (args->momentum1Scales)
          sm[slot].m1Scale = static_cast<float *>(args->momentum1Scales[t]);
        if (args->momentum2Scales)
          sm[slot].m2Scale = static_cast<float *>(args->momentum2Scales[t]);
      }
      // Staged from pageable memory before cudaMemcpyAsync returns.
      if (status == EMBRT_OK)
        status = embrtCudaCheck(env,
                                cudaMemcpyAsync(ws + L.stateMeta, sm,
                                                (size_t)T * sizeof(StateMeta),
                                                cudaMemcpyHostToDevice, stream),
                                "tbe_backward: state metadata copy");
      free(sm);
    }
    if (status == EMBRT_OK && L.globalMeta) {
      char *meta = ws + L.meta;
      const size_t tableBytes = (size_t)T * sizeof(TableMeta);
      // Staged from pageable memory before cudaMemcpyAsync returns.
      status = embrtCudaCheck(env,
                              cudaMemcpyAsync(meta, tables, tableBytes,
                                              cudaMemcpyHostToDevice, stream),
                              "tbe_backward: metadata copy");
      if (status == EMBRT_OK)
        status = embrtCudaCheck(env,
                                cudaMemcpyAsync(meta + tableBytes, features,
                                                (size_t)F * sizeof(FeatureMeta),
                                                cudaMemcpyHostToDevice, stream),
                                "tbe_backward: metadata copy");
      s.tablesGlobal = reinterpret_cast<const TableMeta *>(meta);
      s.featuresGlobal =
          reinterpret_cast<const FeatureMeta *>(meta + tableBytes);
    } else {
      memcpy(P->tables, tables, (size_t)T * sizeof(TableMeta));
      memcpy(P->features, features, (size_t)F * sizeof(FeatureMeta));
    }
    if (status == EMBRT_OK)
      status = L.key64 ? launchSteps<unsigned long long>(env, args, L, *P)
                       : launchSteps<unsigned>(env, args, L, *P);
  }
  free(P);
  free(tables);
  free(features);
  return status;
}
