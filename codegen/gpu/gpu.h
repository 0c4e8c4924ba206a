//===- codegen/gpu/gpu.h - What the GPU lowering shares ---------*- C -*-===//
//
// On the cuda target, the ops of a function the runtime has no call for
// (linalg ops other than the matmul chains of gemm.c, and elementwise arith
// and math on tensors beyond the runtime's own) become GPU kernels that MLIR
// generates, launched through embrtCompiledLaunchKernel on the buffers the
// runtime path assigned:
//
//   %y = linalg.generic {... ["parallel", "reduction"]} ins(%x) outs(%fill)
// becomes, in the function on buffers,
//   %ptx = llvm.mlir.addressof @__emb_kernels_0      // PTX text, NUL-ended
//   %name = llvm.mlir.addressof @__emb_kernel_name_0  // "emb_kernel_0_kernel"
//   call @embrtCompiledLaunchKernel(%ctx, %ptx, %bytes, %hash, %name,
//                                   %launch, %args, %nargs)
//
// One file per step, along MLIR's own GPU seams: the groups of ops and the
// function of buffers each is copied into (outline.c), each linalg.generic
// on buffers as a gpu.launch (loops.c), reductions across a block
// (reductions.c), the group's module through MLIR's pipelines to PTX
// (binary.c, which also lowers a group), and its host side as runtime calls
// (host.c). This header is what they share. Private to codegen/gpu/.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_CODEGEN_GPU_GPU_H
#define EMB_CODEGEN_GPU_GPU_H

#include "lowering.h"

#include "mlir-c/AffineMap.h"
#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/// Threads a block of the elementwise shape, and the most of the reduction
/// shape.
enum { blockThreads = 256 };
/// Reductions over fewer points run in the thread of their output point.
enum { minTreeReduction = 32 };

/// The most blocks a launch's x dim takes (CUDA's gridDim.x limit).
enum { maxGridBlocks = 2147483647 };

enum { maxLoops = 8 };

//===----------------------------------------------------------------------===//
// Value maps (small: linear search; outline.c)
//===----------------------------------------------------------------------===//

typedef struct ValueMap {
  const void **keys;
  MlirValue *values;
  size_t count, cap;
} ValueMap;

void embGpuMapPut(ValueMap *m, MlirValue key, MlirValue value);
MlirValue embGpuMapGet(const ValueMap *m, MlirValue key);
void embGpuMapFree(ValueMap *m);

/// A copy of `op` at the builder's point with its operands (and those of the
/// ops nested in it) remapped through `m`; its results are mapped.
MlirOperation embGpuCloneMapped(EmbBuilder *b, MlirOperation op, ValueMap *m);

static inline MlirValue result0(MlirOperation op) {
  return mlirOperationGetResult(op, 0);
}

static inline MlirValue constIndex(EmbBuilder *b, int64_t v) {
  return embBuildConstIndex(b, v);
}

enum { cmpEq = 0, cmpUlt = 6 };

//===----------------------------------------------------------------------===//
// The groups and their functions (outline.c)
//===----------------------------------------------------------------------===//

/// One group: consecutive kernel ops of the function's block.
typedef struct EmbGpuKernelGroup {
  const void **ops;
  size_t numOps;
} EmbGpuKernelGroup;

/// The group `op` belongs to, or NULL.
EmbGpuKernelGroup *embGpuGroupOf(EmbLowering *l, MlirOperation op);

/// What a group reads and writes, and what it copies.
typedef struct Interface {
  MlirValue *inputs, *outputs;
  size_t numInputs, numOutputs;
} Interface;

/// The function of a group's kernels, in `module`: its inputs, then its
/// outputs, as buffers. False (with `why`) when a value it reads cannot be
/// passed or copied.
bool embGpuBuildGroupFunction(EmbLowering *l, const EmbGpuKernelGroup *g,
                              MlirBlock fnBody, MlirModule module,
                              const char *name, Interface *io, char *why,
                              size_t n);

//===----------------------------------------------------------------------===//
// A linalg.generic on buffers as a gpu.launch (loops.c)
//===----------------------------------------------------------------------===//

/// What the kernel of one generic needs to know of it.
typedef struct Generic {
  MlirOperation op;
  intptr_t numIns, numOuts, numLoops;
  MlirValue operands[32];
  MlirAffineMap maps[32];
  bool reduction[maxLoops];
  int64_t extent[maxLoops];
  MlirBlock body;
} Generic;

/// The parallel and the reduction loops of `g`, in order, and how many
/// points each set spans.
typedef struct Loops {
  int par[maxLoops], red[maxLoops], np, nr;
  int64_t points, reduced;
} Loops;

/// Reads `op` into `g`; false (with `why`) if no kernel shape takes it.
bool embGpuReadGeneric(MlirOperation op, Generic *g, char *why, size_t n);

Loops embGpuSplitLoops(const Generic *g);

/// scf.if %cond without results: the builder moves into its then block,
/// before its scf.yield.
void embGpuBuildIf(EmbBuilder *b, MlirValue cond);

/// scf.for %iv = lb to ub step s iter_args(inits): returns the op; `body`
/// gets its block (iv, then the iteration values), which the caller ends
/// with an scf.yield.
MlirOperation embGpuBuildFor(EmbBuilder *b, MlirValue lb, MlirValue ub,
                             MlirValue step, intptr_t n, const MlirValue *inits,
                             MlirBlock *body);

/// gpu.launch with a grid of `grid` x 1 x 1 blocks of `threads` x 1 x 1
/// threads, before `b`'s point; `body` gets its block (block ids, thread
/// ids, grid and block sizes), ended with gpu.terminator.
MlirOperation embGpuBuildLaunch(EmbBuilder *b, int64_t grid, int64_t threads,
                                MlirBlock *body);

/// Splits `linear` into the loop indices of the dims `dims` (the last one
/// fastest) into `idx`.
void embGpuDelinearize(EmbBuilder *b, const Generic *g, MlirValue linear,
                       const int *dims, int n, MlirValue *idx);

/// Operand `i`'s element at loop point `idx`, and a store of `v` there.
MlirValue embGpuLoad(EmbBuilder *b, const Generic *g, intptr_t i,
                     const MlirValue *idx);
void embGpuStore(EmbBuilder *b, const Generic *g, intptr_t i,
                 const MlirValue *idx, MlirValue v);

/// Copies the body's ops but `skip` (and the yield) at the builder's point,
/// with its arguments mapped in `m` and linalg.index as `idx`; the values
/// the yield returns go to `yielded`.
void embGpuCloneBody(EmbBuilder *b, const Generic *g, ValueMap *m,
                     const MlirValue *idx, MlirOperation skip,
                     MlirValue *yielded);

/// The start of the body of a loop over the reduction points (its
/// induction variable the linear reduction index): the loop indices `ridx`
/// (the parallel ones `idx`, the reduction ones from the variable) and every
/// input's element there, mapped to the body's arguments in `m`. Returns a
/// builder at the end of the loop's block.
EmbBuilder embGpuEnterReductionLoop(const EmbBuilder *outer, const Generic *g,
                                    MlirBlock loop, const MlirValue *idx,
                                    const Loops *lp, MlirValue *ridx,
                                    ValueMap *m);

/// A thread per point of the parallel dims; reduction dims loop in it.
MlirOperation embGpuLowerPointwise(EmbBuilder *host, const Generic *g);

//===----------------------------------------------------------------------===//
// Reductions across a block (reductions.c)
//===----------------------------------------------------------------------===//

/// A combiner the block reduction knows: its gpu.all_reduce kind and the
/// neutral element.
typedef struct Combiner {
  const char *op, *kind;
  bool isFloat;
  double neutral;
} Combiner;

/// Whether `g` is a reduction the block shape takes: one output, whose
/// body argument only the yielded combiner reads. Sets the combiner, its op
/// in the body and which operand is the accumulator.
bool embGpuMatchTree(const Generic *g, const Combiner **c, MlirOperation *op,
                     intptr_t *accPos);

/// A block per output point: each thread reduces a strided part, then the
/// block reduces the threads' parts (gpu.all_reduce).
MlirOperation embGpuLowerTree(EmbBuilder *host, const Generic *g,
                              const Combiner *c, MlirOperation combinerOp,
                              intptr_t accPos);

//===----------------------------------------------------------------------===//
// The host side, as runtime calls (host.c)
//===----------------------------------------------------------------------===//

/// Emits the host function of the compiled module `module` (function
/// `fn`) as runtime calls in the lowered function, its arguments being the
/// buffers `args`.
bool embGpuEmitHost(EmbLowering *l, MlirModule module, MlirOperation fn,
                    const MlirValue *args, char *why, size_t n);

#endif // EMB_CODEGEN_GPU_GPU_H
