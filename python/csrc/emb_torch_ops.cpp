//===- python/csrc/emb_torch_ops.cpp - emb_torch's C++ ops ----------------===//
//
// libemb_torch_ops.so: the part of emb_torch that runs for every input of a
// call, in C++ (docs/pytorch.md, "The C++ ops library"). A model loaded with
// emb_torch.load has one memref descriptor per input in one buffer of 64-bit
// words (python/emb_torch/compiled.py, CompiledModel._prepare); an eager call
// checks each input and writes its pointers there. In Python that costs about
// 1.3 us an input (the ranking model's 206 inputs: 0.27 ms, more than its GPU
// time); here, a few nanoseconds.
//
//   emb_torch::write_inputs(Tensor[] inputs, int plan, int device_index)
//       -> bool
//
// `plan` is the address of the model's plan, int64 words that emb_torch
// writes once per model and keeps alive with it:
//
//   [0] the number of inputs    [1] the address of the descriptor words
//   then per input: the mask of accepted dtypes (bit k: c10::ScalarType k,
//   emb_torch::scalar_type_index gives k), the rank, the index of the
//   descriptor's first word, and the static shape (rank dims, -1 dynamic).
//
// For each input in order: a defined, strided, non-meta tensor without a
// Python dispatch key (no __torch_dispatch__ subclass or fake tensor), of an
// accepted dtype, on the call's device (`device_index`: the CUDA device,
// -1 for the CPU), of the plan's rank and static dims, contiguous and with
// memory; its data pointer goes to the descriptor's allocated and aligned
// words, and, for an input with a dynamic dim, its sizes and row-major
// strides after them. True when every input passed; false at the first that
// did not (the words are then partly written), and emb_torch takes its
// Python path, which checks again, writes every descriptor and names what
// is wrong. Nothing here throws for a tensor that fails a check.
//
//   emb_torch::scalar_type_index(ScalarType dtype) -> int
//
// c10's number for a dtype, for the plan's masks.
//
//===----------------------------------------------------------------------===//

#include <ATen/core/ATen_fwd.h>
#include <ATen/core/Tensor.h>
#include <c10/core/DispatchKey.h>
#include <c10/core/ScalarType.h>
#include <torch/library.h>

#include <cstdint>

namespace {

/// The plan's words per input before its dims.
constexpr int64_t kInputHeader = 3;
/// A descriptor's words before its sizes: allocated, aligned, offset.
constexpr int64_t kDescriptorHeader = 3;

bool accepts(const at::Tensor &t, int64_t mask, int64_t rank,
             const int64_t *shape, int64_t deviceIndex) {
  if (!t.defined() || t.layout() != c10::kStrided || t.is_meta() ||
      !t.has_storage())
    return false;
  if (t.key_set().has(c10::DispatchKey::Python))
    return false;
  int64_t type = static_cast<int64_t>(t.scalar_type());
  if (type < 0 || type >= 64 || !((mask >> type) & 1))
    return false;
  if (deviceIndex >= 0 ? !(t.is_cuda() && t.get_device() == deviceIndex)
                       : !t.is_cpu())
    return false;
  if (t.dim() != rank)
    return false;
  c10::IntArrayRef sizes = t.sizes();
  for (int64_t d = 0; d < rank; ++d)
    if (shape[d] >= 0 && sizes[d] != shape[d])
      return false;
  return t.is_contiguous();
}

bool writeInputs(at::TensorList inputs, int64_t plan, int64_t deviceIndex) {
  const int64_t *p = reinterpret_cast<const int64_t *>(plan);
  if (!p || p[0] != static_cast<int64_t>(inputs.size()))
    return false;
  uint64_t *words = reinterpret_cast<uint64_t *>(p[1]);
  const int64_t *q = p + 2;
  for (const at::Tensor &t : inputs) {
    int64_t mask = q[0], rank = q[1], at = q[2];
    const int64_t *shape = q + kInputHeader;
    q += kInputHeader + rank;
    if (!accepts(t, mask, rank, shape, deviceIndex))
      return false;
    const void *data = t.const_data_ptr();
    if (!data)
      return false; // no memory: the Python path gives an empty one a scratch
    words[at] = words[at + 1] =
        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(data));
    bool dynamic = false;
    for (int64_t d = 0; d < rank; ++d)
      dynamic |= shape[d] < 0;
    if (!dynamic)
      continue; // its sizes and strides were written once
    c10::IntArrayRef sizes = t.sizes();
    int64_t stride = 1;
    for (int64_t d = rank - 1; d >= 0; --d) {
      words[at + kDescriptorHeader + d] = static_cast<uint64_t>(sizes[d]);
      words[at + kDescriptorHeader + rank + d] = static_cast<uint64_t>(stride);
      stride *= sizes[d];
    }
  }
  return true;
}

int64_t scalarTypeIndex(c10::ScalarType dtype) {
  return static_cast<int64_t>(dtype);
}

} // namespace

TORCH_LIBRARY(emb_torch, m) {
  m.def("write_inputs(Tensor[] inputs, int plan, int device_index) -> bool",
        &writeInputs);
  m.def("scalar_type_index(ScalarType dtype) -> int", &scalarTypeIndex);
}
