//===- python/csrc/tbe.cpp - the TBE ops' host path in C++ ----------------===//
//
// The host side of emb_torch's table-batched ops (python/emb_torch/ops.py)
// for the calls that make up nearly all of them: every check of the Python
// kernel, the runtime's argument struct, the output and workspace from
// PyTorch's allocator, the runtime call and the poll of device errors, in
// C++ (docs/pytorch.md, "The C++ ops library"). In Python the same costs
// 60-70 us a lookup and 200-300 us a training step, more than the kernels
// of a small batch; here a few microseconds.
//
//   emb_torch::tbe_forward(Tensor[] weights, int[] feature_table,
//       Tensor indices, Tensor offsets, Tensor? per_sample_weights,
//       int pooling, int bounds_check, int? padding_idx,
//       ScalarType? output_dtype, int context, int runtime)
//       -> (Tensor[], int)
//
//   emb_torch::tbe_forward_quantized(Tensor[] weights, int[] precisions,
//       int[] dims, int[] feature_table, Tensor indices, Tensor offsets,
//       Tensor? per_sample_weights, int pooling, int bounds_check,
//       int? padding_idx, ScalarType? output_dtype, int context, int runtime)
//       -> (Tensor[], int)
//
//   emb_torch::tbe_backward(int optimizer, Tensor(a!)[] weights,
//       Tensor(b!)[] momentum1, Tensor(c!)[] momentum2,
//       int momentum1_precision, int momentum2_precision,
//       Tensor hyper_params, Tensor(d!) step, int[] feature_table,
//       Tensor indices, Tensor offsets, Tensor? per_sample_weights,
//       Tensor grad_output, int pooling, int bounds_check, int? padding_idx,
//       int seed, int context, int runtime) -> int
//
// The arguments are emb::tbe_forward's, emb::tbe_forward_quantized's and
// emb::tbe_backward_<optimizer>'s, with the names as the runtime's numbers
// (embrtPooling, embrtBoundsCheck, embrtOptimizer, embrtStatePrecision,
// embrtTablePrecision), `context` the address of the
// embrtContext of the tables' device on PyTorch's current stream and
// `runtime` the address of the runtime's entry points (kEntries words: their
// count, then embrtTbeForward, embrtTbeWorkspaceSize, embrtTbeBackward,
// embrtTbeBackwardWorkspaceSize, embrtContextClearError,
// embrtPollDeviceErrors), both from emb_torch's Runtime.
//
// The status is -1 when the call is refused: an argument the Python kernel
// would reject or treat specially (a check failing, a gradient of a third
// dtype, fp8 states), a workspace query or a lookup the runtime refuses.
// Nothing was done then (no output, no update, the step not counted, the
// context's error cleared) and emb_torch runs its Python kernel, which
// checks again and names what is wrong. Otherwise the status is the
// runtime's (0: done): a backward the runtime failed, or the poll's device
// error of an earlier call, which emb_torch raises with the context's
// message, as its Python kernel would. Nothing here throws for a bad
// argument.
//
//===----------------------------------------------------------------------===//

#include "emb/runtime.h"

#include <ATen/core/ATen_fwd.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/DispatchKey.h>
#include <c10/core/ScalarType.h>
#include <torch/library.h>

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace {

/// The runtime's entry points, from the words at `runtime`.
struct Runtime {
  decltype(&embrtTbeForward) forward;
  decltype(&embrtTbeWorkspaceSize) forwardWorkspace;
  decltype(&embrtTbeBackward) backward;
  decltype(&embrtTbeBackwardWorkspaceSize) backwardWorkspace;
  decltype(&embrtContextClearError) clearError;
  decltype(&embrtPollDeviceErrors) poll;
};

/// Entry points the words hold after their count.
constexpr int64_t kEntries = 6;
/// The status of a refused call.
constexpr int64_t kRefused = -1;

/// A lookup's answer to a refused call: no output.
std::tuple<std::vector<at::Tensor>, int64_t> refused() {
  return std::make_tuple(std::vector<at::Tensor>{}, kRefused);
}

template <typename Fn> Fn entry(const int64_t *words, int k) {
  return reinterpret_cast<Fn>(static_cast<uintptr_t>(words[1 + k]));
}

bool readRuntime(int64_t address, Runtime &rt) {
  const int64_t *w = reinterpret_cast<const int64_t *>(address);
  if (!w || w[0] != kEntries)
    return false;
  for (int k = 0; k < kEntries; ++k)
    if (!w[1 + k])
      return false;
  rt.forward = entry<decltype(rt.forward)>(w, 0);
  rt.forwardWorkspace = entry<decltype(rt.forwardWorkspace)>(w, 1);
  rt.backward = entry<decltype(rt.backward)>(w, 2);
  rt.backwardWorkspace = entry<decltype(rt.backwardWorkspace)>(w, 3);
  rt.clearError = entry<decltype(rt.clearError)>(w, 4);
  rt.poll = entry<decltype(rt.poll)>(w, 5);
  return true;
}

/// A tensor the runtime can read as it is: defined, strided, with memory,
/// not meta and without a Python dispatch key (a __torch_dispatch__
/// subclass or a fake tensor take the Python kernel).
bool plain(const at::Tensor &t) {
  return t.defined() && t.layout() == c10::kStrided && !t.is_meta() &&
         t.has_storage() && !t.key_set().has(c10::DispatchKey::Python);
}

std::optional<embrtDtype> runtimeDtype(c10::ScalarType s) {
  switch (s) {
  case c10::ScalarType::Float:
    return EMBRT_F32;
  case c10::ScalarType::Half:
    return EMBRT_F16;
  case c10::ScalarType::BFloat16:
    return EMBRT_BF16;
  case c10::ScalarType::Int:
    return EMBRT_I32;
  case c10::ScalarType::Long:
    return EMBRT_I64;
  default:
    return std::nullopt;
  }
}

bool isTableDtype(c10::ScalarType s) {
  return s == c10::ScalarType::Float || s == c10::ScalarType::Half ||
         s == c10::ScalarType::BFloat16;
}

bool isIndexDtype(c10::ScalarType s) {
  return s == c10::ScalarType::Int || s == c10::ScalarType::Long;
}

/// A lookup's checked arguments and the runtime's struct over them; the
/// host arrays and contiguous tensors the struct points into live here.
struct Lookup {
  std::vector<const void *> tables;
  std::vector<int64_t> rows, dims, precisions, features;
  at::Tensor indices, offsets, perSampleWeights;
  c10::Device device{c10::kCPU};
  /// The tables' dtype (embrtTbeArgs::tableDtype).
  c10::ScalarType dtype = c10::ScalarType::Float;
  int64_t outRows = 0, width = 0;
  embrtTbeArgs args{};
};

/// ops.py's _check_features and the rest of _check_lookup past the tables
/// (per-sample weights, the output's width), then the struct (_lookup_args);
/// l.device, l.dtype and l.dims are the tables'. False where the Python
/// kernel would raise.
bool readFeatures(at::TensorList weights, c10::IntArrayRef featureTable,
                  const at::Tensor &indices, const at::Tensor &offsets,
                  const std::optional<at::Tensor> &perSampleWeights,
                  int64_t pooling, int64_t boundsCheck,
                  std::optional<int64_t> paddingIdx, Lookup &l) {
  const int64_t T = static_cast<int64_t>(weights.size());
  const int64_t F = static_cast<int64_t>(featureTable.size());
  if (F == 0)
    return false;
  for (int64_t t : featureTable)
    if (t < 0 || t >= T)
      return false;
  for (const at::Tensor *x : {&indices, &offsets})
    if (!plain(*x) || !isIndexDtype(x->scalar_type()) || x->dim() != 1 ||
        x->device() != l.device)
      return false;
  const int64_t entries = offsets.size(0);
  if (entries < 1 || (entries - 1) % F != 0)
    return false;
  if (pooling < EMBRT_POOLING_SUM || pooling > EMBRT_POOLING_NONE ||
      boundsCheck < EMBRT_BOUNDS_FATAL || boundsCheck > EMBRT_BOUNDS_NONE)
    return false;
  if (perSampleWeights) {
    const at::Tensor &p = *perSampleWeights;
    if (pooling != EMBRT_POOLING_SUM || !plain(p) ||
        (p.scalar_type() != c10::ScalarType::Float &&
         p.scalar_type() != l.dtype) ||
        p.dim() != 1 || p.size(0) != indices.size(0) || p.device() != l.device)
      return false;
  }
  const int64_t B = (entries - 1) / F;
  l.width = 0;
  for (int64_t t : featureTable) {
    int64_t d = l.dims[t];
    if (pooling == EMBRT_POOLING_NONE) {
      if (l.width && d != l.width)
        return false;
      l.width = d;
    } else {
      l.width += d;
    }
  }
  l.outRows = pooling == EMBRT_POOLING_NONE ? indices.size(0) : B;

  l.indices = indices.contiguous();
  l.offsets = offsets.contiguous();
  if (perSampleWeights)
    l.perSampleWeights = perSampleWeights->contiguous();
  l.tables.resize(T);
  l.rows.resize(T);
  for (int64_t t = 0; t < T; ++t) {
    l.tables[t] = weights[t].const_data_ptr();
    l.rows[t] = weights[t].size(0);
  }
  l.features.assign(featureTable.begin(), featureTable.end());

  embrtTbeArgs &a = l.args;
  a = embrtTbeArgs{};
  a.structSize = sizeof(embrtTbeArgs);
  a.pooling = static_cast<embrtPooling>(pooling);
  a.boundsCheck = static_cast<embrtBoundsCheck>(boundsCheck);
  a.numTables = T;
  a.tables = l.tables.data();
  a.tableRows = l.rows.data();
  a.tableDims = l.dims.data();
  a.tableDtype = *runtimeDtype(l.dtype);
  if (!l.precisions.empty())
    a.tablePrecisions = l.precisions.data();
  a.numFeatures = F;
  a.featureTables = l.features.data();
  a.batchSize = B;
  a.numIndices = l.indices.size(0);
  a.indices = l.indices.const_data_ptr();
  a.indexDtype = *runtimeDtype(l.indices.scalar_type());
  a.offsets = l.offsets.const_data_ptr();
  a.offsetDtype = *runtimeDtype(l.offsets.scalar_type());
  if (perSampleWeights) {
    a.perSampleWeights = l.perSampleWeights.const_data_ptr();
    a.perSampleWeightDtype = *runtimeDtype(l.perSampleWeights.scalar_type());
  }
  a.hasPaddingIdx = paddingIdx.has_value();
  a.paddingIdx = paddingIdx.value_or(0);
  a.configId = -1;
  return true;
}

/// ops.py's _check_lookup over dense tables, then readFeatures.
bool readLookup(at::TensorList weights, c10::IntArrayRef featureTable,
                const at::Tensor &indices, const at::Tensor &offsets,
                const std::optional<at::Tensor> &perSampleWeights,
                int64_t pooling, int64_t boundsCheck,
                std::optional<int64_t> paddingIdx, Lookup &l) {
  if (weights.empty() || !plain(weights[0]))
    return false;
  l.dtype = weights[0].scalar_type();
  l.device = weights[0].device();
  if (!isTableDtype(l.dtype) || !(l.device.is_cuda() || l.device.is_cpu()))
    return false;
  for (const at::Tensor &w : weights) {
    if (!plain(w) || w.scalar_type() != l.dtype || w.device() != l.device ||
        w.dim() != 2 || w.size(1) < 1 || w.size(1) > EMBRT_MAX_TABLE_DIM ||
        !w.is_contiguous())
      return false;
    l.dims.push_back(w.size(1));
  }
  return readFeatures(weights, featureTable, indices, offsets, perSampleWeights,
                      pooling, boundsCheck, paddingIdx, l);
}

/// Bits of a column at a quantized precision (embrtTablePrecision: 1 int8,
/// 2 int4, 3 int2, 4 fp8), 0 for dense (0) or an unknown code.
int64_t precisionBits(int64_t precision) {
  switch (precision) {
  case 1:
  case 4:
    return 8;
  case 2:
    return 4;
  case 3:
    return 2;
  default:
    return 0;
  }
}

/// quantized.py's _check_lookup: packed uint8 rows of embrtQuantizedRowBytes
/// (a 4-byte header and the columns, padded to 16) or dense tables of one
/// dtype, then readFeatures; l.dtype is the runtime's tableDtype (the dense
/// tables', else the 16-bit dtype of the output or the weights) and `out`
/// the output's dtype.
bool readQuantizedLookup(at::TensorList weights, c10::IntArrayRef precisions,
                         c10::IntArrayRef dims, c10::IntArrayRef featureTable,
                         const at::Tensor &indices, const at::Tensor &offsets,
                         const std::optional<at::Tensor> &perSampleWeights,
                         int64_t pooling, int64_t boundsCheck,
                         std::optional<int64_t> paddingIdx,
                         std::optional<c10::ScalarType> outputDtype, Lookup &l,
                         c10::ScalarType &out) {
  const size_t T = weights.size();
  if (T == 0 || precisions.size() != T || dims.size() != T ||
      !plain(weights[0]))
    return false;
  l.device = weights[0].device();
  if (!(l.device.is_cuda() || l.device.is_cpu()))
    return false;
  std::optional<c10::ScalarType> dense;
  for (size_t t = 0; t < T; ++t) {
    const at::Tensor &w = weights[t];
    const int64_t p = precisions[t], d = dims[t];
    if (p < 0 || p > 4 || !plain(w) || w.device() != l.device || w.dim() != 2 ||
        d < 1 || d > EMBRT_MAX_TABLE_DIM || !w.is_contiguous())
      return false;
    if (p == 0) {
      if (!isTableDtype(w.scalar_type()) ||
          (dense && w.scalar_type() != *dense) || w.size(1) != d)
        return false;
      dense = w.scalar_type();
    } else {
      const int64_t bits = precisionBits(p);
      const int64_t header = 4, align = 16;
      if (w.scalar_type() != c10::ScalarType::Byte || d * bits % 8 != 0 ||
          w.size(1) != (header + d * bits / 8 + align - 1) / align * align)
        return false;
    }
  }
  out = outputDtype.value_or(c10::ScalarType::Float);
  std::optional<c10::ScalarType> weightDtype;
  if (perSampleWeights && perSampleWeights->defined())
    weightDtype = perSampleWeights->scalar_type();
  l.dtype = dense ? *dense
                  : (out != c10::ScalarType::Float
                         ? out
                         : weightDtype.value_or(c10::ScalarType::Float));
  if (!isTableDtype(out) || (out != c10::ScalarType::Float && out != l.dtype))
    return false;
  l.precisions.assign(precisions.begin(), precisions.end());
  l.dims.assign(dims.begin(), dims.end());
  return readFeatures(weights, featureTable, indices, offsets, perSampleWeights,
                      pooling, boundsCheck, paddingIdx, l);
}

/// A workspace of `bytes` on the lookup's device (none for 0).
at::Tensor workspace(const Lookup &l, size_t bytes) {
  if (!bytes)
    return at::Tensor();
  return at::empty(
      {static_cast<int64_t>(bytes)},
      at::TensorOptions().dtype(c10::ScalarType::Byte).device(l.device));
}

/// The lookup of `l` into a new [outRows, width] output of `out`.
std::tuple<std::vector<at::Tensor>, int64_t> runLookup(Lookup &l,
                                                       c10::ScalarType out,
                                                       embrtContext *ctx,
                                                       const Runtime &rt) {
  c10::OptionalDeviceGuard guard;
  if (l.device.is_cuda())
    guard.reset_device(l.device);
  at::Tensor output = at::empty(
      {l.outRows, l.width}, at::TensorOptions().dtype(out).device(l.device));
  embrtTbeArgs &a = l.args;
  a.output = output.data_ptr();
  a.outputDtype = *runtimeDtype(out);
  size_t bytes = 0;
  if (rt.forwardWorkspace(ctx, &a, &bytes) != EMBRT_OK) {
    rt.clearError(ctx);
    return refused();
  }
  at::Tensor ws = workspace(l, bytes);
  if (bytes) {
    a.workspace = ws.data_ptr();
    a.workspaceBytes = bytes;
  }
  if (rt.forward(ctx, &a) != EMBRT_OK) {
    // Refused before any work (the lookup's own checks): the Python kernel
    // calls again and raises the runtime's message.
    rt.clearError(ctx);
    return refused();
  }
  int64_t status = rt.poll(ctx);
  return std::make_tuple(std::vector<at::Tensor>{output}, status);
}

std::tuple<std::vector<at::Tensor>, int64_t>
tbeForward(at::TensorList weights, c10::IntArrayRef featureTable,
           const at::Tensor &indices, const at::Tensor &offsets,
           const std::optional<at::Tensor> &perSampleWeights, int64_t pooling,
           int64_t boundsCheck, std::optional<int64_t> paddingIdx,
           std::optional<c10::ScalarType> outputDtype, int64_t context,
           int64_t runtime) {
  Runtime rt;
  embrtContext *ctx = reinterpret_cast<embrtContext *>(context);
  Lookup l;
  if (!ctx || !readRuntime(runtime, rt) ||
      !readLookup(weights, featureTable, indices, offsets, perSampleWeights,
                  pooling, boundsCheck, paddingIdx, l))
    return refused();
  c10::ScalarType out = outputDtype.value_or(l.dtype);
  if (out != c10::ScalarType::Float && out != l.dtype)
    return refused();
  return runLookup(l, out, ctx, rt);
}

std::tuple<std::vector<at::Tensor>, int64_t>
tbeForwardQuantized(at::TensorList weights, c10::IntArrayRef precisions,
                    c10::IntArrayRef dims, c10::IntArrayRef featureTable,
                    const at::Tensor &indices, const at::Tensor &offsets,
                    const std::optional<at::Tensor> &perSampleWeights,
                    int64_t pooling, int64_t boundsCheck,
                    std::optional<int64_t> paddingIdx,
                    std::optional<c10::ScalarType> outputDtype, int64_t context,
                    int64_t runtime) {
  Runtime rt;
  embrtContext *ctx = reinterpret_cast<embrtContext *>(context);
  Lookup l;
  c10::ScalarType out = c10::ScalarType::Float;
  if (!ctx || !readRuntime(runtime, rt) ||
      !readQuantizedLookup(weights, precisions, dims, featureTable, indices,
                           offsets, perSampleWeights, pooling, boundsCheck,
                           paddingIdx, outputDtype, l, out))
    return refused();
  return runLookup(l, out, ctx, rt);
}

/// A state tensor of `precision` for table `w` (rows, or the table's shape).
bool readState(const at::Tensor &m, const at::Tensor &w, int64_t precision,
               bool rowwise, c10::Device device) {
  c10::ScalarType want = precision == EMBRT_STATE_F32
                             ? c10::ScalarType::Float
                             : c10::ScalarType::BFloat16;
  if (!plain(m) || m.scalar_type() != want || m.device() != device ||
      !m.is_contiguous())
    return false;
  if (rowwise)
    return m.dim() == 1 && m.size(0) == w.size(0);
  return m.sizes().equals(w.sizes());
}

int64_t tbeBackward(int64_t optimizer, at::TensorList weights,
                    at::TensorList momentum1, at::TensorList momentum2,
                    int64_t momentum1Precision, int64_t momentum2Precision,
                    const at::Tensor &hyperParams, const at::Tensor &step,
                    c10::IntArrayRef featureTable, const at::Tensor &indices,
                    const at::Tensor &offsets,
                    const std::optional<at::Tensor> &perSampleWeights,
                    const at::Tensor &gradOutput, int64_t pooling,
                    int64_t boundsCheck, std::optional<int64_t> paddingIdx,
                    int64_t seed, int64_t context, int64_t runtime) {
  Runtime rt;
  embrtContext *ctx = reinterpret_cast<embrtContext *>(context);
  Lookup l;
  if (!ctx || !readRuntime(runtime, rt) || optimizer < EMBRT_OPTIMIZER_SGD ||
      optimizer > EMBRT_OPTIMIZER_ADAM ||
      !readLookup(weights, featureTable, indices, offsets, perSampleWeights,
                  pooling, boundsCheck, paddingIdx, l))
    return kRefused;

  // The gradient: [output rows, width] of f32 or the tables' dtype, rows of
  // unit-stride columns read in place.
  if (!plain(gradOutput) || gradOutput.dim() != 2 ||
      gradOutput.size(0) != l.outRows || gradOutput.size(1) != l.width ||
      gradOutput.device() != l.device ||
      (gradOutput.scalar_type() != c10::ScalarType::Float &&
       gradOutput.scalar_type() != l.dtype))
    return kRefused;
  at::Tensor grad = gradOutput;
  int64_t gradRowStride = l.outRows > 1 ? grad.stride(0) : l.width;
  if (grad.stride(1) != 1 || gradRowStride < l.width) {
    grad = grad.contiguous();
    gradRowStride = l.width;
  }

  // The states: one list a state of the optimizer (SGD none, rowwise
  // Adagrad a [rows] one, Adam two of the tables' shape), f32 or bf16.
  const int64_t states = optimizer; // SGD 0, rowwise Adagrad 1, Adam 2
  const int64_t precisions[2] = {momentum1Precision, momentum2Precision};
  const at::TensorList lists[2] = {momentum1, momentum2};
  std::vector<void *> pointers[2];
  for (int64_t k = 0; k < 2; ++k) {
    if (k >= states) {
      if (precisions[k] != EMBRT_STATE_F32)
        return kRefused;
      continue;
    }
    if ((precisions[k] != EMBRT_STATE_F32 &&
         precisions[k] != EMBRT_STATE_BF16) ||
        lists[k].size() != weights.size())
      return kRefused;
    for (size_t t = 0; t < weights.size(); ++t) {
      if (!readState(lists[k][t], weights[t], precisions[k],
                     optimizer == EMBRT_OPTIMIZER_ROWWISE_ADAGRAD, l.device))
        return kRefused;
      pointers[k].push_back(lists[k][t].data_ptr());
    }
  }
  if (!plain(hyperParams) ||
      hyperParams.scalar_type() != c10::ScalarType::Float ||
      hyperParams.dim() != 1 || hyperParams.size(0) != 5 ||
      hyperParams.device() != l.device)
    return kRefused;
  if (!plain(step) || step.scalar_type() != c10::ScalarType::Long ||
      step.numel() != 1 || step.device() != l.device)
    return kRefused;

  embrtTbeBackwardArgs b{};
  b.structSize = sizeof(embrtTbeBackwardArgs);
  b.lookup = l.args;
  b.gradOutput = grad.const_data_ptr();
  b.gradDtype = *runtimeDtype(grad.scalar_type());
  b.gradRowStride = gradRowStride;
  b.optimizer = static_cast<embrtOptimizer>(optimizer);
  if (states >= 1) {
    b.momentum1 = pointers[0].data();
    b.momentum1Precision = static_cast<embrtStatePrecision>(precisions[0]);
  }
  if (states >= 2) {
    b.momentum2 = pointers[1].data();
    b.momentum2Precision = static_cast<embrtStatePrecision>(precisions[1]);
  }
  b.hyperParams = hyperParams.const_data_ptr<float>();
  b.step = step.const_data_ptr<int64_t>();
  b.seed = static_cast<uint64_t>(seed);
  b.configId = -1;

  c10::OptionalDeviceGuard guard;
  if (l.device.is_cuda())
    guard.reset_device(l.device);
  size_t bytes = 0;
  if (rt.backwardWorkspace(ctx, &b, &bytes) != EMBRT_OK) {
    rt.clearError(ctx);
    return kRefused;
  }
  at::Tensor ws = workspace(l, bytes);
  if (bytes) {
    b.workspace = ws.data_ptr();
    b.workspaceBytes = bytes;
  }
  // From here the call counts: the step first (on the device: Adam's bias
  // correction and the rounding's seed read it), then the update; a failure
  // is the runtime's to name.
  at::Tensor(step).add_(1); // a handle: the same tensor
  int64_t status = rt.backward(ctx, &b);
  if (status != EMBRT_OK)
    return status;
  return rt.poll(ctx);
}

} // namespace

TORCH_LIBRARY_FRAGMENT(emb_torch, m) {
  m.def("tbe_forward(Tensor[] weights, int[] feature_table, Tensor indices, "
        "Tensor offsets, Tensor? per_sample_weights, int pooling, "
        "int bounds_check, int? padding_idx, ScalarType? output_dtype, "
        "int context, int runtime) -> (Tensor[], int)",
        &tbeForward);
  m.def("tbe_backward(int optimizer, Tensor(a!)[] weights, "
        "Tensor(b!)[] momentum1, Tensor(c!)[] momentum2, "
        "int momentum1_precision, int momentum2_precision, "
        "Tensor hyper_params, Tensor(d!) step, int[] feature_table, "
        "Tensor indices, Tensor offsets, Tensor? per_sample_weights, "
        "Tensor grad_output, int pooling, int bounds_check, int? padding_idx, "
        "int seed, int context, int runtime) -> int",
        &tbeBackward);
  m.def("tbe_forward_quantized(Tensor[] weights, int[] precisions, "
        "int[] dims, int[] feature_table, Tensor indices, Tensor offsets, "
        "Tensor? per_sample_weights, int pooling, int bounds_check, "
        "int? padding_idx, ScalarType? output_dtype, int context, "
        "int runtime) -> (Tensor[], int)",
        &tbeForwardQuantized);
}
