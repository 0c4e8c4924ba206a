//===- kernels/data.cu - Data movement and elementwise ---------*- CUDA -*-===//
//
// The helpers compiled models use between the big ops: concat, strided copy,
// elementwise binary and unary ops, fill and convert. Each is a grid-stride
// loop of one output element (or one copy unit) per thread and step, in CTAs
// of EMBRT_CUDA_THREADS threads, grid embrtCudaGridSize; none uses shared
// memory. Semantics match the CPU backend (runtime/cpu/data.c): elementwise
// ops compute in f32 (f64 for f64) and round once; conversions round to
// nearest even, truncate and saturate float to integer (NaN to 0), and wrap
// integer to narrower integer.
//
//===----------------------------------------------------------------------===//

#include "kernels/common/convert.cuh"
#include "kernels/launch.h"

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

namespace {

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

/// Inputs of one concat launch: up to kChunk inputs passed by value.
constexpr int kChunk = 32;
struct ConcatChunk {
  const void *inputs[kChunk];
  long long widths[kChunk]; ///< units of input i per outer row
  long long starts[kChunk]; ///< first unit of input i within the chunk
  int count;
  long long chunkUnits;  ///< units of all the chunk's inputs per outer row
  long long outRowUnits; ///< units per outer row of the output
  long long outColumn;   ///< first unit of the chunk in an output row
};

/// The window of a strided copy, passed by value.
struct Window {
  int rank;
  long long sizes[EMBRT_MAX_RANK];
  long long strides[EMBRT_MAX_RANK];
  long long offset;
};

/// op(a, b) in T (float for f32/f16/bf16, double for f64). NaN propagates
/// through max and min, as on the CPU backend.
template <typename T> __device__ __forceinline__ T binary(int op, T a, T b) {
  switch (op) {
  case EMBRT_BINARY_ADD:
    return a + b;
  case EMBRT_BINARY_SUB:
    return a - b;
  case EMBRT_BINARY_MUL:
    return a * b;
  case EMBRT_BINARY_DIV:
    return a / b;
  case EMBRT_BINARY_MAX:
    return a > b || isnan(a) ? a : b;
  default:
    return a < b || isnan(a) ? a : b;
  }
}

/// op(x) in T; the math functions resolve to their float or double form.
template <typename T> __device__ __forceinline__ T unary(int op, T x) {
  const T one = 1, zero = 0;
  switch (op) {
  case EMBRT_UNARY_NEG:
    return -x;
  case EMBRT_UNARY_EXP:
    return exp(x);
  case EMBRT_UNARY_TANH:
    return tanh(x);
  case EMBRT_UNARY_SIGMOID:
    return one / (one + exp(-x));
  case EMBRT_UNARY_RELU:
    return x > zero || isnan(x) ? x : zero;
  case EMBRT_UNARY_SQRT:
    return sqrt(x);
  case EMBRT_UNARY_RSQRT:
    return one / sqrt(x);
  case EMBRT_UNARY_LOG:
    return log(x);
  default:
    return fabs(x);
  }
}

__device__ __forceinline__ bool isInteger(int dtype) {
  return dtype == EMBRT_I32 || dtype == EMBRT_I64 || dtype == EMBRT_I8;
}

__device__ __forceinline__ long long loadInteger(const void *p, int dtype,
                                                 long long i) {
  switch (dtype) {
  case EMBRT_I8:
    return static_cast<const signed char *>(p)[i];
  case EMBRT_I32:
    return static_cast<const int *>(p)[i];
  default:
    return static_cast<const long long *>(p)[i];
  }
}

/// A float element, widened exactly to double.
__device__ __forceinline__ double loadFloat(const void *p, int dtype,
                                            long long i) {
  switch (dtype) {
  case EMBRT_F16:
    return __half2float(static_cast<const __half *>(p)[i]);
  case EMBRT_BF16:
    return __bfloat162float(static_cast<const __nv_bfloat16 *>(p)[i]);
  case EMBRT_F64:
    return static_cast<const double *>(p)[i];
  default:
    return static_cast<const float *>(p)[i];
  }
}

/// Truncates toward zero and saturates to [lo, hi]; NaN gives 0.
__device__ __forceinline__ long long truncateSaturating(double x, long long lo,
                                                        long long hi) {
  if (isnan(x))
    return 0;
  if (x <= (double)lo)
    return lo;
  if (x >= (double)hi) // (double)LLONG_MAX is 2^63
    return hi;
  return (long long)x;
}

__device__ __forceinline__ void storeFromInteger(void *p, int dtype,
                                                 long long i, long long v) {
  switch (dtype) {
  case EMBRT_I8:
    static_cast<unsigned char *>(p)[i] = (unsigned char)v; // wraps
    break;
  case EMBRT_I32:
    static_cast<unsigned int *>(p)[i] = (unsigned int)v; // wraps
    break;
  case EMBRT_I64:
    static_cast<long long *>(p)[i] = v;
    break;
  case EMBRT_F32:
    static_cast<float *>(p)[i] = __ll2float_rn(v);
    break;
  case EMBRT_F64:
    static_cast<double *>(p)[i] = __ll2double_rn(v);
    break;
  case EMBRT_F16:
    static_cast<__half *>(p)[i] = __ll2half_rn(v);
    break;
  default:
    static_cast<__nv_bfloat16 *>(p)[i] = __ll2bfloat16_rn(v);
    break;
  }
}

__device__ __forceinline__ void storeFromFloat(void *p, int dtype, long long i,
                                               double x) {
  switch (dtype) {
  case EMBRT_I8:
    static_cast<signed char *>(p)[i] =
        (signed char)truncateSaturating(x, -128, 127);
    break;
  case EMBRT_I32:
    static_cast<int *>(p)[i] =
        (int)truncateSaturating(x, -2147483647LL - 1, 2147483647LL);
    break;
  case EMBRT_I64:
    static_cast<long long *>(p)[i] = truncateSaturating(
        x, -9223372036854775807LL - 1, 9223372036854775807LL);
    break;
  case EMBRT_F32:
    static_cast<float *>(p)[i] = __double2float_rn(x);
    break;
  case EMBRT_F64:
    static_cast<double *>(p)[i] = x;
    break;
  case EMBRT_F16:
    static_cast<__half *>(p)[i] = __double2half(x);
    break;
  default:
    static_cast<__nv_bfloat16 *>(p)[i] = __double2bfloat16(x);
    break;
  }
}

#define GRID_STRIDE(i, total)                                                  \
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;         \
       i < (total); i += (long long)gridDim.x * blockDim.x)

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/*
 * concatKernel<V>: copies the chunk's inputs into their column ranges of the
 * output, one unit V (1..16 bytes) per thread and step over
 * outer * chunkUnits units. Assumes every pointer and every input's row
 * aligned to sizeof(V). A thread finds its input by a linear scan of at most
 * kChunk starts.
 */
template <typename V>
__global__ void concatKernel(ConcatChunk c, long long outer,
                             V *__restrict__ out) {
  GRID_STRIDE(i, outer * c.chunkUnits) {
    long long o = i / c.chunkUnits, r = i - o * c.chunkUnits;
    int k = 0;
    while (k + 1 < c.count && r >= c.starts[k + 1])
      ++k;
    const V *in = static_cast<const V *>(c.inputs[k]);
    out[o * c.outRowUnits + c.outColumn + r] =
        in[o * c.widths[k] + (r - c.starts[k])];
  }
}

/*
 * stridedCopyKernel<U>: out[n] = in[offset + sum_d index_d(n) * stride_d],
 * one element (U of the element's size) per thread and step over `count`.
 */
template <typename U>
__global__ void stridedCopyKernel(Window w, long long count,
                                  const U *__restrict__ in,
                                  U *__restrict__ out) {
  GRID_STRIDE(n, count) {
    long long rest = n, source = w.offset;
    for (int d = w.rank - 1; d >= 0; --d) {
      source += (rest % w.sizes[d]) * w.strides[d];
      rest /= w.sizes[d];
    }
    out[n] = in[source];
  }
}

/*
 * elementwiseKernel<T>: out[i] = op(a[i], b[i]) (or op(a[i])), one element
 * per thread and step, in the compute type of T. `op` is uniform, so the
 * switch does not diverge. out may alias a or b element for element.
 */
template <typename T>
__global__ void elementwiseKernel(long long n, bool isUnary, int op, const T *a,
                                  const T *b, T *out) {
  GRID_STRIDE(i, n) {
    auto x = embrt::toCompute(a[i]);
    auto r = isUnary ? unary(op, x) : binary(op, x, embrt::toCompute(b[i]));
    out[i] = embrt::fromCompute<T>(r);
  }
}

/*
 * integerElementwiseKernel<T>: the integer form of elementwiseKernel (add,
 * sub, mul, max, min; neg, abs), wrapping on overflow as MLIR's arith does.
 * One element per thread and step.
 */
template <typename T>
__global__ void integerElementwiseKernel(long long n, bool isUnary, int op,
                                         const T *a, const T *b, T *out) {
  typedef typename std::make_unsigned<T>::type U;
  GRID_STRIDE(i, n) {
    U x = (U)a[i], r;
    if (isUnary) {
      r = op == EMBRT_UNARY_NEG ? (U)(0u - x) : a[i] < 0 ? (U)(0u - x) : x;
    } else {
      U y = (U)b[i];
      switch (op) {
      case EMBRT_BINARY_ADD:
        r = x + y;
        break;
      case EMBRT_BINARY_SUB:
        r = x - y;
        break;
      case EMBRT_BINARY_MUL:
        r = x * y;
        break;
      case EMBRT_BINARY_MAX:
        r = a[i] > b[i] ? x : y;
        break;
      default:
        r = a[i] < b[i] ? x : y;
      }
    }
    out[i] = (T)r;
  }
}

/// fillKernel<U>: out[i] = value, one element per thread and step.
template <typename U>
__global__ void fillKernel(U value, long long n, U *__restrict__ out) {
  GRID_STRIDE(i, n) { out[i] = value; }
}

/*
 * convertKernel: out[i] = convert(in[i]), one element per thread and step.
 * The dtypes are uniform runtime values: one kernel serves all 49 pairs.
 */
__global__ void convertKernel(const void *__restrict__ in, int inDtype,
                              void *__restrict__ out, int outDtype,
                              long long n) {
  GRID_STRIDE(i, n) {
    if (isInteger(inDtype))
      storeFromInteger(out, outDtype, i, loadInteger(in, inDtype, i));
    else
      storeFromFloat(out, outDtype, i, loadFloat(in, inDtype, i));
  }
}

//===----------------------------------------------------------------------===//
// Instantiations and host helpers
//===----------------------------------------------------------------------===//

cudaStream_t streamOf(const embrtLaunchEnv *env) {
  return static_cast<cudaStream_t>(env->stream);
}

template <typename V>
void launchConcat(embrtLaunchEnv *env, const ConcatChunk &c, long long outer,
                  void *out) {
  concatKernel<V>
      <<<embrtCudaGridSize(env, outer * c.chunkUnits), EMBRT_CUDA_THREADS, 0,
         streamOf(env)>>>(c, outer, static_cast<V *>(out));
}

void launchConcatUnit(embrtLaunchEnv *env, size_t unit, const ConcatChunk &c,
                      long long outer, void *out) {
  switch (unit) {
  case 16:
    launchConcat<uint4>(env, c, outer, out);
    break;
  case 8:
    launchConcat<uint2>(env, c, outer, out);
    break;
  case 4:
    launchConcat<unsigned int>(env, c, outer, out);
    break;
  case 2:
    launchConcat<unsigned short>(env, c, outer, out);
    break;
  default:
    launchConcat<unsigned char>(env, c, outer, out);
    break;
  }
}

/// The widest power of two up to 16 that divides `value`.
size_t widestDivisor(uint64_t value) {
  size_t unit = 16;
  while (unit > 1 && value % unit)
    unit /= 2;
  return unit;
}

template <typename U>
void launchStrided(embrtLaunchEnv *env, const Window &w, long long count,
                   const void *in, void *out) {
  stridedCopyKernel<U>
      <<<embrtCudaGridSize(env, count), EMBRT_CUDA_THREADS, 0, streamOf(env)>>>(
          w, count, static_cast<const U *>(in), static_cast<U *>(out));
}

template <typename T>
void launchIntegerElementwise(embrtLaunchEnv *env,
                              const embrtElementwiseArgs *a) {
  integerElementwiseKernel<T><<<embrtCudaGridSize(env, a->numElements),
                                EMBRT_CUDA_THREADS, 0, streamOf(env)>>>(
      a->numElements, a->isUnary != 0,
      a->isUnary ? (int)a->unaryOp : (int)a->binaryOp,
      static_cast<const T *>(a->a), static_cast<const T *>(a->b),
      static_cast<T *>(a->output));
}

template <typename T>
void launchElementwise(embrtLaunchEnv *env, const embrtElementwiseArgs *a) {
  elementwiseKernel<T><<<embrtCudaGridSize(env, a->numElements),
                         EMBRT_CUDA_THREADS, 0, streamOf(env)>>>(
      a->numElements, a->isUnary != 0,
      a->isUnary ? (int)a->unaryOp : (int)a->binaryOp,
      static_cast<const T *>(a->a), static_cast<const T *>(a->b),
      static_cast<T *>(a->output));
}

template <typename U>
void launchFill(embrtLaunchEnv *env, void *out, long long n,
                const void *value) {
  U bits;
  memcpy(&bits, value, sizeof bits);
  fillKernel<U>
      <<<embrtCudaGridSize(env, n), EMBRT_CUDA_THREADS, 0, streamOf(env)>>>(
          bits, n, static_cast<U *>(out));
}

} // namespace

//===----------------------------------------------------------------------===//
// Launchers
//===----------------------------------------------------------------------===//

extern "C" embrtStatus embrtCudaLaunchConcat(embrtLaunchEnv *env,
                                             const embrtConcatArgs *a) {
  size_t es = embrtDtypeSize(a->dtype);
  long long total = 0;
  for (int64_t i = 0; i < a->numInputs; ++i)
    total += a->inputDimSizes[i];
  uint64_t outRowBytes = (uint64_t)(total * a->innerSize) * es;
  // One unit for all chunks: it divides every row and every address.
  uint64_t combined = outRowBytes | (uintptr_t)a->output;
  for (int64_t i = 0; i < a->numInputs; ++i)
    if (a->inputDimSizes[i] > 0)
      combined |= (uint64_t)(a->inputDimSizes[i] * a->innerSize) * es |
                  (uintptr_t)a->inputs[i];
  size_t unit = widestDivisor(combined);

  ConcatChunk c;
  memset(&c, 0, sizeof c);
  c.outRowUnits = (long long)(outRowBytes / unit);
  long long column = 0; // in units
  for (int64_t i = 0; i < a->numInputs; ++i) {
    long long width =
        (long long)((uint64_t)(a->inputDimSizes[i] * a->innerSize) * es / unit);
    if (width == 0)
      continue;
    if (c.count == 0)
      c.outColumn = column;
    c.inputs[c.count] = a->inputs[i];
    c.widths[c.count] = width;
    c.starts[c.count] = c.chunkUnits;
    c.chunkUnits += width;
    column += width;
    if (++c.count == kChunk) {
      launchConcatUnit(env, unit, c, a->outerSize, a->output);
      c.count = 0;
      c.chunkUnits = 0;
    }
  }
  if (c.count > 0)
    launchConcatUnit(env, unit, c, a->outerSize, a->output);
  return embrtCudaCheck(env, cudaGetLastError(), "concat: kernel launch");
}

extern "C" embrtStatus
embrtCudaLaunchStridedCopy(embrtLaunchEnv *env, const embrtStridedCopyArgs *a) {
  Window w;
  memset(&w, 0, sizeof w);
  w.rank = (int)a->rank;
  w.offset = a->inputOffset;
  long long count = 1;
  for (int d = 0; d < w.rank; ++d) {
    w.sizes[d] = a->sizes[d];
    w.strides[d] = a->inputStrides[d];
    count *= a->sizes[d];
  }
  switch (embrtDtypeSize(a->dtype)) {
  case 8:
    launchStrided<unsigned long long>(env, w, count, a->input, a->output);
    break;
  case 4:
    launchStrided<unsigned int>(env, w, count, a->input, a->output);
    break;
  case 2:
    launchStrided<unsigned short>(env, w, count, a->input, a->output);
    break;
  default:
    launchStrided<unsigned char>(env, w, count, a->input, a->output);
    break;
  }
  return embrtCudaCheck(env, cudaGetLastError(), "strided_copy: kernel launch");
}

extern "C" embrtStatus
embrtCudaLaunchElementwise(embrtLaunchEnv *env, const embrtElementwiseArgs *a) {
  switch (a->dtype) {
  case EMBRT_F32:
    launchElementwise<float>(env, a);
    break;
  case EMBRT_F16:
    launchElementwise<__half>(env, a);
    break;
  case EMBRT_BF16:
    launchElementwise<__nv_bfloat16>(env, a);
    break;
  case EMBRT_F64:
    launchElementwise<double>(env, a);
    break;
  case EMBRT_I32:
    launchIntegerElementwise<int32_t>(env, a);
    break;
  case EMBRT_I64:
    launchIntegerElementwise<int64_t>(env, a);
    break;
  default:
    return embrtLaunchError(env, EMBRT_UNSUPPORTED,
                            "elementwise: dtype %d has no kernel",
                            (int)a->dtype);
  }
  return embrtCudaCheck(env, cudaGetLastError(), "elementwise: kernel launch");
}

extern "C" embrtStatus embrtCudaLaunchFill(embrtLaunchEnv *env, void *output,
                                           embrtDtype dtype,
                                           int64_t numElements,
                                           const void *value) {
  switch (embrtDtypeSize(dtype)) {
  case 8:
    launchFill<unsigned long long>(env, output, numElements, value);
    break;
  case 4:
    launchFill<unsigned int>(env, output, numElements, value);
    break;
  case 2:
    launchFill<unsigned short>(env, output, numElements, value);
    break;
  default:
    launchFill<unsigned char>(env, output, numElements, value);
    break;
  }
  return embrtCudaCheck(env, cudaGetLastError(), "fill: kernel launch");
}

extern "C" embrtStatus
embrtCudaLaunchConvert(embrtLaunchEnv *env, const void *input,
                       embrtDtype inputDtype, void *output,
                       embrtDtype outputDtype, int64_t numElements) {
  convertKernel<<<embrtCudaGridSize(env, numElements), EMBRT_CUDA_THREADS, 0,
                  streamOf(env)>>>(input, (int)inputDtype, output,
                                   (int)outputDtype, numElements);
  return embrtCudaCheck(env, cudaGetLastError(), "convert: kernel launch");
}
