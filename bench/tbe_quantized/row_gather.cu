//===- bench/tbe_quantized/row_gather.cu - Random rows against DRAM -*- CUDA
//-*-===//
//
// What the device gives a gather of random table rows, by row size and row
// stride, under each L2 fetch granularity limit
// (cudaLimitMaxL2FetchGranularity): the ceiling of a lookup whose rows are not
// a multiple of 64 bytes, such as FBGEMM's int8 (144-byte) and int4 (80-byte)
// rows at D 128 (docs/kernels/tbe_quantized.md, "Fetch granularity").
//
//   nvcc -O3 -arch=sm_90 -o /tmp/row_gather bench/tbe_quantized/row_gather.cu
//   /tmp/row_gather [records.jsonl]
//
// Each warp reads whole rows (a lane 16 bytes), four row groups in flight,
// of 10,485,760 ids drawn uniformly over an 8 GiB table (no reuse in L2),
// and folds them into one register so that nothing is written back. Each
// case is the fastest of 7 launches, a 64 MiB write between them; GB/s count
// the row bytes (and the 32-byte sectors the row touches), against a 2 GiB
// device-to-device copy of the same process. Then the same gather over
// tables that L2 holds (16 and 40 MiB, warm): the rate of repeated rows.
// Last, rows read, changed and written back, with and without a 4-byte state
// a row: the traffic of a training step's update (bench/tbe_train/NOTES.md).
// Every CUDA call is checked.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "row_gather: %s: %s\n", #x,                         \
                   cudaGetErrorString(e_));                                    \
      return 1;                                                                \
    }                                                                          \
  } while (0)

namespace {

constexpr size_t kTableBytes = 8ull << 30;
constexpr int64_t kIds = 10485760;
constexpr int kUnroll = 4;

__global__ void gatherRows(const uint4 *__restrict__ table,
                           const int64_t *__restrict__ ids, int64_t n,
                           int chunks, int64_t strideChunks, float *sink) {
  const int lane = threadIdx.x & 31;
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = (gridDim.x * (int64_t)blockDim.x) >> 5;
  const int rowsAtOnce = 32 / chunks;
  const int sub = lane / chunks, chunk = lane % chunks;
  float acc = 0;
  for (int64_t base = warp * rowsAtOnce * kUnroll; base < n;
       base += warps * rowsAtOnce * kUnroll) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t i = base + u * rowsAtOnce + sub;
      v[u] = make_uint4(0, 0, 0, 0);
      if (sub < rowsAtOnce && i < n)
        v[u] = __ldg(table + ids[i] * strideChunks + chunk);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      acc += __uint_as_float(v[u].x ^ v[u].y ^ v[u].z ^ v[u].w);
  }
  if (acc == 1.2345f) // never, but the loads cannot be dropped
    sink[0] = acc;
}

/// Reads, changes and writes back whole rows (a lane 16 bytes, four row
/// groups in flight a warp), and with `state` a 4-byte word a row as well
/// (rowwise Adagrad's state): the traffic of a training step's update of
/// rows touched once. Ids may repeat (uniform draws): a row changed twice
/// only moves its bytes twice, which is what is counted.
__global__ void updateRows(uint4 *__restrict__ table, float *__restrict__ state,
                           const int64_t *__restrict__ ids, int64_t n,
                           int chunks) {
  const int lane = threadIdx.x & 31;
  const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = (gridDim.x * (int64_t)blockDim.x) >> 5;
  const int rowsAtOnce = 32 / chunks;
  const int sub = lane / chunks, chunk = lane % chunks;
  for (int64_t base = warp * rowsAtOnce * kUnroll; base < n;
       base += warps * rowsAtOnce * kUnroll) {
    uint4 v[kUnroll];
    float w[kUnroll];
    int64_t id[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int64_t i = base + u * rowsAtOnce + sub;
      id[u] = sub < rowsAtOnce && i < n ? ids[i] : -1;
      v[u] = make_uint4(0, 0, 0, 0);
      w[u] = 0;
      if (id[u] >= 0) {
        v[u] = __ldcg(table + id[u] * chunks + chunk);
        if (state && chunk == 0)
          w[u] = __ldcg(state + id[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      if (id[u] >= 0) {
        v[u].x ^= 1u;
        table[id[u] * chunks + chunk] = v[u];
        if (state && chunk == 0)
          state[id[u]] = w[u] + 1.0f;
      }
  }
}

/// 64 well-mixed bits of draw i of the stream `salt`.
__device__ uint64_t drawBits(int64_t i, uint64_t salt) {
  uint64_t x = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull ^ salt;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  return x;
}

/// Ascending distinct ids, one in each `gap` consecutive rows (at a random
/// place in it): the order in which a training step's sorted runs update
/// the rows of a table. With `windowLog`, each whole window of 2^windowLog
/// of them is stored scrambled (position j of a window holds its id j x an
/// odd multiplier, modulo the window): the same rows, taken in another
/// order within each window.
__global__ void drawSortedIds(int64_t *ids, int64_t n, int64_t gap,
                              int windowLog) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int64_t at = i;
  if (windowLog > 0) {
    const int64_t w = (int64_t)1 << windowLog, base = i & ~(w - 1);
    if (base + w <= n)
      at = base + ((i - base) * 0x9E3779B1ll & (w - 1));
  }
  ids[at] = i * gap + (int64_t)(drawBits(i, 6789) % (uint64_t)gap);
}

__global__ void drawIds(int64_t *ids, int64_t n, int64_t rows) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n)
    ids[i] = (int64_t)(drawBits(i, 12345) % (uint64_t)rows);
}

/// Bytes of the 32-byte sectors a row of `row` bytes touches, averaged over
/// rows `stride` bytes apart.
double sectorBytes(int row, int stride) {
  double sum = 0;
  for (int k = 0; k < 64; ++k) {
    const int64_t at = (int64_t)k * stride;
    sum += (double)((at + row - 1) / 32 - at / 32 + 1) * 32;
  }
  return sum / 64;
}

} // namespace

int main(int argc, char **argv) {
  FILE *records = argc > 1 ? std::fopen(argv[1], "w") : nullptr;
  if (argc > 1 && !records) {
    std::fprintf(stderr, "row_gather: cannot write %s\n", argv[1]);
    return 1;
  }
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  uint4 *table = nullptr;
  int64_t *ids = nullptr;
  float *sink = nullptr;
  CHECK(cudaMalloc(&table, kTableBytes));
  CHECK(cudaMemset(table, 1, kTableBytes));
  CHECK(cudaMalloc(&ids, kIds * sizeof(int64_t)));
  CHECK(cudaMalloc(&sink, sizeof(float)));
  size_t defaultLimit = 0;
  CHECK(cudaDeviceGetLimit(&defaultLimit, cudaLimitMaxL2FetchGranularity));

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  char *half = reinterpret_cast<char *>(table) + (2ull << 30);
  CHECK(cudaMemcpy(half, table, 2ull << 30, cudaMemcpyDeviceToDevice));
  CHECK(cudaEventRecord(start));
  for (int r = 0; r < 5; ++r)
    CHECK(cudaMemcpyAsync(half, table, 2ull << 30, cudaMemcpyDeviceToDevice));
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  const double copyGbps = 2.0 * 5 * (2ull << 30) / (ms / 1e3) / 1e9;
  std::printf("%s, copy %.0f GB/s, default L2 fetch granularity limit %zu\n",
              prop.name, copyGbps, defaultLimit);

  // f16 D 128, FBGEMM's int8 row (D + 4, padded to 16) and its data alone,
  // int4 likewise, int4 at a 128-byte stride, and other dense row sizes.
  const struct {
    int row, stride;
  } shapes[] = {{256, 256}, {144, 144}, {128, 144}, {80, 80}, {64, 80},
                {80, 128},  {64, 64},   {48, 48},   {96, 96}, {160, 160}};
  const size_t limits[] = {0, 32, 128};
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("%6s %6s %6s %9s %9s %9s %8s %8s\n", "row", "stride", "limit",
              "us", "GB/s", "sector", "copy%", "sector%");
  for (const auto &s : shapes) {
    const int64_t rows = (int64_t)(kTableBytes / s.stride) - 1;
    drawIds<<<(unsigned)((kIds + 255) / 256), 256>>>(ids, kIds, rows);
    CHECK(cudaGetLastError());
    for (size_t limit : limits) {
      CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity,
                               limit ? limit : defaultLimit));
      size_t got = 0;
      CHECK(cudaDeviceGetLimit(&got, cudaLimitMaxL2FetchGranularity));
      float best = 1e30f;
      for (int r = 0; r < 7; ++r) {
        CHECK(cudaMemsetAsync(half, r, 64 << 20));
        CHECK(cudaEventRecord(start));
        gatherRows<<<(unsigned)sms * 8, 256>>>(
            table, ids, kIds, (s.row + 15) / 16, s.stride / 16, sink);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        best = ms < best ? ms : best;
      }
      const double secs = best / 1e3;
      const double gbps = (double)kIds * s.row / secs / 1e9;
      const double sectorGbps =
          (double)kIds * sectorBytes(s.row, s.stride) / secs / 1e9;
      std::printf("%6d %6d %6zu %9.1f %9.0f %9.0f %7.1f%% %7.1f%%\n", s.row,
                  s.stride, got, best * 1e3, gbps, sectorGbps,
                  100 * gbps / copyGbps, 100 * sectorGbps / copyGbps);
      if (records)
        std::fprintf(records,
                     "{\"device\": \"%s\", \"row_bytes\": %d, "
                     "\"stride_bytes\": %d, \"l2_fetch_limit\": %zu, "
                     "\"default_limit\": %zu, \"ids\": %lld, \"us\": %.1f, "
                     "\"gbps\": %.1f, \"sector_gbps\": %.1f, "
                     "\"copy_gbps\": %.1f, \"bw_fraction\": %.4f, "
                     "\"sector_fraction\": %.4f}\n",
                     prop.name, s.row, s.stride, got, defaultLimit,
                     (long long)kIds, best * 1e3, gbps, sectorGbps, copyGbps,
                     gbps / copyGbps, sectorGbps / copyGbps);
    }
  }
  CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, defaultLimit));

  // Rows of a table that L2 holds (its first 16 or 40 MiB, read once before
  // the timed launches and not flushed between them): the rate at which a
  // lookup gathers rows it has already read, the ceiling of the repeats
  // that a sweep's byte model counts once (docs/kernels/tbe_sweep.md).
  const struct {
    int row;
    size_t tableBytes;
  } resident[] = {{64, 16u << 20},  {128, 16u << 20}, {256, 16u << 20},
                  {512, 16u << 20}, {256, 40u << 20}, {512, 40u << 20}};
  std::printf("L2-resident tables (default limit)\n%6s %9s %9s %9s %8s\n",
              "row", "table MiB", "us", "GB/s", "copy%");
  for (const auto &s : resident) {
    const int64_t rows = (int64_t)(s.tableBytes / s.row);
    drawIds<<<(unsigned)((kIds + 255) / 256), 256>>>(ids, kIds, rows);
    CHECK(cudaGetLastError());
    float best = 1e30f;
    for (int r = 0; r < 8; ++r) { // the first launch fills L2, untimed
      CHECK(cudaEventRecord(start));
      gatherRows<<<(unsigned)sms * 8, 256>>>(table, ids, kIds, s.row / 16,
                                             s.row / 16, sink);
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      if (r > 0)
        best = ms < best ? ms : best;
    }
    const double gbps = (double)kIds * s.row / (best / 1e3) / 1e9;
    std::printf("%6d %9zu %9.1f %9.0f %7.1f%%\n", s.row, s.tableBytes >> 20,
                best * 1e3, gbps, 100 * gbps / copyGbps);
    if (records)
      std::fprintf(records,
                   "{\"device\": \"%s\", \"row_bytes\": %d, "
                   "\"stride_bytes\": %d, \"table_bytes\": %zu, "
                   "\"l2_resident\": true, \"l2_fetch_limit\": %zu, "
                   "\"ids\": %lld, \"us\": %.1f, \"gbps\": %.1f, "
                   "\"copy_gbps\": %.1f, \"bw_fraction\": %.4f}\n",
                   prop.name, s.row, s.row, s.tableBytes, defaultLimit,
                   (long long)kIds, best * 1e3, gbps, copyGbps,
                   gbps / copyGbps);
  }
  // Rows read, changed and written back over the table's first 6 GiB (the
  // next 128 MiB a 4-byte state a row where asked), caches flushed between
  // launches: GB/s count every byte read and written (a row twice, the state
  // twice), the copy's way (read + write); sector% counts the state's 32-byte
  // sectors instead of its 4 bytes. gap 0: ids drawn uniformly (random
  // order, repeats possible); gap k: ascending distinct ids, one in each k
  // rows, as a step's sorted runs reach a table (DLRM-DCNv2's largest
  // feature: 1.6 M ids over 20 M rows, a gap of about 12); window w: those
  // ids taken in a scrambled order within each 2^w of them.
  const struct {
    int row;
    bool state;
    int gap;
    int window;
  } updates[] = {{512, false, 0, 0},  {512, true, 0, 0},   {256, false, 0, 0},
                 {256, true, 0, 0},   {512, false, 1, 0},  {512, true, 1, 0},
                 {512, false, 12, 0}, {512, true, 12, 0},  {512, true, 128, 0},
                 {512, true, 12, 10}, {512, true, 12, 13}, {512, true, 12, 16},
                 {512, true, 12, 19}, {512, false, 12, 19}};
  std::printf("Rows updated in place (default limit)\n%6s %6s %5s %6s %9s "
              "%9s %8s %8s\n",
              "row", "state", "gap", "window", "us", "GB/s", "copy%",
              "sector%");
  float *state =
      reinterpret_cast<float *>(reinterpret_cast<char *>(table) + (6ull << 30));
  for (const auto &s : updates) {
    const int64_t rows = (int64_t)((6ull << 30) / s.row) - 1;
    const int64_t n = s.gap ? std::min(kIds, rows / s.gap) : kIds;
    if (s.gap)
      drawSortedIds<<<(unsigned)((n + 255) / 256), 256>>>(ids, n, s.gap,
                                                          s.window);
    else
      drawIds<<<(unsigned)((n + 255) / 256), 256>>>(ids, n, rows);
    CHECK(cudaGetLastError());
    float best = 1e30f;
    for (int r = 0; r < 7; ++r) {
      CHECK(cudaMemsetAsync(reinterpret_cast<char *>(table) + (7ull << 30), r,
                            64 << 20));
      CHECK(cudaEventRecord(start));
      updateRows<<<(unsigned)sms * 8, 256>>>(table, s.state ? state : nullptr,
                                             ids, n, s.row / 16);
      CHECK(cudaGetLastError());
      CHECK(cudaEventRecord(stop));
      CHECK(cudaEventSynchronize(stop));
      CHECK(cudaEventElapsedTime(&ms, start, stop));
      best = ms < best ? ms : best;
    }
    const double bytes = (double)n * 2 * (s.row + (s.state ? 4 : 0));
    const double sectorBytes = (double)n * 2 * (s.row + (s.state ? 32 : 0));
    const double gbps = bytes / (best / 1e3) / 1e9;
    const double sectorGbps = sectorBytes / (best / 1e3) / 1e9;
    std::printf("%6d %6s %5d %6d %9.1f %9.0f %7.1f%% %7.1f%%\n", s.row,
                s.state ? "4 B" : "-", s.gap, s.window, best * 1e3, gbps,
                100 * gbps / copyGbps, 100 * sectorGbps / copyGbps);
    if (records)
      std::fprintf(records,
                   "{\"device\": \"%s\", \"row_bytes\": %d, "
                   "\"update\": true, \"state_bytes\": %d, \"gap\": %d, "
                   "\"window_log\": %d, "
                   "\"l2_fetch_limit\": %zu, \"ids\": %lld, "
                   "\"us\": %.1f, \"gbps\": %.1f, \"sector_gbps\": %.1f, "
                   "\"copy_gbps\": %.1f, \"bw_fraction\": %.4f, "
                   "\"sector_fraction\": %.4f}\n",
                   prop.name, s.row, s.state ? 4 : 0, s.gap, s.window,
                   defaultLimit, (long long)n, best * 1e3, gbps, sectorGbps,
                   copyGbps, gbps / copyGbps, sectorGbps / copyGbps);
  }
  if (records)
    std::fclose(records);
  CHECK(cudaFree(table));
  CHECK(cudaFree(ids));
  CHECK(cudaFree(sink));
  return 0;
}
