//===- codegen/lower_to_runtime.c - emb-lower-to-runtime ------------------===//
//
// Lowers every function of a module from tensors to calls into the emb
// runtime (include/emb/compiled.h), buffer by buffer:
//
//   func.func @f(%a: tensor<...>, ...) -> (tensor<...>, ...)
// becomes
//   func.func @f(%ctx: !llvm.ptr, %a: memref<...>, ..., %r0: memref<...>, ...)
//       attributes {llvm.emit_c_interface, emb.target = "cuda",
//                   emb.num_results = N}
//
// Results are written into caller-provided buffers (the trailing memrefs);
// the op that computes a returned value writes straight into its buffer.
// Every other tensor is a buffer allocated through the runtime
// (embrtCompiledAlloc: device memory on CUDA, never managed memory) and freed
// before the function returns; expand_shape, collapse_shape and cast alias
// their operand's buffer. Each op becomes one call whose attrs array carries
// what is known at compile time (dtypes, enums, the launch configuration) and
// whose dims array carries sizes, constant where the shape is static.
//
// The lowering is the same for both targets: the compiled code runs on the
// device of the runtime context it is given, so every op must map to the
// runtime (emb ops, tensor.concat/extract_slice/expand_shape/collapse_shape/
// cast/empty/dim, splat constants, elementwise arith and math on tensors, and
// scalar arith, which is copied). Anything else is an error naming the op.
// `target` selects the launch configurations and is recorded for the runner.
// emb.ikbo_lce reads its weights as strided views and through zero padding of
// K, so the copies that would feed it are not made (planReadThrough).
//
// Precondition: the module verifies. Postcondition: no tensor values remain;
// the functions use only func, arith, memref and llvm ops.
//
//===----------------------------------------------------------------------===//

#include "builder.h"
#include "codegen.h"
#include "ir.h"
#include "pass.h"

#include "emb/compiled.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Dialect/LLVM.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { maxRank = 8 };

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

typedef struct {
  EmbTarget target;
} Options;

//===----------------------------------------------------------------------===//
// Lowered values
//===----------------------------------------------------------------------===//

/// A size: a constant (`c` >= 0) or an i64 value computed at run time.
typedef struct {
  MlirValue v;
  int64_t c;
} Dim;

/// What an old value became: a tensor's buffer and sizes, or a scalar's new
/// value.
typedef struct {
  const void *key;
  bool isTensor;
  MlirValue value; ///< !llvm.ptr for tensors, the new value for scalars
  int rank;
  Dim dims[maxRank];
} Mapped;

typedef struct {
  Options opts;
  MlirContext ctx;
  MlirModule module;
  EmbBuilder b;
  MlirValue ctxArg;
  Mapped *map; ///< open addressing on the value's pointer
  size_t mapCap, mapCount;
  MlirValue *owned; ///< buffers to free before returning
  size_t numOwned, ownedCap;
  // Returned values and the out-parameter buffers they are written to.
  intptr_t numResults;
  const void **returned;
  Mapped *outs;
  bool *claimed;
  // What emb.ikbo_lce ops read through (see planReadThrough).
  struct IkboPlan *plans;
  size_t numPlans;
  const void **skipped; ///< producers left unlowered
  size_t numSkipped;
  bool failed;
} Lowering;

static size_t hashPtr(const void *p, size_t cap) {
  uintptr_t x = (uintptr_t)p;
  x ^= x >> 17;
  x *= 0xed5ad4bbu;
  x ^= x >> 11;
  return (size_t)x & (cap - 1);
}

static Mapped *lookup(Lowering *l, MlirValue v) {
  size_t i = hashPtr(v.ptr, l->mapCap);
  while (l->map[i].key) {
    if (l->map[i].key == v.ptr)
      return &l->map[i];
    i = (i + 1) & (l->mapCap - 1);
  }
  return NULL;
}

static void insert(Lowering *l, MlirValue v, const Mapped *m);

static void grow(Lowering *l) {
  Mapped *old = l->map;
  size_t oldCap = l->mapCap;
  l->mapCap *= 2;
  l->map = calloc(l->mapCap, sizeof(Mapped));
  for (size_t i = 0; i < oldCap; ++i)
    if (old[i].key)
      insert(l, (MlirValue){old[i].key}, &old[i]);
  free(old);
}

static void insert(Lowering *l, MlirValue v, const Mapped *m) {
  if ((l->mapCount + 1) * 2 > l->mapCap) {
    grow(l);
    l->mapCount = 0;
    for (size_t i = 0; i < l->mapCap; ++i)
      l->mapCount += l->map[i].key != NULL;
  }
  size_t i = hashPtr(v.ptr, l->mapCap);
  while (l->map[i].key && l->map[i].key != v.ptr)
    i = (i + 1) & (l->mapCap - 1);
  if (!l->map[i].key)
    ++l->mapCount;
  l->map[i] = *m;
  l->map[i].key = v.ptr;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static void fail(Lowering *l, MlirOperation op, const char *what) {
  char name[64];
  embOpName(op, name, sizeof name);
  embEmitErrorf(mlirOperationGetLocation(op),
                "'%s' op cannot be lowered to the emb runtime (target %s): %s",
                name, l->opts.target == EMB_TARGET_CUDA ? "cuda" : "cpu", what);
  l->failed = true;
}

static MlirValue dimValue(Lowering *l, Dim *d) {
  if (mlirValueIsNull(d->v))
    d->v = embBuildConstI64(&l->b, d->c);
  return d->v;
}

static Dim constDim(int64_t c) { return (Dim){{NULL}, c}; }

static Dim mulDim(Lowering *l, Dim a, Dim b) {
  if (a.c >= 0 && b.c >= 0)
    return constDim(a.c * b.c);
  if (a.c == 1)
    return b;
  if (b.c == 1)
    return a;
  Dim r = {embBuildMulI64(&l->b, dimValue(l, &a), dimValue(l, &b)), -1};
  return r;
}

static Dim product(Lowering *l, const Mapped *m, int from, int to) {
  Dim p = constDim(1);
  for (int i = from; i < to; ++i)
    p = mulDim(l, p, m->dims[i]);
  return p;
}

/// The runtime's code for an element type, or -1.
static int64_t dtypeOf(MlirType t) {
  if (mlirTypeIsAF32(t))
    return EMBRT_F32;
  if (mlirTypeIsAF16(t))
    return EMBRT_F16;
  if (mlirTypeIsABF16(t))
    return EMBRT_BF16;
  if (mlirTypeIsAF64(t))
    return EMBRT_F64;
  if (mlirTypeIsAInteger(t)) {
    unsigned w = mlirIntegerTypeGetWidth(t);
    if (w == 32)
      return EMBRT_I32;
    if (w == 64)
      return EMBRT_I64;
    if (w == 8 || w == 1)
      return EMBRT_I8;
  }
  return -1;
}

static int64_t elementBytes(MlirType tensorType) {
  int64_t d = dtypeOf(mlirShapedTypeGetElementType(tensorType));
  return d < 0 ? 0 : (int64_t)embrtDtypeSize((embrtDtype)d);
}

static int64_t dtypeOfValue(MlirValue v) {
  return dtypeOf(mlirShapedTypeGetElementType(mlirValueGetType(v)));
}

/// The lowered form of tensor operand `i` of `op`.
static Mapped *tensorOperand(Lowering *l, MlirOperation op, intptr_t i) {
  Mapped *m = lookup(l, mlirOperationGetOperand(op, i));
  if (!m || !m->isTensor) {
    fail(l, op, "an operand was not lowered");
    return NULL;
  }
  return m;
}

/// Whether the module has a symbol named `name`.
static bool hasSymbol(Lowering *l, const char *name) {
  MlirBlock body = mlirModuleGetBody(l->module);
  for (MlirOperation op = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, embStr("sym_name"));
    if (!mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym)) {
      MlirStringRef s = mlirStringAttrGetValue(sym);
      if (s.length == strlen(name) && !memcmp(s.data, name, s.length))
        return true;
    }
  }
  return false;
}

/// Declares `func.func private @name(types) -> result` once.
static void declare(Lowering *l, const char *name, const char *signature) {
  if (hasSymbol(l, name))
    return;
  MlirBlock body = mlirModuleGetBody(l->module);
  char text[512];
  snprintf(text, sizeof text, "func.func private @%s%s", name, signature);
  MlirOperation decl =
      mlirOperationCreateParse(l->ctx, embStr(text), embStr("emb-runtime"));
  mlirBlockInsertOwnedOperation(body, 0, decl);
}

static const char *const opSignature =
    "(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)";
static const char *const workspaceSignature =
    "(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr) -> i64";

/// The three arrays of one runtime call, built on the stack.
typedef struct {
  MlirValue attrs, buffers, dims;
} CallArrays;

static CallArrays buildArrays(Lowering *l, const int64_t *attrs, int64_t nAttrs,
                              const MlirValue *buffers, int64_t nBuffers,
                              Dim *dims, int64_t nDims) {
  MlirType i64 = embI64Type(l->ctx), ptr = embPtrType(l->ctx);
  CallArrays a;
  a.attrs = embBuildAlloca(&l->b, i64, nAttrs);
  for (int64_t i = 0; i < nAttrs; ++i)
    embBuildStoreAt(&l->b, a.attrs, i64, i, embBuildConstI64(&l->b, attrs[i]));
  a.buffers = embBuildAlloca(&l->b, ptr, nBuffers);
  for (int64_t i = 0; i < nBuffers; ++i)
    embBuildStoreAt(&l->b, a.buffers, ptr, i,
                    mlirValueIsNull(buffers[i]) ? embBuildNullPtr(&l->b)
                                                : buffers[i]);
  a.dims = embBuildAlloca(&l->b, i64, nDims);
  for (int64_t i = 0; i < nDims; ++i)
    embBuildStoreAt(&l->b, a.dims, i64, i, dimValue(l, &dims[i]));
  return a;
}

static void callRuntime(Lowering *l, const char *name, CallArrays a) {
  declare(l, name, opSignature);
  MlirValue args[4] = {l->ctxArg, a.attrs, a.buffers, a.dims};
  embBuildCall(&l->b, name, 4, args, (MlirType){NULL});
}

static MlirValue allocBytes(Lowering *l, Dim bytes) {
  declare(l, "embrtCompiledAlloc", "(!llvm.ptr, i64) -> !llvm.ptr");
  MlirValue args[2] = {l->ctxArg, dimValue(l, &bytes)};
  MlirValue p =
      embBuildCall(&l->b, "embrtCompiledAlloc", 2, args, embPtrType(l->ctx));
  if (l->numOwned == l->ownedCap) {
    l->ownedCap = l->ownedCap ? 2 * l->ownedCap : 16;
    l->owned = realloc(l->owned, l->ownedCap * sizeof(MlirValue));
  }
  l->owned[l->numOwned++] = p;
  return p;
}

/// Asks the runtime for the workspace of the call in `a`, allocates it and
/// stores it at buffers[bufIndex] and its size at dims[dimIndex].
static void addWorkspace(Lowering *l, const char *sizeFn, CallArrays a,
                         int64_t bufIndex, int64_t dimIndex) {
  declare(l, sizeFn, workspaceSignature);
  MlirValue args[4] = {l->ctxArg, a.attrs, a.buffers, a.dims};
  MlirValue bytes = embBuildCall(&l->b, sizeFn, 4, args, embI64Type(l->ctx));
  Dim d = {bytes, -1};
  MlirValue ws = allocBytes(l, d);
  embBuildStoreAt(&l->b, a.buffers, embPtrType(l->ctx), bufIndex, ws);
  embBuildStoreAt(&l->b, a.dims, embI64Type(l->ctx), dimIndex, bytes);
}

/// Makes the buffer of result `r` (a tensor of `type` with sizes `dims`):
/// the caller's out buffer if `r` is returned, else a new allocation.
static Mapped *defineResult(Lowering *l, MlirValue r, const Dim *dims) {
  MlirType type = mlirValueGetType(r);
  Mapped m;
  memset(&m, 0, sizeof m);
  m.isTensor = true;
  m.rank = (int)mlirShapedTypeGetRank(type);
  for (int i = 0; i < m.rank; ++i)
    m.dims[i] = dims[i];
  for (intptr_t i = 0; i < l->numResults; ++i) {
    if (l->returned[i] == r.ptr && !l->claimed[i]) {
      l->claimed[i] = true;
      m.value = l->outs[i].value;
      insert(l, r, &m);
      return lookup(l, r);
    }
  }
  Dim bytes =
      mulDim(l, product(l, &m, 0, m.rank), constDim(elementBytes(type)));
  m.value = allocBytes(l, bytes);
  insert(l, r, &m);
  return lookup(l, r);
}

/// Sizes of a result: static dims from its type, dynamic ones from `from`
/// (an operand's lowered dims, matched position by position).
static void resultDims(Lowering *l, MlirValue r, Dim *dims,
                       const Dim *fallback) {
  MlirType t = mlirValueGetType(r);
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i) {
    int64_t d = embDim(t, i);
    dims[i] = d >= 0 ? constDim(d) : fallback[i];
  }
  (void)l;
}

//===----------------------------------------------------------------------===//
// Reading through emb.ikbo_lce's operands
//===----------------------------------------------------------------------===//
//
// The runtime's ikbo_lce takes each weight as a strided view and reads zeros
// past K by itself, so two producers that emb-ikbo leaves in front of it are
// not materialised:
//   - zero padding of K: where the weight and the embeddings of one side are
//     both `tensor.concat dim(1) (%a, %zeros)` of a zero splat constant with
//     the same unpadded K, the op reads %a and %b with that K (the padding
//     only adds products of zeros);
//   - a column block of a wider weight: where the weight is
//     `tensor.extract_slice %w[0, c] [M, K] [1, 1]` of an [M, S] tensor, the
//     op reads %w from column c, rows S elements apart.
// A concat, extract_slice or tensor constant is then skipped when nothing
// else uses its result.

static bool hasTensor(MlirOperation op);

/// What one emb.ikbo_lce reads, per side (0: user, 1: candidate).
typedef struct IkboPlan {
  const void *op;
  MlirValue w[2], x[2]; ///< the weight (or its source) and the embeddings
  int64_t column[2];    ///< first column of the weight in w (a view), or 0
  bool view[2];         ///< w is the [M, S] source of a column view
} IkboPlan;

static bool isZeroSplat(MlirValue v) {
  if (!mlirValueIsAOpResult(v))
    return false;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!embOpIs(def, "arith.constant"))
    return false;
  MlirAttribute a = mlirOperationGetAttributeByName(def, embStr("value"));
  if (!mlirAttributeIsADenseElements(a) || !mlirDenseElementsAttrIsSplat(a))
    return false;
  MlirAttribute e = mlirDenseElementsAttrGetSplatValue(a);
  return mlirAttributeIsAFloat(e) && mlirFloatAttrGetValueDouble(e) == 0.0;
}

/// %a when `v` is `tensor.concat dim(1) (%a, %zeros)`, else null.
static MlirValue unpadded(MlirValue v) {
  MlirValue none = {NULL};
  if (!mlirValueIsAOpResult(v))
    return none;
  MlirOperation def = mlirOpResultGetOwner(v);
  int64_t dim = -1;
  if (!embOpIs(def, "tensor.concat") || !embGetIntAttr(def, "dim", &dim) ||
      dim != 1 || mlirOperationGetNumOperands(def) != 2 ||
      !isZeroSplat(mlirOperationGetOperand(def, 1)))
    return none;
  return mlirOperationGetOperand(def, 0);
}

/// Whether `v` is a column block [0, column] [M, K] [1, 1] of a rank-2
/// tensor with static offsets; sets *source and *column.
static bool columnView(MlirValue v, MlirValue *source, int64_t *column) {
  if (!mlirValueIsAOpResult(v))
    return false;
  MlirOperation def = mlirOpResultGetOwner(v);
  if (!embOpIs(def, "tensor.extract_slice") ||
      mlirOperationGetNumOperands(def) != 1)
    return false; // dynamic offsets, sizes or strides
  MlirValue src = mlirOperationGetOperand(def, 0);
  MlirType st = mlirValueGetType(src), rt = mlirValueGetType(v);
  if (mlirShapedTypeGetRank(st) != 2 || mlirShapedTypeGetRank(rt) != 2)
    return false;
  MlirAttribute offsets =
      mlirOperationGetAttributeByName(def, embStr("static_offsets"));
  MlirAttribute sizes =
      mlirOperationGetAttributeByName(def, embStr("static_sizes"));
  MlirAttribute strides =
      mlirOperationGetAttributeByName(def, embStr("static_strides"));
  if (mlirDenseI64ArrayGetElement(offsets, 0) != 0 ||
      mlirDenseI64ArrayGetElement(strides, 0) != 1 ||
      mlirDenseI64ArrayGetElement(strides, 1) != 1 || embDim(st, 0) < 0 ||
      mlirDenseI64ArrayGetElement(sizes, 0) != embDim(st, 0))
    return false;
  *source = src;
  *column = mlirDenseI64ArrayGetElement(offsets, 1);
  return true;
}

static IkboPlan *findPlan(Lowering *l, MlirOperation op) {
  for (size_t i = 0; i < l->numPlans; ++i)
    if (l->plans[i].op == op.ptr)
      return &l->plans[i];
  return NULL;
}

static bool isSkipped(Lowering *l, MlirOperation op) {
  for (size_t i = 0; i < l->numSkipped; ++i)
    if (l->skipped[i] == op.ptr)
      return true;
  return false;
}

/// Whether a plan reads `v` itself (then its producer must be lowered).
static bool readByPlan(Lowering *l, MlirValue v) {
  for (size_t i = 0; i < l->numPlans; ++i)
    for (int s = 0; s < 2; ++s)
      if (mlirValueEqual(l->plans[i].w[s], v) ||
          mlirValueEqual(l->plans[i].x[s], v))
        return true;
  return false;
}

/// Whether the use `u` still needs its value: not when it is a skipped op or
/// an emb.ikbo_lce operand that the op's plan replaced.
static bool useNeedsValue(Lowering *l, MlirOpOperand u) {
  MlirOperation owner = mlirOpOperandGetOwner(u);
  if (isSkipped(l, owner))
    return false;
  IkboPlan *p = findPlan(l, owner);
  if (!p)
    return true;
  intptr_t n = (intptr_t)mlirOpOperandGetOperandNumber(u);
  if (n > 3)
    return true;
  MlirValue planned = n < 2 ? p->w[n] : p->x[n - 2];
  return mlirValueEqual(planned, mlirOperationGetOperand(owner, n));
}

/// Plans every emb.ikbo_lce of `block`, then marks the producers nothing else
/// needs (in reverse order, so that chains go together).
static void planReadThrough(Lowering *l, MlirBlock block) {
  size_t cap = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!embOpIs(op, EMB_OP_IKBO_LCE))
      continue;
    IkboPlan p;
    memset(&p, 0, sizeof p);
    p.op = op.ptr;
    for (int s = 0; s < 2; ++s) {
      p.w[s] = mlirOperationGetOperand(op, s);
      p.x[s] = mlirOperationGetOperand(op, 2 + s);
      MlirValue w = unpadded(p.w[s]), x = unpadded(p.x[s]);
      if (!mlirValueIsNull(w) && !mlirValueIsNull(x)) {
        int64_t kw = embDim(mlirValueGetType(w), 1);
        int64_t kx = embDim(mlirValueGetType(x), 1);
        if (kw >= 0 && kw == kx) {
          p.w[s] = w;
          p.x[s] = x;
        }
      }
      MlirValue source;
      int64_t column;
      if (columnView(p.w[s], &source, &column)) {
        p.w[s] = source;
        p.column[s] = column;
        p.view[s] = true;
      }
    }
    if (l->numPlans == cap) {
      cap = cap ? 2 * cap : 4;
      l->plans = realloc(l->plans, cap * sizeof(IkboPlan));
    }
    l->plans[l->numPlans++] = p;
  }
  if (!l->numPlans)
    return;
  size_t numOps = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    ++numOps;
  MlirOperation *ops = calloc(numOps, sizeof(MlirOperation));
  numOps = 0;
  for (MlirOperation op = mlirBlockGetFirstOperation(block);
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op))
    ops[numOps++] = op;
  l->skipped = calloc(numOps, sizeof(void *));
  for (size_t i = numOps; i-- > 0;) {
    MlirOperation op = ops[i];
    if (!embOpIs(op, "tensor.concat") && !embOpIs(op, "tensor.extract_slice") &&
        !(embOpIs(op, "arith.constant") && hasTensor(op)))
      continue;
    MlirValue r = mlirOperationGetResult(op, 0);
    if (readByPlan(l, r))
      continue;
    bool needed = false;
    for (MlirOpOperand u = mlirValueGetFirstUse(r);
         !mlirOpOperandIsNull(u) && !needed; u = mlirOpOperandGetNextUse(u))
      needed = useNeedsValue(l, u);
    if (!needed && !mlirOpOperandIsNull(mlirValueGetFirstUse(r)))
      l->skipped[l->numSkipped++] = op.ptr;
  }
  free(ops);
}

//===----------------------------------------------------------------------===//
// emb ops
//===----------------------------------------------------------------------===//

static void lowerTable(Lowering *l, MlirOperation op) {
  Mapped *t = tensorOperand(l, op, 0);
  if (t)
    insert(l, mlirOperationGetResult(op, 0), t);
}

/// emb.tbe and emb.embedding_bag share one runtime call.
static void lowerLookup(Lowering *l, MlirOperation op, bool isTbe) {
  intptr_t n = mlirOperationGetNumOperands(op);
  int64_t numTables = 1, numFeatures = 1;
  bool weighted;
  intptr_t firstTable, pswIndex, idxIndex, offIndex;
  int64_t featureTables[4096];
  if (isTbe) {
    MlirAttribute seg =
        mlirOperationGetAttributeByName(op, embStr("operandSegmentSizes"));
    numTables = mlirDenseI32ArrayGetElement(seg, 2);
    weighted = mlirDenseI32ArrayGetElement(seg, 3) == 1;
    MlirAttribute ft =
        mlirOperationGetAttributeByName(op, embStr("feature_tables"));
    numFeatures = mlirDenseArrayGetNumElements(ft);
    if (numFeatures > 4096 || numTables > 4096) {
      fail(l, op, "more than 4096 features or tables");
      return;
    }
    for (int64_t f = 0; f < numFeatures; ++f)
      featureTables[f] = mlirDenseI64ArrayGetElement(ft, f);
    idxIndex = 0;
    offIndex = 1;
    firstTable = 2;
    pswIndex = n - 1;
  } else {
    weighted = n == 4;
    featureTables[0] = 0;
    firstTable = 0;
    idxIndex = 1;
    offIndex = 2;
    pswIndex = 3;
  }
  Mapped *idx = tensorOperand(l, op, idxIndex);
  Mapped *off = tensorOperand(l, op, offIndex);
  Mapped *psw = weighted ? tensorOperand(l, op, pswIndex) : NULL;
  if (!idx || !off || (weighted && !psw))
    return;

  char mode[16] = "sum", bc[16] = "fatal";
  embGetStringAttr(op, isTbe ? "pooling" : "mode", mode, sizeof mode);
  embGetStringAttr(op, "bounds_check", bc, sizeof bc);
  int64_t padding = -1;
  bool hasPadding = embGetIntAttr(op, "padding_idx", &padding);
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirValue table0 = mlirOperationGetOperand(op, firstTable);
  Mapped *t0 = tensorOperand(l, op, firstTable);
  if (!t0)
    return;

  int64_t attrs[EMB_ABI_TBE_FEATURE_TABLES + 4096];
  attrs[EMB_ABI_TBE_POOLING] = !strcmp(mode, "mean")   ? EMBRT_POOLING_MEAN
                               : !strcmp(mode, "none") ? EMBRT_POOLING_NONE
                                                       : EMBRT_POOLING_SUM;
  attrs[EMB_ABI_TBE_BOUNDS_CHECK] =
      !strcmp(bc, "warning")  ? EMBRT_BOUNDS_WARNING
      : !strcmp(bc, "ignore") ? EMBRT_BOUNDS_IGNORE
      : !strcmp(bc, "none")   ? EMBRT_BOUNDS_NONE
                              : EMBRT_BOUNDS_FATAL;
  attrs[EMB_ABI_TBE_HAS_PADDING] = hasPadding;
  attrs[EMB_ABI_TBE_PADDING_IDX] = hasPadding ? padding : 0;
  // The table's element type: through its handle for emb.tbe.
  MlirType tableType = mlirValueGetType(table0);
  if (isTbe) {
    MlirOperation def = mlirOpResultGetOwner(table0);
    tableType = mlirValueGetType(mlirOperationGetOperand(def, 0));
  }
  attrs[EMB_ABI_TBE_TABLE_DTYPE] =
      dtypeOf(mlirShapedTypeGetElementType(tableType));
  attrs[EMB_ABI_TBE_INDEX_DTYPE] =
      dtypeOfValue(mlirOperationGetOperand(op, idxIndex));
  attrs[EMB_ABI_TBE_PSW_DTYPE] =
      weighted ? dtypeOfValue(mlirOperationGetOperand(op, pswIndex)) : -1;
  attrs[EMB_ABI_TBE_OUTPUT_DTYPE] = dtypeOfValue(result);
  attrs[EMB_ABI_TBE_CONFIG_ID] = -1;
  attrs[EMB_ABI_TBE_NUM_TABLES] = numTables;
  attrs[EMB_ABI_TBE_NUM_FEATURES] = numFeatures;
  for (int64_t f = 0; f < numFeatures; ++f)
    attrs[EMB_ABI_TBE_FEATURE_TABLES + f] = featureTables[f];

  // Result sizes: [B, sum D] pooled or [N, D] unpooled.
  Dim rdims[2];
  bool pooled = attrs[EMB_ABI_TBE_POOLING] != EMBRT_POOLING_NONE;
  Dim batch = {{NULL}, -1};
  int64_t staticB = embDim(mlirValueGetType(result), 0);
  if (pooled && staticB >= 0)
    batch = constDim(staticB);
  else {
    // B = (offsets - 1) / F.
    Dim o = off->dims[0];
    if (o.c >= 0)
      batch = constDim((o.c - 1) / numFeatures);
    else {
      MlirValue minus =
          embBuildAddI64(&l->b, dimValue(l, &o), embBuildConstI64(&l->b, -1));
      batch.v =
          embBuildDivI64(&l->b, minus, embBuildConstI64(&l->b, numFeatures));
    }
  }
  Dim fallback[2] = {pooled ? batch : idx->dims[0], t0->dims[1]};
  resultDims(l, result, rdims, fallback);
  Mapped *out = defineResult(l, result, rdims);

  MlirValue bufs[EMB_ABI_TBE_BUF_TABLES + 4096];
  bufs[EMB_ABI_TBE_BUF_INDICES] = idx->value;
  bufs[EMB_ABI_TBE_BUF_OFFSETS] = off->value;
  bufs[EMB_ABI_TBE_BUF_PSW] = psw ? psw->value : (MlirValue){NULL};
  bufs[EMB_ABI_TBE_BUF_OUTPUT] = out->value;
  bufs[EMB_ABI_TBE_BUF_WORKSPACE] = (MlirValue){NULL};
  Dim dims[EMB_ABI_TBE_DIM_TABLES + 2 * 4096];
  dims[EMB_ABI_TBE_DIM_INDICES] = idx->dims[0];
  dims[EMB_ABI_TBE_DIM_BATCH] = batch;
  dims[EMB_ABI_TBE_DIM_WORKSPACE] = constDim(0);
  for (int64_t t = 0; t < numTables; ++t) {
    Mapped *tm = tensorOperand(l, op, firstTable + t);
    if (!tm)
      return;
    bufs[EMB_ABI_TBE_BUF_TABLES + t] = tm->value;
    dims[EMB_ABI_TBE_DIM_TABLES + t] = tm->dims[0];
    dims[EMB_ABI_TBE_DIM_TABLES + numTables + t] = tm->dims[1];
  }
  // With static shapes the CUDA launch configuration is chosen here.
  if (l->opts.target == EMB_TARGET_CUDA && idx->dims[0].c >= 0 && batch.c > 0) {
    int64_t maxDim = 0;
    bool known = true;
    for (int64_t t = 0; t < numTables; ++t) {
      int64_t d = dims[EMB_ABI_TBE_DIM_TABLES + numTables + t].c;
      known &= d >= 0;
      maxDim = d > maxDim ? d : maxDim;
    }
    int64_t bags = numFeatures * batch.c;
    if (known && pooled)
      attrs[EMB_ABI_TBE_CONFIG_ID] =
          embrtTbeSelectConfig((embrtDtype)attrs[EMB_ABI_TBE_TABLE_DTYPE],
                               maxDim, idx->dims[0].c / bags, bags);
  }
  CallArrays a = buildArrays(l, attrs, EMB_ABI_TBE_FEATURE_TABLES + numFeatures,
                             bufs, EMB_ABI_TBE_BUF_TABLES + numTables, dims,
                             EMB_ABI_TBE_DIM_TABLES + 2 * numTables);
  addWorkspace(l, "embrtCompiledTbeWorkspace", a, EMB_ABI_TBE_BUF_WORKSPACE,
               EMB_ABI_TBE_DIM_WORKSPACE);
  callRuntime(l, "embrtCompiledTbe", a);
}

static void lowerBroadcast(Lowering *l, MlirOperation op, bool add) {
  Mapped *ro = tensorOperand(l, op, 0), *idx = tensorOperand(l, op, 1);
  Mapped *nro = add ? tensorOperand(l, op, 2) : NULL;
  if (!ro || !idx || (add && !nro))
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  Dim fallback[maxRank];
  fallback[0] = idx->dims[0];
  for (int i = 1; i < ro->rank; ++i)
    fallback[i] = ro->dims[i];
  Dim rdims[maxRank];
  resultDims(l, result, rdims, fallback);
  Dim rowElements = product(l, ro, 1, ro->rank);
  Dim users = ro->dims[0], batch = idx->dims[0];
  Mapped *out = defineResult(l, result, rdims);
  int64_t attrs[2] = {dtypeOfValue(result),
                      dtypeOfValue(mlirOperationGetOperand(op, 1))};
  MlirValue bufs[4] = {ro->value, idx->value,
                       add ? nro->value : (MlirValue){NULL}, out->value};
  Dim dims[3] = {users, rowElements, batch};
  CallArrays a = buildArrays(l, attrs, 2, bufs, 4, dims, 3);
  callRuntime(l, add ? "embrtCompiledBroadcastAdd" : "embrtCompiledBroadcast",
              a);
}

static void lowerLce(Lowering *l, MlirOperation op) {
  Mapped *w = tensorOperand(l, op, 0), *x = tensorOperand(l, op, 1);
  if (!w || !x)
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  Dim fallback[3] = {x->dims[0], w->dims[0], x->dims[2]};
  Dim rdims[3];
  resultDims(l, result, rdims, fallback);
  Mapped *out = defineResult(l, result, rdims);
  int64_t attrs[2] = {dtypeOfValue(result), -1};
  MlirValue bufs[4] = {w->value, x->value, out->value, {NULL}};
  Dim dims[5] = {x->dims[0], w->dims[0], w->dims[1], x->dims[2], constDim(0)};
  CallArrays a = buildArrays(l, attrs, 2, bufs, 4, dims, 5);
  addWorkspace(l, "embrtCompiledLceWorkspace", a, EMB_ABI_LCE_BUF_WORKSPACE,
               EMB_ABI_LCE_DIM_WORKSPACE);
  callRuntime(l, "embrtCompiledLce", a);
}

/// `base` advanced by `bytes` (a constant).
static MlirValue offsetPtr(Lowering *l, MlirValue base, int64_t bytes) {
  if (!bytes)
    return base;
  MlirType ptr = embPtrType(l->ctx);
  int32_t index = (int32_t)bytes;
  MlirNamedAttribute attrs[3] = {
      mlirNamedAttributeGet(mlirIdentifierGet(l->ctx, embStr("elem_type")),
                            mlirTypeAttrGet(mlirIntegerTypeGet(l->ctx, 8))),
      mlirNamedAttributeGet(
          mlirIdentifierGet(l->ctx, embStr("rawConstantIndices")),
          mlirDenseI32ArrayGet(l->ctx, 1, &index)),
      mlirNamedAttributeGet(
          mlirIdentifierGet(l->ctx, embStr("noWrapFlags")),
          mlirIntegerAttrGet(mlirIntegerTypeGet(l->ctx, 32), 0)),
  };
  return mlirOperationGetResult(
      embBuildOp(&l->b, "llvm.getelementptr", 1, &base, 1, &ptr, 3, attrs), 0);
}

static void lowerIkboLce(Lowering *l, MlirOperation op) {
  IkboPlan *p = findPlan(l, op);
  Mapped *w[2], *x[2], *index = tensorOperand(l, op, 4);
  if (!index)
    return;
  if (!p) {
    fail(l, op, "the op was not planned");
    return;
  }
  for (int s = 0; s < 2; ++s) {
    w[s] = lookup(l, p->w[s]);
    x[s] = lookup(l, p->x[s]);
    if (!w[s] || !x[s] || !w[s]->isTensor || !x[s]->isTensor) {
      fail(l, op, "an operand was not lowered");
      return;
    }
  }
  // Bytes past the view's first column, and the weights' row strides (0:
  // packed).
  MlirValue wPtr[2];
  Dim stride[2];
  int64_t es = elementBytes(mlirValueGetType(p->w[0]));
  for (int s = 0; s < 2; ++s) {
    if (p->column[s] * es > INT32_MAX) {
      fail(l, op, "the weight's column offset does not fit a constant");
      return;
    }
    wPtr[s] = offsetPtr(l, w[s]->value, p->column[s] * es);
    stride[s] = p->view[s] ? w[s]->dims[1] : constDim(0);
  }
  MlirValue result = mlirOperationGetResult(op, 0);
  Dim fallback[3] = {x[1]->dims[0], w[1]->dims[0], x[1]->dims[2]};
  Dim rdims[3];
  resultDims(l, result, rdims, fallback);
  Mapped *out = defineResult(l, result, rdims);
  int64_t attrs[3] = {dtypeOfValue(result),
                      dtypeOfValue(mlirOperationGetOperand(op, 4)), -1};
  MlirValue bufs[7] = {wPtr[0],      wPtr[1],    x[0]->value, x[1]->value,
                       index->value, out->value, {NULL}};
  Dim dims[9] = {x[1]->dims[0], x[0]->dims[0], w[1]->dims[0],
                 x[0]->dims[1], x[1]->dims[1], x[1]->dims[2],
                 constDim(0),   stride[0],     stride[1]};
  CallArrays a = buildArrays(l, attrs, 3, bufs, 7, dims, 9);
  addWorkspace(l, "embrtCompiledIkboLceWorkspace", a,
               EMB_ABI_IKBO_LCE_BUF_WORKSPACE, EMB_ABI_IKBO_LCE_DIM_WORKSPACE);
  callRuntime(l, "embrtCompiledIkboLce", a);
}

static void lowerAttention(Lowering *l, MlirOperation op, bool ikbo) {
  intptr_t n = mlirOperationGetNumOperands(op);
  Mapped *q = tensorOperand(l, op, 0), *k = tensorOperand(l, op, 1),
         *v = tensorOperand(l, op, 2);
  Mapped *idx = ikbo ? tensorOperand(l, op, 3) : NULL;
  Mapped *len = ikbo && n == 5 ? tensorOperand(l, op, 4) : NULL;
  if (!q || !k || !v || (ikbo && !idx) || (ikbo && n == 5 && !len))
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  Dim rdims[4];
  resultDims(l, result, rdims, q->dims);
  Mapped *out = defineResult(l, result, rdims);
  double scale = 0;
  uint32_t bits = 0;
  if (embGetFloatAttr(op, "scale", &scale)) {
    float f = (float)scale;
    memcpy(&bits, &f, sizeof bits);
  }
  int64_t attrs[6] = {dtypeOfValue(result),
                      ikbo ? dtypeOfValue(mlirOperationGetOperand(op, 3))
                           : EMBRT_I32,
                      ikbo,
                      len != NULL,
                      -1,
                      (int64_t)bits};
  MlirValue bufs[7] = {q->value,
                       k->value,
                       v->value,
                       idx ? idx->value : (MlirValue){NULL},
                       len ? len->value : (MlirValue){NULL},
                       out->value,
                       {NULL}};
  if (ikbo && len &&
      dtypeOfValue(mlirOperationGetOperand(op, 4)) !=
          dtypeOfValue(mlirOperationGetOperand(op, 3))) {
    fail(l, op, "user_lengths and cand_to_user must share one integer type");
    return;
  }
  Dim dims[7] = {q->dims[0], k->dims[0], q->dims[1], k->dims[1],
                 q->dims[2], q->dims[3], constDim(0)};
  CallArrays a = buildArrays(l, attrs, 6, bufs, 7, dims, 7);
  addWorkspace(l, "embrtCompiledAttentionWorkspace", a,
               EMB_ABI_ATTN_BUF_WORKSPACE, EMB_ABI_ATTN_DIM_WORKSPACE);
  callRuntime(l, "embrtCompiledAttention", a);
}

//===----------------------------------------------------------------------===//
// tensor ops
//===----------------------------------------------------------------------===//

/// Reads the dims of a result whose dynamic sizes are operands of `op`
/// (tensor.empty, tensor.expand_shape's output_shape): the i-th dynamic dim
/// takes operand firstDynamic + i.
static bool dynamicResultDims(Lowering *l, MlirOperation op,
                              intptr_t firstDynamic, Dim *dims) {
  MlirType t = mlirValueGetType(mlirOperationGetResult(op, 0));
  intptr_t next = firstDynamic;
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i) {
    int64_t d = embDim(t, i);
    if (d >= 0) {
      dims[i] = constDim(d);
      continue;
    }
    Mapped *s = lookup(l, mlirOperationGetOperand(op, next++));
    if (!s || s->isTensor) {
      fail(l, op, "a dynamic size was not lowered");
      return false;
    }
    dims[i] = (Dim){embBuildIndexToI64(&l->b, s->value), -1};
  }
  return true;
}

static void lowerEmpty(Lowering *l, MlirOperation op) {
  Dim dims[maxRank];
  if (dynamicResultDims(l, op, 0, dims))
    defineResult(l, mlirOperationGetResult(op, 0), dims);
}

/// expand_shape, collapse_shape and cast: the result aliases the operand.
static void lowerReshape(Lowering *l, MlirOperation op) {
  Mapped *src = tensorOperand(l, op, 0);
  if (!src)
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType rt = mlirValueGetType(result);
  Mapped m;
  memset(&m, 0, sizeof m);
  m.isTensor = true;
  m.value = src->value;
  m.rank = (int)mlirShapedTypeGetRank(rt);
  if (embOpIs(op, "tensor.expand_shape")) {
    if (!dynamicResultDims(l, op, 1, m.dims))
      return;
  } else if (embOpIs(op, "tensor.collapse_shape")) {
    MlirAttribute groups =
        mlirOperationGetAttributeByName(op, embStr("reassociation"));
    for (int i = 0; i < m.rank; ++i) {
      MlirAttribute g = mlirArrayAttrGetElement(groups, i);
      Dim p = constDim(1);
      for (intptr_t j = 0, e = mlirArrayAttrGetNumElements(g); j < e; ++j)
        p = mulDim(l, p,
                   src->dims[mlirIntegerAttrGetValueInt(
                       mlirArrayAttrGetElement(g, j))]);
      int64_t d = embDim(rt, i);
      m.dims[i] = d >= 0 ? constDim(d) : p;
    }
  } else {
    resultDims(l, result, m.dims, src->dims);
  }
  // A returned alias is copied at the end: it does not claim an out buffer.
  insert(l, result, &m);
}

static void lowerConcat(Lowering *l, MlirOperation op) {
  int64_t dim = 0;
  embGetIntAttr(op, "dim", &dim);
  intptr_t n = mlirOperationGetNumOperands(op);
  MlirValue result = mlirOperationGetResult(op, 0);
  Mapped *first = tensorOperand(l, op, 0);
  if (!first)
    return;
  Dim fallback[maxRank];
  for (int i = 0; i < first->rank; ++i)
    fallback[i] = first->dims[i];
  Dim total = constDim(0);
  MlirValue *bufs = calloc((size_t)n + 1, sizeof(MlirValue));
  Dim *dims = calloc((size_t)n + 2, sizeof(Dim));
  for (intptr_t i = 0; i < n; ++i) {
    Mapped *in = tensorOperand(l, op, i);
    if (!in) {
      free(bufs);
      free(dims);
      return;
    }
    bufs[1 + i] = in->value;
    dims[2 + i] = in->dims[dim];
    if (total.c >= 0 && in->dims[dim].c >= 0)
      total = constDim(total.c + in->dims[dim].c);
    else
      total = (Dim){embBuildAddI64(&l->b, dimValue(l, &total),
                                   dimValue(l, &in->dims[dim])),
                    -1};
  }
  fallback[dim] = total;
  Dim rdims[maxRank];
  resultDims(l, result, rdims, fallback);
  Mapped *out = defineResult(l, result, rdims);
  bufs[0] = out->value;
  dims[0] = product(l, first, 0, (int)dim);
  dims[1] = product(l, first, (int)dim + 1, first->rank);
  int64_t attrs[2] = {dtypeOfValue(result), n};
  CallArrays a = buildArrays(l, attrs, 2, bufs, n + 1, dims, n + 2);
  callRuntime(l, "embrtCompiledConcat", a);
  free(bufs);
  free(dims);
}

/// Reads a mixed static/dynamic list (static_offsets with dynamic operands
/// where the static value is the dynamic marker).
static bool mixedList(Lowering *l, MlirOperation op, const char *attr,
                      intptr_t *nextOperand, int rank, Dim *out) {
  MlirAttribute a = mlirOperationGetAttributeByName(op, embStr(attr));
  for (int i = 0; i < rank; ++i) {
    int64_t v = mlirDenseI64ArrayGetElement(a, i);
    if (!mlirShapedTypeIsDynamicSize(v) &&
        !mlirShapedTypeIsDynamicStrideOrOffset(v)) {
      out[i] = constDim(v);
      continue;
    }
    Mapped *s = lookup(l, mlirOperationGetOperand(op, (*nextOperand)++));
    if (!s || s->isTensor) {
      fail(l, op, "a dynamic offset, size or stride was not lowered");
      return false;
    }
    out[i] = (Dim){embBuildIndexToI64(&l->b, s->value), -1};
  }
  return true;
}

static void lowerExtractSlice(Lowering *l, MlirOperation op) {
  Mapped *src = tensorOperand(l, op, 0);
  if (!src)
    return;
  int rank = src->rank;
  Dim offsets[maxRank], sizes[maxRank], steps[maxRank];
  intptr_t next = 1;
  if (!mixedList(l, op, "static_offsets", &next, rank, offsets) ||
      !mixedList(l, op, "static_sizes", &next, rank, sizes) ||
      !mixedList(l, op, "static_strides", &next, rank, steps))
    return;
  // Row-major strides of the source, in elements.
  Dim strides[maxRank];
  Dim s = constDim(1);
  for (int i = rank - 1; i >= 0; --i) {
    strides[i] = s;
    s = mulDim(l, s, src->dims[i]);
  }
  Dim offset = constDim(0);
  Dim dims[1 + 2 * maxRank];
  for (int i = 0; i < rank; ++i) {
    Dim term = mulDim(l, offsets[i], strides[i]);
    if (offset.c >= 0 && term.c >= 0)
      offset = constDim(offset.c + term.c);
    else
      offset = (Dim){
          embBuildAddI64(&l->b, dimValue(l, &offset), dimValue(l, &term)), -1};
    dims[1 + i] = sizes[i];
    dims[1 + rank + i] = mulDim(l, strides[i], steps[i]);
  }
  dims[0] = offset;
  // The result may drop unit dims (a rank-reducing slice); its buffer holds
  // the same elements, so drop sizes of 1 while there are more left than the
  // result has dims.
  MlirValue result = mlirOperationGetResult(op, 0);
  int resultRank = (int)mlirShapedTypeGetRank(mlirValueGetType(result));
  Dim rdims[maxRank];
  int r = 0;
  for (int i = 0; i < rank; ++i) {
    if (sizes[i].c == 1 && rank - i > resultRank - r)
      continue;
    if (r < resultRank)
      rdims[r] = sizes[i];
    ++r;
  }
  if (r != resultRank) {
    fail(l, op, "cannot match the rank-reduced result to the slice");
    return;
  }
  Mapped *out = defineResult(l, result, rdims);
  int64_t attrs[2] = {dtypeOfValue(result), rank};
  MlirValue bufs[2] = {src->value, out->value};
  CallArrays a = buildArrays(l, attrs, 2, bufs, 2, dims, 1 + 2 * rank);
  callRuntime(l, "embrtCompiledStridedCopy", a);
}

static void lowerDim(Lowering *l, MlirOperation op) {
  Mapped *src = tensorOperand(l, op, 0);
  Mapped *index = lookup(l, mlirOperationGetOperand(op, 1));
  if (!src)
    return;
  // tensor.dim's index must be a constant here.
  MlirValue old = mlirOperationGetOperand(op, 1);
  if (!index || !mlirValueIsAOpResult(old) ||
      !embOpIs(mlirOpResultGetOwner(old), "arith.constant")) {
    fail(l, op, "the dim index must be an arith.constant");
    return;
  }
  int64_t i = 0;
  embGetIntAttr(mlirOpResultGetOwner(old), "value", &i);
  if (i < 0 || i >= src->rank) {
    fail(l, op, "the dim index is out of range");
    return;
  }
  Mapped m;
  memset(&m, 0, sizeof m);
  m.value = embBuildI64ToIndex(&l->b, dimValue(l, &src->dims[i]));
  insert(l, mlirOperationGetResult(op, 0), &m);
}

//===----------------------------------------------------------------------===//
// Constants and elementwise ops
//===----------------------------------------------------------------------===//

/// Fills a new buffer for `result` with the element whose bits are `bits`.
static void fill(Lowering *l, MlirValue result, const Dim *dims, Dim bits) {
  Mapped *out = defineResult(l, result, dims);
  int64_t attrs[1] = {dtypeOfValue(result)};
  Dim d[2] = {product(l, out, 0, out->rank), bits};
  CallArrays a = buildArrays(l, attrs, 1, &out->value, 1, d, 2);
  callRuntime(l, "embrtCompiledFill", a);
}

/// 64-bit FNV-1a: the content key of a constant (embrtCompiledConstant).
static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static MlirNamedAttribute attrNamed(MlirContext ctx, const char *name,
                                    MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, embStr(name)), a);
}

/// A non-splat dense constant: its bytes become a private constant global of
/// the module (`__emb_constant_<n>`, 64-byte aligned), and the function asks
/// the runtime where its device reads them (embrtCompiledConstant: in place
/// on the CPU, uploaded once a context on CUDA).
static void lowerDenseConstant(Lowering *l, MlirOperation op,
                               MlirAttribute value) {
  MlirValue result = mlirOperationGetResult(op, 0);
  MlirType t = mlirValueGetType(result);
  MlirType e = mlirShapedTypeGetElementType(t);
  if (dtypeOf(e) < 0 ||
      (mlirTypeIsAInteger(e) && mlirIntegerTypeGetWidth(e) == 1)) {
    fail(l, op, "the element type has no runtime dtype");
    return;
  }
  int64_t elements = mlirElementsAttrGetNumElements(value);
  int64_t bytes = elements * elementBytes(t);
  Dim dims[maxRank];
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i)
    dims[i] = constDim(embDim(t, i));
  if (bytes == 0) {
    defineResult(l, result, dims);
    return;
  }
  const void *data = mlirDenseElementsAttrGetRawData(value);
  char name[64];
  int n = 0;
  do
    snprintf(name, sizeof name, "__emb_constant_%d", n++);
  while (hasSymbol(l, name));

  MlirType i8 = mlirIntegerTypeGet(l->ctx, 8);
  int64_t shape[1] = {bytes};
  MlirAttribute raw = mlirDenseElementsAttrRawBufferGet(
      mlirRankedTensorTypeGet(1, shape, i8, mlirAttributeGetNull()),
      (size_t)bytes, data);
  MlirNamedAttribute attrs[7] = {
      attrNamed(l->ctx, "sym_name", mlirStringAttrGet(l->ctx, embStr(name))),
      attrNamed(l->ctx, "global_type",
                mlirTypeAttrGet(mlirLLVMArrayTypeGet(i8, (unsigned)bytes))),
      attrNamed(l->ctx, "value", raw),
      attrNamed(
          l->ctx, "linkage",
          mlirAttributeParseGet(l->ctx, embStr("#llvm.linkage<private>"))),
      attrNamed(l->ctx, "constant", mlirUnitAttrGet(l->ctx)),
      attrNamed(l->ctx, "addr_space",
                mlirIntegerAttrGet(mlirIntegerTypeGet(l->ctx, 32), 0)),
      attrNamed(l->ctx, "alignment",
                mlirIntegerAttrGet(mlirIntegerTypeGet(l->ctx, 64), 64)),
  };
  MlirOperationState st = mlirOperationStateGet(embStr("llvm.mlir.global"),
                                                mlirOperationGetLocation(op));
  mlirOperationStateAddAttributes(&st, 7, attrs);
  MlirRegion init = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&st, 1, &init);
  mlirBlockInsertOwnedOperation(mlirModuleGetBody(l->module), 0,
                                mlirOperationCreate(&st));

  MlirType ptr = embPtrType(l->ctx);
  MlirNamedAttribute ref = attrNamed(
      l->ctx, "global_name", mlirFlatSymbolRefAttrGet(l->ctx, embStr(name)));
  MlirValue host = mlirOperationGetResult(
      embBuildOp(&l->b, "llvm.mlir.addressof", 0, NULL, 1, &ptr, 1, &ref), 0);
  declare(l, "embrtCompiledConstant",
          "(!llvm.ptr, !llvm.ptr, i64, i64) -> !llvm.ptr");
  MlirValue args[4] = {
      l->ctxArg, host, embBuildConstI64(&l->b, bytes),
      embBuildConstI64(&l->b,
                       (int64_t)fnv1a((const uint8_t *)data, (size_t)bytes))};
  Mapped m;
  memset(&m, 0, sizeof m);
  m.isTensor = true;
  m.rank = (int)mlirShapedTypeGetRank(t);
  for (int i = 0; i < m.rank; ++i)
    m.dims[i] = dims[i];
  m.value = embBuildCall(&l->b, "embrtCompiledConstant", 4, args, ptr);
  insert(l, result, &m);
}

static void lowerTensorConstant(Lowering *l, MlirOperation op) {
  MlirAttribute value = mlirOperationGetAttributeByName(op, embStr("value"));
  MlirValue result = mlirOperationGetResult(op, 0);
  if (mlirAttributeIsADenseElements(value) &&
      !mlirDenseElementsAttrIsSplat(value)) {
    lowerDenseConstant(l, op, value);
    return;
  }
  if (!mlirAttributeIsADenseElements(value)) {
    fail(l, op,
         "only dense tensor constants are supported (dense_resource blobs "
         "are not)");
    return;
  }
  MlirType t = mlirValueGetType(result);
  MlirType e = mlirShapedTypeGetElementType(t);
  int64_t dtype = dtypeOf(e);
  MlirAttribute splat = mlirDenseElementsAttrGetSplatValue(value);
  int64_t bits = 0;
  if (mlirTypeIsAF32(e)) {
    float f = (float)mlirFloatAttrGetValueDouble(splat);
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    bits = u;
  } else if (mlirTypeIsAF16(e) || mlirTypeIsABF16(e)) {
    // Read as a double: the splat is stored in 2 bytes.
    float f = (float)mlirFloatAttrGetValueDouble(splat);
    bits = mlirTypeIsAF16(e) ? embrtF32ToF16(f) : embrtF32ToBF16(f);
  } else if (mlirTypeIsAF64(e)) {
    double d = mlirFloatAttrGetValueDouble(splat);
    memcpy(&bits, &d, sizeof bits);
  } else if (dtype == EMBRT_I32) {
    bits = (uint32_t)mlirIntegerAttrGetValueInt(splat);
  } else if (dtype == EMBRT_I64) {
    bits = mlirIntegerAttrGetValueInt(splat);
  } else if (dtype == EMBRT_I8) {
    bits = (uint8_t)mlirIntegerAttrGetValueInt(splat);
  } else {
    fail(l, op, "the element type has no runtime dtype");
    return;
  }
  Dim dims[maxRank];
  for (intptr_t i = 0, n = mlirShapedTypeGetRank(t); i < n; ++i)
    dims[i] = constDim(embDim(t, i));
  // Dim constants are non-negative; a negative i64 splat is a value.
  Dim b = bits >= 0 ? constDim(bits) : (Dim){embBuildConstI64(&l->b, bits), -1};
  fill(l, result, dims, b);
}

/// tensor.splat of a scalar computed at run time: its bits as i64.
static void lowerSplat(Lowering *l, MlirOperation op) {
  Mapped *s = lookup(l, mlirOperationGetOperand(op, 0));
  if (!s || s->isTensor) {
    fail(l, op, "the splat value was not lowered");
    return;
  }
  MlirValue v = s->value;
  MlirType t = mlirValueGetType(v);
  MlirType i64 = embI64Type(l->ctx);
  MlirValue bits;
  if (mlirTypeIsAIndex(t)) {
    bits = embBuildIndexToI64(&l->b, v);
  } else if (mlirTypeIsAInteger(t) && mlirIntegerTypeGetWidth(t) == 64) {
    bits = v;
  } else {
    unsigned width = mlirTypeIsAInteger(t) ? mlirIntegerTypeGetWidth(t)
                     : mlirTypeIsAF64(t)   ? 64
                     : mlirTypeIsAF32(t)   ? 32
                     : mlirTypeIsAF16(t) || mlirTypeIsABF16(t) ? 16
                                                               : 0;
    if (width == 0) {
      fail(l, op, "the splat value's type has no runtime dtype");
      return;
    }
    MlirType iw = mlirIntegerTypeGet(l->ctx, width);
    MlirValue asInt = v;
    if (!mlirTypeIsAInteger(t))
      asInt = mlirOperationGetResult(
          embBuildOp(&l->b, "arith.bitcast", 1, &v, 1, &iw, 0, NULL), 0);
    bits = width == 64
               ? asInt
               : mlirOperationGetResult(embBuildOp(&l->b, "arith.extui", 1,
                                                   &asInt, 1, &i64, 0, NULL),
                                        0);
  }
  Dim dims[maxRank];
  if (!dynamicResultDims(l, op, 1, dims))
    return;
  fill(l, mlirOperationGetResult(op, 0), dims, (Dim){bits, -1});
}

typedef struct {
  const char *name;
  bool unary;
  int op;
} ElementwiseOp;

static const ElementwiseOp elementwiseOps[] = {
    {"arith.addf", false, EMBRT_BINARY_ADD},
    {"arith.subf", false, EMBRT_BINARY_SUB},
    {"arith.mulf", false, EMBRT_BINARY_MUL},
    {"arith.divf", false, EMBRT_BINARY_DIV},
    {"arith.maximumf", false, EMBRT_BINARY_MAX},
    {"arith.maxnumf", false, EMBRT_BINARY_MAX},
    {"arith.minimumf", false, EMBRT_BINARY_MIN},
    {"arith.minnumf", false, EMBRT_BINARY_MIN},
    {"arith.addi", false, EMBRT_BINARY_ADD},
    {"arith.subi", false, EMBRT_BINARY_SUB},
    {"arith.muli", false, EMBRT_BINARY_MUL},
    {"arith.negf", true, EMBRT_UNARY_NEG},
    {"math.exp", true, EMBRT_UNARY_EXP},
    {"math.tanh", true, EMBRT_UNARY_TANH},
    {"math.sqrt", true, EMBRT_UNARY_SQRT},
    {"math.rsqrt", true, EMBRT_UNARY_RSQRT},
    {"math.log", true, EMBRT_UNARY_LOG},
    {"math.absf", true, EMBRT_UNARY_ABS},
};

static const ElementwiseOp *findElementwise(MlirOperation op) {
  for (size_t i = 0; i < sizeof elementwiseOps / sizeof elementwiseOps[0]; ++i)
    if (embOpIs(op, elementwiseOps[i].name))
      return &elementwiseOps[i];
  return NULL;
}

static void lowerElementwise(Lowering *l, MlirOperation op,
                             const ElementwiseOp *e) {
  Mapped *a = tensorOperand(l, op, 0);
  Mapped *b = e->unary ? NULL : tensorOperand(l, op, 1);
  if (!a || (!e->unary && !b))
    return;
  MlirValue result = mlirOperationGetResult(op, 0);
  Dim rdims[maxRank];
  resultDims(l, result, rdims, a->dims);
  Mapped *out = defineResult(l, result, rdims);
  int64_t attrs[3] = {dtypeOfValue(result), e->unary, e->op};
  MlirValue bufs[3] = {a->value, b ? b->value : (MlirValue){NULL}, out->value};
  Dim count = product(l, out, 0, out->rank);
  CallArrays arrays = buildArrays(l, attrs, 3, bufs, 3, &count, 1);
  callRuntime(l, "embrtCompiledElementwise", arrays);
}

/// Scalar ops (index arithmetic, scalar constants) are copied with their
/// operands remapped.
static void copyScalarOp(Lowering *l, MlirOperation op) {
  MlirOperation copy = mlirOperationClone(op);
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i) {
    Mapped *m = lookup(l, mlirOperationGetOperand(op, i));
    if (!m || m->isTensor) {
      mlirOperationDestroy(copy);
      fail(l, op, "a scalar operand was not lowered");
      return;
    }
    mlirOperationSetOperand(copy, i, m->value);
  }
  if (!mlirOperationIsNull(l->b.before))
    mlirBlockInsertOwnedOperationBefore(l->b.block, l->b.before, copy);
  else
    mlirBlockAppendOwnedOperation(l->b.block, copy);
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i) {
    Mapped m;
    memset(&m, 0, sizeof m);
    m.value = mlirOperationGetResult(copy, i);
    insert(l, mlirOperationGetResult(op, i), &m);
  }
}

static bool hasTensor(MlirOperation op) {
  for (intptr_t i = 0, n = mlirOperationGetNumOperands(op); i < n; ++i)
    if (mlirTypeIsATensor(mlirValueGetType(mlirOperationGetOperand(op, i))))
      return true;
  for (intptr_t i = 0, n = mlirOperationGetNumResults(op); i < n; ++i) {
    MlirType t = mlirValueGetType(mlirOperationGetResult(op, i));
    if (mlirTypeIsATensor(t))
      return true;
  }
  return false;
}

static void lowerOp(Lowering *l, MlirOperation op) {
  if (isSkipped(l, op))
    return;
  l->b.loc = mlirOperationGetLocation(op);
  const ElementwiseOp *e;
  if (embOpIs(op, EMB_OP_TABLE))
    lowerTable(l, op);
  else if (embOpIs(op, EMB_OP_TBE))
    lowerLookup(l, op, true);
  else if (embOpIs(op, EMB_OP_EMBEDDING_BAG))
    lowerLookup(l, op, false);
  else if (embOpIs(op, EMB_OP_BROADCAST))
    lowerBroadcast(l, op, false);
  else if (embOpIs(op, EMB_OP_BROADCAST_ADD))
    lowerBroadcast(l, op, true);
  else if (embOpIs(op, EMB_OP_LCE))
    lowerLce(l, op);
  else if (embOpIs(op, EMB_OP_IKBO_LCE))
    lowerIkboLce(l, op);
  else if (embOpIs(op, EMB_OP_ATTENTION))
    lowerAttention(l, op, false);
  else if (embOpIs(op, EMB_OP_IKBO_ATTENTION))
    lowerAttention(l, op, true);
  else if (embOpIs(op, "tensor.concat"))
    lowerConcat(l, op);
  else if (embOpIs(op, "tensor.extract_slice"))
    lowerExtractSlice(l, op);
  else if (embOpIs(op, "tensor.expand_shape") ||
           embOpIs(op, "tensor.collapse_shape") || embOpIs(op, "tensor.cast"))
    lowerReshape(l, op);
  else if (embOpIs(op, "tensor.empty"))
    lowerEmpty(l, op);
  else if (embOpIs(op, "tensor.splat"))
    lowerSplat(l, op);
  else if (embOpIs(op, "tensor.dim"))
    lowerDim(l, op);
  else if (embOpIs(op, "arith.constant") && hasTensor(op))
    lowerTensorConstant(l, op);
  else if ((e = findElementwise(op)) && hasTensor(op))
    lowerElementwise(l, op, e);
  else if (!hasTensor(op) && mlirOperationGetNumRegions(op) == 0 &&
           (embOpIs(op, "arith.constant") ||
            !strncmp(mlirIdentifierStr(mlirOperationGetName(op)).data, "arith.",
                     6) ||
            !strncmp(mlirIdentifierStr(mlirOperationGetName(op)).data, "index.",
                     6)))
    copyScalarOp(l, op);
  else
    fail(l, op, "every op must map to a runtime call");
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

/// Maps a memref block argument to a lowered tensor.
static Mapped memrefArg(Lowering *l, MlirValue arg) {
  MlirType t = mlirValueGetType(arg);
  Mapped m;
  memset(&m, 0, sizeof m);
  m.isTensor = true;
  m.rank = (int)mlirShapedTypeGetRank(t);
  m.value = embBuildMemrefPtr(&l->b, arg, elementBytes(t));
  for (int i = 0; i < m.rank; ++i) {
    int64_t d = embDim(t, i);
    m.dims[i] =
        d >= 0 ? constDim(d) : (Dim){embBuildMemrefDim(&l->b, arg, i), -1};
  }
  return m;
}

static MlirType memrefOf(MlirType tensor) {
  intptr_t rank = mlirShapedTypeGetRank(tensor);
  int64_t shape[maxRank];
  for (intptr_t i = 0; i < rank; ++i)
    shape[i] = mlirShapedTypeGetDimSize(tensor, i);
  return mlirMemRefTypeGet(mlirShapedTypeGetElementType(tensor), rank, shape,
                           mlirAttributeGetNull(), mlirAttributeGetNull());
}

static bool checkSignature(Lowering *l, MlirOperation func, MlirType ft) {
  intptr_t ni = mlirFunctionTypeGetNumInputs(ft);
  intptr_t no = mlirFunctionTypeGetNumResults(ft);
  for (intptr_t i = 0; i < ni + no; ++i) {
    MlirType t = i < ni ? mlirFunctionTypeGetInput(ft, i)
                        : mlirFunctionTypeGetResult(ft, i - ni);
    if (!mlirTypeIsARankedTensor(t) || mlirShapedTypeGetRank(t) > maxRank ||
        dtypeOf(mlirShapedTypeGetElementType(t)) < 0) {
      char ts[128];
      embPrintType(t, ts, sizeof ts);
      embEmitErrorf(mlirOperationGetLocation(func),
                    "emb-lower-to-runtime: %s #%lld of the function is %s; "
                    "entry functions take and return ranked tensors of at "
                    "most %d dims with a runtime element type",
                    i < ni ? "argument" : "result",
                    (long long)(i < ni ? i : i - ni), ts, maxRank);
      l->failed = true;
      return false;
    }
  }
  return true;
}

static MlirNamedAttribute namedAttr(MlirContext ctx, const char *name,
                                    MlirAttribute a) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, embStr(name)), a);
}

/// Lowers one function; replaces it in the module on success.
static void lowerFunction(Lowering *l, MlirOperation func) {
  MlirType ft = mlirTypeAttrGetValue(
      mlirOperationGetAttributeByName(func, embStr("function_type")));
  if (!checkSignature(l, func, ft))
    return;
  intptr_t ni = mlirFunctionTypeGetNumInputs(ft);
  intptr_t no = mlirFunctionTypeGetNumResults(ft);
  MlirRegion oldRegion = mlirOperationGetRegion(func, 0);
  MlirBlock oldBlock = mlirRegionGetFirstBlock(oldRegion);
  if (mlirBlockIsNull(oldBlock))
    return; // a declaration
  if (!mlirBlockIsNull(mlirBlockGetNextInRegion(oldBlock))) {
    embEmitErrorf(mlirOperationGetLocation(func),
                  "emb-lower-to-runtime: functions with more than one block "
                  "are not supported");
    l->failed = true;
    return;
  }

  // The new signature: (ctx, inputs..., outputs...) -> ().
  MlirLocation loc = mlirOperationGetLocation(func);
  intptr_t nargs = 1 + ni + no;
  MlirType *types = calloc((size_t)nargs, sizeof(MlirType));
  MlirLocation *locs = calloc((size_t)nargs, sizeof(MlirLocation));
  types[0] = embPtrType(l->ctx);
  for (intptr_t i = 0; i < ni; ++i)
    types[1 + i] = memrefOf(mlirFunctionTypeGetInput(ft, i));
  for (intptr_t i = 0; i < no; ++i)
    types[1 + ni + i] = memrefOf(mlirFunctionTypeGetResult(ft, i));
  for (intptr_t i = 0; i < nargs; ++i)
    locs[i] = loc;
  MlirBlock block = mlirBlockCreate(nargs, types, locs);
  MlirType newType = mlirFunctionTypeGet(l->ctx, nargs, types, 0, NULL);
  free(types);
  free(locs);

  l->b = (EmbBuilder){l->ctx, loc, block, {NULL}};
  l->ctxArg = mlirBlockGetArgument(block, 0);
  l->numOwned = 0;
  l->mapCap = 1024;
  l->mapCount = 0;
  l->map = calloc(l->mapCap, sizeof(Mapped));
  for (intptr_t i = 0; i < ni; ++i) {
    Mapped m = memrefArg(l, mlirBlockGetArgument(block, 1 + i));
    insert(l, mlirBlockGetArgument(oldBlock, i), &m);
  }

  // Out buffers, and which values the function returns.
  MlirOperation ret = mlirBlockGetTerminator(oldBlock);
  l->numResults = no;
  l->returned = calloc((size_t)no + 1, sizeof(void *));
  l->outs = calloc((size_t)no + 1, sizeof(Mapped));
  l->claimed = calloc((size_t)no + 1, sizeof(bool));
  for (intptr_t i = 0; i < no; ++i) {
    l->outs[i] = memrefArg(l, mlirBlockGetArgument(block, 1 + ni + i));
    MlirValue v = mlirOperationGetOperand(ret, i);
    // An argument returned as is, or a value returned twice, is copied.
    bool seen = false;
    for (intptr_t j = 0; j < i; ++j)
      seen |= l->returned[j] == v.ptr;
    l->returned[i] = seen || mlirValueIsABlockArgument(v) ? NULL : v.ptr;
  }

  l->numPlans = 0;
  l->numSkipped = 0;
  planReadThrough(l, oldBlock);
  for (MlirOperation op = mlirBlockGetFirstOperation(oldBlock);
       !mlirOperationIsNull(op) && !l->failed;
       op = mlirOperationGetNextInBlock(op)) {
    if (mlirOperationEqual(op, ret))
      break;
    lowerOp(l, op);
  }

  if (!l->failed) {
    // Returned values that did not write into their out buffer are copied.
    l->b.loc = mlirOperationGetLocation(ret);
    for (intptr_t i = 0; i < no; ++i) {
      MlirValue v = mlirOperationGetOperand(ret, i);
      Mapped *m = lookup(l, v);
      if (!m || !m->isTensor) {
        fail(l, ret, "a returned value was not lowered");
        break;
      }
      if (m->value.ptr == l->outs[i].value.ptr)
        continue;
      Dim bytes = mulDim(l, product(l, m, 0, m->rank),
                         constDim(elementBytes(mlirValueGetType(v))));
      declare(l, "embrtCompiledCopy",
              "(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64)");
      MlirValue args[5] = {l->ctxArg,
                           embBuildConstI64(&l->b, EMBRT_COPY_DEVICE_TO_DEVICE),
                           l->outs[i].value, m->value, dimValue(l, &bytes)};
      embBuildCall(&l->b, "embrtCompiledCopy", 5, args, (MlirType){NULL});
    }
    declare(l, "embrtCompiledFree", "(!llvm.ptr, !llvm.ptr)");
    for (size_t i = 0; i < l->numOwned; ++i) {
      MlirValue args[2] = {l->ctxArg, l->owned[i]};
      embBuildCall(&l->b, "embrtCompiledFree", 2, args, (MlirType){NULL});
    }
    embBuildOp(&l->b, "func.return", 0, NULL, 0, NULL, 0, NULL);
  }

  if (l->failed) {
    mlirBlockDestroy(block);
  } else {
    // The new function takes the old one's place and name.
    MlirRegion region = mlirRegionCreate();
    mlirRegionAppendOwnedBlock(region, block);
    MlirNamedAttribute attrs[5];
    int n = 0;
    attrs[n++] =
        namedAttr(l->ctx, "sym_name",
                  mlirOperationGetAttributeByName(func, embStr("sym_name")));
    attrs[n++] = namedAttr(l->ctx, "function_type", mlirTypeAttrGet(newType));
    attrs[n++] =
        namedAttr(l->ctx, "llvm.emit_c_interface", mlirUnitAttrGet(l->ctx));
    attrs[n++] = namedAttr(
        l->ctx, "emb.target",
        mlirStringAttrGet(
            l->ctx,
            embStr(l->opts.target == EMB_TARGET_CUDA ? "cuda" : "cpu")));
    attrs[n++] =
        namedAttr(l->ctx, "emb.num_results",
                  mlirIntegerAttrGet(mlirIntegerTypeGet(l->ctx, 64), no));
    MlirOperationState st = mlirOperationStateGet(embStr("func.func"), loc);
    mlirOperationStateAddAttributes(&st, n, attrs);
    mlirOperationStateAddOwnedRegions(&st, 1, &region);
    MlirOperation newFunc = mlirOperationCreate(&st);
    MlirAttribute vis =
        mlirOperationGetAttributeByName(func, embStr("sym_visibility"));
    if (!mlirAttributeIsNull(vis))
      mlirOperationSetAttributeByName(newFunc, embStr("sym_visibility"), vis);
    mlirBlockInsertOwnedOperationAfter(mlirOperationGetBlock(func), func,
                                       newFunc);
    mlirOperationDestroy(func);
  }
  free(l->map);
  l->map = NULL;
  free(l->plans);
  l->plans = NULL;
  free(l->skipped);
  l->skipped = NULL;
  free(l->returned);
  free(l->outs);
  free(l->claimed);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

static void run(MlirOperation op, MlirExternalPass pass, const void *options) {
  Lowering l;
  memset(&l, 0, sizeof l);
  l.opts = *(const Options *)options;
  l.ctx = mlirOperationGetContext(op);
  l.module = mlirModuleFromOperation(op);
  MlirBlock body = mlirModuleGetBody(l.module);
  // Collect the functions first: lowering replaces them in the block.
  size_t n = 0, cap = 16;
  MlirOperation *funcs = malloc(cap * sizeof(MlirOperation));
  for (MlirOperation f = mlirBlockGetFirstOperation(body);
       !mlirOperationIsNull(f); f = mlirOperationGetNextInBlock(f)) {
    if (!embOpIs(f, "func.func"))
      continue;
    if (n == cap)
      funcs = realloc(funcs, (cap *= 2) * sizeof(MlirOperation));
    funcs[n++] = f;
  }
  for (size_t i = 0; i < n && !l.failed; ++i) {
    MlirRegion r = mlirOperationGetRegion(funcs[i], 0);
    if (!mlirBlockIsNull(mlirRegionGetFirstBlock(r)))
      lowerFunction(&l, funcs[i]);
  }
  free(funcs);
  free(l.owned);
  if (l.failed)
    mlirExternalPassSignalFailure(pass);
}

static const EmbPassDef def = {
    .argument = "emb-lower-to-runtime",
    .name = "EmbLowerToRuntime",
    .summary = "Lower emb ops and tensors to calls into the emb runtime",
    .anchor = "builtin.module",
    .run = run,
    .optionsSize = sizeof(Options),
};

MlirPass embCreateLowerToRuntimePass(EmbTarget target) {
  Options o = {target};
  return embMakePass(&def, &o);
}

static MlirPass create(MlirStringRef options, EmbErrorCallback onError,
                       void *userData) {
  Options o = {EMB_TARGET_CPU};
  char key[64], value[64];
  int r;
  while ((r = embNextOption(&options, key, sizeof key, value, sizeof value,
                            def.argument, onError, userData)) > 0) {
    if (strcmp(key, "target") != 0) {
      embUnknownOption(def.argument, key, "target", onError, userData);
      return (MlirPass){NULL};
    }
    if (!strcmp(value, "cpu"))
      o.target = EMB_TARGET_CPU;
    else if (!strcmp(value, "cuda"))
      o.target = EMB_TARGET_CUDA;
    else {
      embReportf(onError, userData,
                 "%s: option 'target' must be cpu or cuda, got '%s'",
                 def.argument, value);
      return (MlirPass){NULL};
    }
  }
  if (r < 0)
    return (MlirPass){NULL};
  return embMakePass(&def, &o);
}

const EmbRegistryEntry embLowerToRuntimeEntry = {
    .name = "emb-lower-to-runtime",
    .summary = "Lower emb ops and tensors to calls into the emb runtime",
    .optionsHelp = "target=cpu|cuda (default cpu)",
    .kind = EMB_PASS_KIND_PASS,
    .anchor = "builtin.module",
    .create = create,
    .expand = NULL,
};
