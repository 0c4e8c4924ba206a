// REQUIRES: cuda-gpu, nccl
// RUN: sh %S/Inputs/collectives_nccl.sh %runtime_test_dir/collectives_nccl 1
// RUN: sh %S/Inputs/collectives_nccl.sh %runtime_test_dir/collectives_nccl 0
//
// The NCCL collectives, one process a rank, one GPU a rank. Usage:
// collectives_nccl <rank> <world size> <id file>. Rank 0 makes the
// communicator id and writes it to <id file> (the caller's distribution of
// the id: emb builds no transport); the others wait for it. Each rank then
// checks against values computed here:
//   - all_to_all of f32 rows with counts that differ for every pair
//     (rank r sends r + p + 1 rows of 3 to rank p), and of i64 ids;
//   - reduce_scatter of f32 (sum over ranks);
//   - all_gather of i64;
// all enqueued on the context's stream, then one embrtSynchronize. Then the
// compiled ABI's all_to_all with counts in device memory (what a sharded
// program's ids take): embrtCompiledAllToAllCounts copies them to the host,
// waits and returns the rows to receive, embrtCompiledAllToAll sends; the
// received rows are checked as above.
//
// NCCL (2.5 and later) refuses two ranks of one communicator on one GPU
// ("Duplicate GPU detected", ncclInvalidUsage), so a world of N needs N
// GPUs: the first RUN is one rank (NCCL's calls to itself), the second one
// rank a GPU present (0: as many as nvidia-smi lists). A world larger than
// the GPUs is refused here with that reason rather than by NCCL.

// nanosleep, while the other ranks wait for rank 0's id.
#define _POSIX_C_SOURCE 200809L

#include "emb/compiled.h"
#include "harness.h"

#include <cuda_runtime_api.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static embrtContext *ctx;

static void require(embrtStatus status, const char *what) {
  if (status == EMBRT_OK)
    return;
  fprintf(stderr, "%s failed: %s: %s\n", what, embrtStatusName(status),
          embrtContextGetLastError(ctx));
  exit(1);
}

static void *upload(const void *host, size_t bytes) {
  void *d = NULL;
  require(embrtMalloc(ctx, bytes ? bytes : 1, &d), "embrtMalloc");
  if (bytes)
    require(embrtMemcpy(ctx, d, host, bytes, EMBRT_COPY_HOST_TO_DEVICE),
            "upload");
  return d;
}

static void download(void *host, const void *dev, size_t bytes) {
  if (bytes)
    require(embrtMemcpy(ctx, host, dev, bytes, EMBRT_COPY_DEVICE_TO_HOST),
            "download");
}

/// Rank 0 writes the id (to a temporary name, then renames it, so readers
/// never see half of it); the others poll for it for up to a minute.
static void shareId(int rank, const char *path, embrtCommId *id) {
  if (rank == 0) {
    embrtStatus made = embrtCommGetUniqueId(EMBRT_DEVICE_CUDA, id);
    if (made != EMBRT_OK) {
      fprintf(stderr, "rank 0: embrtCommGetUniqueId: %s\n",
              embrtStatusName(made));
      exit(1);
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f || fwrite(id->bytes, 1, sizeof id->bytes, f) != sizeof id->bytes ||
        fclose(f) != 0 || rename(tmp, path) != 0) {
      fprintf(stderr, "rank 0: cannot write %s\n", path);
      exit(1);
    }
    return;
  }
  for (int tries = 0; tries < 6000; ++tries) {
    FILE *f = fopen(path, "rb");
    if (f) {
      size_t n = fread(id->bytes, 1, sizeof id->bytes, f);
      fclose(f);
      if (n == sizeof id->bytes)
        return;
    }
    struct timespec t = {0, 10 * 1000 * 1000};
    nanosleep(&t, NULL);
  }
  fprintf(stderr, "rank %d: no id at %s after 60 s\n", rank, path);
  exit(1);
}

static int64_t rowsFrom(int sender, int receiver) {
  return sender + receiver + 1;
}

static float valueOf(int sender, int receiver, int64_t row, int col) {
  return (float)(1000 * sender + 100 * receiver) + (float)row + 0.25f * col;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: collectives_nccl <rank> <world size> <id file>\n");
    return 2;
  }
  int rank = atoi(argv[1]), world = atoi(argv[2]);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    fprintf(stderr, "no GPU\n");
    return 1;
  }
  if (world > devices) {
    fprintf(stderr,
            "rank %d: a world of %d needs %d GPUs, %d present: NCCL refuses "
            "two ranks of one communicator on one GPU (Duplicate GPU "
            "detected)\n",
            rank, world, world, devices);
    return 1;
  }
  TEST_CASE("nccl");
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, rank, NULL, &ctx) != EMBRT_OK) {
    fprintf(stderr, "context: %s\n", embrtGetCreateError());
    return 1;
  }
  embrtCommId id;
  shareId(rank, argv[3], &id);
  require(embrtContextSetCommunicator(ctx, world, rank, &id),
          "embrtContextSetCommunicator");

  // all_to_all, f32 rows of 3, counts that differ for every pair.
  enum { cols = 3 };
  int64_t *sendCounts = calloc((size_t)world, sizeof(int64_t));
  int64_t *recvCounts = calloc((size_t)world, sizeof(int64_t));
  int64_t sendRows = 0, recvRows = 0;
  for (int p = 0; p < world; ++p) {
    sendCounts[p] = rowsFrom(rank, p);
    recvCounts[p] = rowsFrom(p, rank);
    sendRows += sendCounts[p];
    recvRows += recvCounts[p];
  }
  float *send = malloc((size_t)(sendRows * cols) * sizeof(float));
  int64_t at = 0;
  for (int p = 0; p < world; ++p)
    for (int64_t r = 0; r < sendCounts[p]; ++r, ++at)
      for (int c = 0; c < cols; ++c)
        send[at * cols + c] = valueOf(rank, p, r, c);
  void *dSend = upload(send, (size_t)(sendRows * cols) * sizeof(float));
  void *dRecv = NULL;
  require(embrtMalloc(ctx, (size_t)(recvRows * cols) * sizeof(float), &dRecv),
          "embrtMalloc");
  embrtAllToAllArgs a = {sizeof a, dSend,      dRecv,     EMBRT_F32,
                         cols,     sendCounts, recvCounts};
  require(embrtAllToAll(ctx, &a), "embrtAllToAll");

  // all_to_all of i64 ids, one id a row: rank r sends p the ids 10r + p.
  int64_t *ones = calloc((size_t)world, sizeof(int64_t));
  int64_t *ids = calloc((size_t)world, sizeof(int64_t));
  for (int p = 0; p < world; ++p) {
    ones[p] = 1;
    ids[p] = 10 * rank + p;
  }
  void *dIds = upload(ids, (size_t)world * sizeof(int64_t));
  void *dGotIds = upload(ids, (size_t)world * sizeof(int64_t));
  embrtAllToAllArgs b = {sizeof b, dIds, dGotIds, EMBRT_I64, 1, ones, ones};
  require(embrtAllToAll(ctx, &b), "embrtAllToAll (ids)");

  // reduce_scatter: rank r sends W blocks of M floats, value r + index.
  enum { m = 5 };
  float *rs = malloc((size_t)(world * m) * sizeof(float));
  for (int i = 0; i < world * m; ++i)
    rs[i] = (float)(rank + i);
  void *dRs = upload(rs, (size_t)(world * m) * sizeof(float));
  void *dRsOut = upload(rs, m * sizeof(float));
  require(embrtReduceScatter(ctx, dRs, dRsOut, EMBRT_F32, m),
          "embrtReduceScatter");

  // all_gather: rank r sends M ids r * M + k.
  int64_t mine[m];
  for (int k = 0; k < m; ++k)
    mine[k] = rank * m + k;
  void *dMine = upload(mine, sizeof mine);
  void *dAll = NULL;
  require(embrtMalloc(ctx, (size_t)(world * m) * sizeof(int64_t), &dAll),
          "embrtMalloc");
  require(embrtAllGather(ctx, dMine, dAll, EMBRT_I64, m), "embrtAllGather");
  require(embrtSynchronize(ctx), "embrtSynchronize");

  float *recv = malloc((size_t)(recvRows * cols) * sizeof(float));
  download(recv, dRecv, (size_t)(recvRows * cols) * sizeof(float));
  at = 0;
  for (int p = 0; p < world; ++p)
    for (int64_t r = 0; r < recvCounts[p]; ++r, ++at)
      for (int c = 0; c < cols; ++c)
        if (recv[at * cols + c] != valueOf(p, rank, r, c))
          HARNESS_FAIL("all_to_all: row %lld from rank %d col %d is %g, "
                       "want %g",
                       (long long)r, p, c, recv[at * cols + c],
                       valueOf(p, rank, r, c));
  download(ids, dGotIds, (size_t)world * sizeof(int64_t));
  for (int p = 0; p < world; ++p)
    EXPECT_EQ_INT(ids[p], 10 * p + rank);
  float got[m];
  download(got, dRsOut, sizeof got);
  for (int k = 0; k < m; ++k) {
    float want = 0;
    for (int r = 0; r < world; ++r)
      want += (float)(r + rank * m + k);
    if (got[k] != want)
      HARNESS_FAIL("reduce_scatter: element %d is %g, want %g", k, got[k],
                   want);
  }
  int64_t *all = malloc((size_t)(world * m) * sizeof(int64_t));
  download(all, dAll, (size_t)(world * m) * sizeof(int64_t));
  for (int i = 0; i < world * m; ++i)
    EXPECT_EQ_INT(all[i], i);

  // The compiled all_to_all with the counts on the device, the send buffer
  // two rows longer than the counts send (a bucketized buffer is sized for
  // the most ids there can be).
  void *dSendCounts = upload(sendCounts, (size_t)world * sizeof(int64_t));
  void *dRecvCounts = upload(recvCounts, (size_t)world * sizeof(int64_t));
  int64_t *host = calloc(2 * (size_t)world, sizeof(int64_t));
  int64_t attrs[EMB_ABI_A2A_SPLITS] = {[EMB_ABI_A2A_DTYPE] = EMBRT_F32,
                                       [EMB_ABI_A2A_WORLD_SIZE] = world,
                                       [EMB_ABI_A2A_HAS_COUNTS] = 1};
  void *bufs[] = {[EMB_ABI_A2A_BUF_SEND] = dSend,
                  [EMB_ABI_A2A_BUF_RECV] = NULL,
                  [EMB_ABI_A2A_BUF_SEND_COUNTS] = dSendCounts,
                  [EMB_ABI_A2A_BUF_RECV_COUNTS] = dRecvCounts,
                  [EMB_ABI_A2A_BUF_HOST_COUNTS] = host};
  int64_t dims[] = {[EMB_ABI_A2A_DIM_ROW] = cols,
                    [EMB_ABI_A2A_DIM_SEND_ROWS] = sendRows + 2,
                    [EMB_ABI_A2A_DIM_RECV_ROWS] = 0};
  int64_t rows = embrtCompiledAllToAllCounts(ctx, attrs, bufs, dims);
  require(embrtContextGetStatus(ctx), "embrtCompiledAllToAllCounts");
  EXPECT_EQ_INT(rows, recvRows);
  void *dRecv2 = NULL;
  require(embrtMalloc(ctx, (size_t)(rows * cols) * sizeof(float) + 1, &dRecv2),
          "embrtMalloc");
  bufs[EMB_ABI_A2A_BUF_RECV] = dRecv2;
  dims[EMB_ABI_A2A_DIM_RECV_ROWS] = rows;
  embrtCompiledAllToAll(ctx, attrs, bufs, dims);
  require(embrtSynchronize(ctx), "embrtCompiledAllToAll");
  memset(recv, 0, (size_t)(recvRows * cols) * sizeof(float));
  download(recv, dRecv2, (size_t)(recvRows * cols) * sizeof(float));
  int bad = 0;
  at = 0;
  for (int p = 0; p < world && !bad; ++p)
    for (int64_t r = 0; r < recvCounts[p] && !bad; ++r, ++at)
      for (int c = 0; c < cols && !bad; ++c)
        if (recv[at * cols + c] != valueOf(p, rank, r, c)) {
          HARNESS_FAIL("compiled all_to_all: row %lld from rank %d col %d is "
                       "%g, want %g",
                       (long long)r, p, c, recv[at * cols + c],
                       valueOf(p, rank, r, c));
          bad = 1;
        }

  embrtContextDestroy(ctx);
  fprintf(stderr, "rank %d of %d: %s\n", rank, world,
          harnessFailures ? "FAILED" : "ok");
  return harnessFinish();
}
