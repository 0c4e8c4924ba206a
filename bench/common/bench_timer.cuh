//===- bench/common/bench_timer.cuh - How kernel benchmarks time a call ---===//
//
// BenchTimer: the one timer of the CUDA benchmark drivers (bench/*/*_bench.cu)
// that call the kernels' launchers directly, timing a call as
// triton.testing.do_bench times the torch peers (docs/benchmarks.md, "How
// ours is timed"). Tests need no timer. The drivers that go through the
// public runtime API in C (bench/jagged, bench/tbe/tbe_graphs.c) time with
// embrtEvent* the same way; see their sources.
//
//===----------------------------------------------------------------------===//

#ifndef EMB_BENCH_COMMON_BENCH_TIMER_CUH
#define EMB_BENCH_COMMON_BENCH_TIMER_CUH

// CUDA_CHECK and waitOrDie.
#include "test/Kernels/gpu_test.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include <limits.h>
#include <math.h>

/// How the kernel benchmarks time a call: as triton.testing.do_bench times
/// the torch peers (docs/benchmarks.md, "How ours is timed"). A first call,
/// then five flushed calls estimate one call's time; then ceil(warmMs /
/// estimate) warm-up calls back to back; then max(minCalls, ceil(timedMs /
/// estimate)) calls, each after a 256 MB memset that flushes L2 and between its
/// own pair of events, with no host synchronisation between calls; the median.
/// So a long compute-bound run meets the card's power cap as the peers' runs do
/// (on the H200 the SM clock drops to 1500-1650 MHz from 1980 under sustained
/// load; a short burst ends before it does). The fields change the method
/// for probes, profilers and A/B runs: `flushOn` false keeps L2 warm;
/// fixed(warm, calls) skips the estimate and times exactly `calls` calls
/// after `warm` warm-up calls; burst(calls) is how the benchmarks timed
/// before 2026-12-04 (5 warm-up calls, `calls` timed, no flush). With
/// `watchdogSeconds` > 0 every wait goes through waitOrDie (a hung launch
/// exits instead of waiting).
struct BenchTimer {
  cudaStream_t stream;
  void *flush = nullptr;
  size_t flushBytes = 256ull << 20;
  bool flushOn = true;
  bool fixedCount = false; ///< warmCalls and minCalls as given, no estimate
  int warmCalls = 0;
  float warmMs = 25.f;
  int maxWarm = INT_MAX;
  int minCalls = 1;
  int maxCalls = INT_MAX;
  double watchdogSeconds = 0;
  const char *what = "benchmark";

  explicit BenchTimer(cudaStream_t s) : stream(s) {
    CUDA_CHECK(cudaMalloc(&flush, flushBytes));
  }
  ~BenchTimer() { cudaFree(flush); }
  BenchTimer(const BenchTimer &) = delete;
  BenchTimer &operator=(const BenchTimer &) = delete;

  void fixed(int warm, int calls) {
    fixedCount = true;
    warmCalls = warm;
    minCalls = calls;
  }
  void burst(int calls) {
    fixed(5, calls);
    flushOn = false;
  }

  /// Every timed call's time in ms, sorted.
  template <typename F> std::vector<float> times(F call, double timedMs) {
    int warm = warmCalls, n = minCalls;
    if (!fixedCount) {
      const float est = estimate(call);
      warm = std::min(maxWarm, (int)ceil(warmMs / est));
      n = std::min(maxCalls,
                   std::max(minCalls, (int)ceil(timedMs / (double)est)));
    }
    for (int i = 0; i < warm; ++i)
      call();
    std::vector<cudaEvent_t> ev(2 * n);
    for (cudaEvent_t &e : ev)
      CUDA_CHECK(cudaEventCreate(&e));
    for (int i = 0; i < n; ++i) {
      if (flushOn)
        CUDA_CHECK(cudaMemsetAsync(flush, i, flushBytes, stream));
      CUDA_CHECK(cudaEventRecord(ev[2 * i], stream));
      call();
      CUDA_CHECK(cudaEventRecord(ev[2 * i + 1], stream));
    }
    wait();
    std::vector<float> ms(n);
    for (int i = 0; i < n; ++i)
      CUDA_CHECK(cudaEventElapsedTime(&ms[i], ev[2 * i], ev[2 * i + 1]));
    for (cudaEvent_t &e : ev)
      CUDA_CHECK(cudaEventDestroy(e));
    std::sort(ms.begin(), ms.end());
    return ms;
  }

  /// One call's time in ms (at least 1 us), from five (flushed) calls after
  /// a first one (which may build plans).
  template <typename F> float estimate(F call) {
    call();
    wait();
    cudaEvent_t a, b;
    CUDA_CHECK(cudaEventCreate(&a));
    CUDA_CHECK(cudaEventCreate(&b));
    CUDA_CHECK(cudaEventRecord(a, stream));
    for (int i = 0; i < 5; ++i) {
      if (flushOn)
        CUDA_CHECK(cudaMemsetAsync(flush, i, flushBytes, stream));
      call();
    }
    CUDA_CHECK(cudaEventRecord(b, stream));
    wait();
    float est = 0;
    CUDA_CHECK(cudaEventElapsedTime(&est, a, b));
    CUDA_CHECK(cudaEventDestroy(a));
    CUDA_CHECK(cudaEventDestroy(b));
    return std::max(est / 5.f, 1e-3f);
  }

  /// The median of times(call, timedMs), as do_bench takes it (the mean of
  /// the middle two of an even count).
  template <typename F> double median(F call, double timedMs = 100.0) {
    return medianOf(times(call, timedMs));
  }

  static double medianOf(const std::vector<float> &sorted) {
    const size_t n = sorted.size();
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  }

  void wait() {
    if (watchdogSeconds > 0)
      waitOrDie(stream, watchdogSeconds, what, stderr);
    else
      CUDA_CHECK(cudaStreamSynchronize(stream));
  }
};

#endif // EMB_BENCH_COMMON_BENCH_TIMER_CUH
