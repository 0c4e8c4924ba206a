// RUN: %runtime_test_dir/collectives
//
// The communicator of a CPU context (one rank) and the collectives on it:
// all_to_all, reduce_scatter and all_gather copy rank 0's data to itself;
// a world of more than one rank is refused; malformed arguments and a
// collective without a communicator are refused with a message. Then the
// compiled ABI: an all-to-all with the plan's splits and one with counts
// (read on the host first, and the rows to receive returned), reduce_scatter
// and all_gather, and what their decoders refuse (a world that is not the
// communicator's, send rows short of the counts, blocks that do not match).
// In a build with CUDA and without NCCL, what the CUDA communicator answers:
// EMBRT_UNSUPPORTED, naming NCCL (with no GPU, the id alone: a CUDA context
// needs one).

#include "emb/compiled.h"
#include "harness.h"

static void testOneRank(void) {
  TEST_CASE("one rank");
  embrtContext *ctx = newCpuContext();
  int world = -1, rank = -1;
  EXPECT_STATUS(embrtContextGetCommunicator(ctx, &world, &rank),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "has none");
  embrtContextClearError(ctx);

  embrtCommId id;
  EXPECT_STATUS(embrtCommGetUniqueId(EMBRT_DEVICE_CPU, &id), EMBRT_OK, ctx);
  EXPECT_STATUS(embrtContextSetCommunicator(ctx, 1, 0, &id), EMBRT_OK, ctx);
  EXPECT_STATUS(embrtContextGetCommunicator(ctx, &world, &rank), EMBRT_OK, ctx);
  EXPECT_EQ_INT(world, 1);
  EXPECT_EQ_INT(rank, 0);
  // A context joins one communicator, once.
  EXPECT_STATUS(embrtContextSetCommunicator(ctx, 1, 0, &id),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "already has");
  embrtContextClearError(ctx);

  // all_to_all: 3 rows of 4 f32 to itself.
  float send[12], recv[12];
  for (int i = 0; i < 12; ++i) {
    send[i] = (float)i * 0.5f;
    recv[i] = -1.0f;
  }
  int64_t counts[1] = {3};
  embrtAllToAllArgs a = {sizeof a, send, recv, EMBRT_F32, 4, counts, counts};
  EXPECT_STATUS(embrtAllToAll(ctx, &a), EMBRT_OK, ctx);
  EXPECT_TRUE(memcmp(send, recv, sizeof send) == 0);

  // Counts that disagree between the sender and the receiver (itself).
  int64_t other[1] = {2};
  a.recvCounts = other;
  EXPECT_STATUS(embrtAllToAll(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "sends itself 3 rows");
  embrtContextClearError(ctx);

  // Negative counts, a NULL buffer with rows to send, a wrong structSize.
  int64_t negative[1] = {-1};
  a.recvCounts = counts;
  a.sendCounts = negative;
  EXPECT_STATUS(embrtAllToAll(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "sendCounts[0] is -1");
  embrtContextClearError(ctx);
  a.sendCounts = counts;
  a.send = NULL;
  EXPECT_STATUS(embrtAllToAll(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  embrtContextClearError(ctx);
  a.send = send;
  a.structSize = 3;
  EXPECT_STATUS(embrtAllToAll(ctx, &a), EMBRT_INVALID_ARGUMENT, ctx);
  embrtContextClearError(ctx);

  // reduce_scatter and all_gather of one rank.
  for (int i = 0; i < 12; ++i)
    recv[i] = -1.0f;
  EXPECT_STATUS(embrtReduceScatter(ctx, send, recv, EMBRT_F32, 12), EMBRT_OK,
                ctx);
  EXPECT_TRUE(memcmp(send, recv, sizeof send) == 0);
  for (int i = 0; i < 12; ++i)
    recv[i] = -1.0f;
  EXPECT_STATUS(embrtAllGather(ctx, send, recv, EMBRT_F32, 12), EMBRT_OK, ctx);
  EXPECT_TRUE(memcmp(send, recv, sizeof send) == 0);
  // reduce_scatter sums floats only.
  int64_t ids[2] = {1, 2}, out[2];
  EXPECT_STATUS(embrtReduceScatter(ctx, ids, out, EMBRT_I64, 2),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "must be f32, f16 or bf16");
  embrtContextClearError(ctx);
  // all_gather moves any dtype.
  EXPECT_STATUS(embrtAllGather(ctx, ids, out, EMBRT_I64, 2), EMBRT_OK, ctx);
  EXPECT_EQ_INT(out[1], 2);
  embrtContextDestroy(ctx);
}

static void testRefusals(void) {
  TEST_CASE("refusals");
  embrtContext *ctx = newCpuContext();
  embrtCommId id;
  memset(&id, 0, sizeof id);
  // No communicator yet.
  float x[4] = {0}, y[4];
  EXPECT_STATUS(embrtAllGather(ctx, x, y, EMBRT_F32, 4), EMBRT_INVALID_ARGUMENT,
                ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "has no communicator");
  embrtContextClearError(ctx);
  // The CPU runs one rank.
  EXPECT_STATUS(embrtContextSetCommunicator(ctx, 2, 0, &id), EMBRT_UNSUPPORTED,
                ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "runs one rank");
  embrtContextClearError(ctx);
  // And the failed join left none.
  int world, rank;
  EXPECT_STATUS(embrtContextGetCommunicator(ctx, &world, &rank),
                EMBRT_INVALID_ARGUMENT, ctx);
  embrtContextClearError(ctx);
  EXPECT_STATUS(embrtContextSetCommunicator(ctx, 1, 1, &id),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "rank is 1, must be in 0..0");
  embrtContextClearError(ctx);
  EXPECT_STATUS(embrtContextSetCommunicator(ctx, 0, 0, &id),
                EMBRT_INVALID_ARGUMENT, ctx);
  embrtContextClearError(ctx);
  EXPECT_STATUS(embrtContextSetCommunicator(ctx, 1, 0, NULL),
                EMBRT_INVALID_ARGUMENT, ctx);
  embrtContextDestroy(ctx);
  EXPECT_TRUE(embrtCommGetUniqueId(EMBRT_DEVICE_CPU, NULL) ==
              EMBRT_INVALID_ARGUMENT);
}

static void testCompiled(void) {
  TEST_CASE("compiled ABI");
  embrtContext *ctx = newCpuContext();
  float send[8], recv[8];
  for (int i = 0; i < 8; ++i)
    send[i] = (float)i + 0.25f;
  // Splits from the plan: 4 rows of 2 to itself.
  int64_t attrs[EMB_ABI_A2A_SPLITS + 2] = {
      [EMB_ABI_A2A_DTYPE] = EMBRT_F32, [EMB_ABI_A2A_WORLD_SIZE] = 1,
      [EMB_ABI_A2A_HAS_COUNTS] = 0,    [EMB_ABI_A2A_SPLITS] = 4,
      [EMB_ABI_A2A_SPLITS + 1] = 4,
  };
  void *bufs[] = {send, recv, NULL, NULL, NULL};
  int64_t dims[] = {[EMB_ABI_A2A_DIM_ROW] = 2,
                    [EMB_ABI_A2A_DIM_SEND_ROWS] = 4,
                    [EMB_ABI_A2A_DIM_RECV_ROWS] = 4};
  // Without a communicator first.
  embrtCompiledAllToAll(ctx, attrs, bufs, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.all_to_all: the context has no communicator; a program "
                  "of emb-shard runs on a context joined to its world of 1");
  embrtContextClearError(ctx);
  embrtCommId id;
  memset(&id, 0, sizeof id);
  EXPECT_STATUS(embrtContextSetCommunicator(ctx, 1, 0, &id), EMBRT_OK, ctx);
  memset(recv, 0, sizeof recv);
  embrtCompiledAllToAll(ctx, attrs, bufs, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  EXPECT_TRUE(memcmp(send, recv, sizeof send) == 0);
  // Send rows that are not the splits' sum.
  dims[EMB_ABI_A2A_DIM_SEND_ROWS] = 3;
  embrtCompiledAllToAll(ctx, attrs, bufs, dims);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.all_to_all: send has 3 rows but the send counts sum to "
                  "4");
  embrtContextClearError(ctx);
  dims[EMB_ABI_A2A_DIM_SEND_ROWS] = 4;
  // A world that is not the communicator's.
  attrs[EMB_ABI_A2A_WORLD_SIZE] = 2;
  embrtCompiledAllToAll(ctx, attrs, bufs, dims);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.all_to_all: world_size is 2 but the context's "
                  "communicator has 1 ranks");
  embrtContextClearError(ctx);
  attrs[EMB_ABI_A2A_WORLD_SIZE] = 1;

  // Counts operands: 3 of the 4 rows of a send buffer sized for the most.
  int64_t sendCounts[1] = {3}, recvCounts[1] = {3}, host[2] = {-9, -9};
  attrs[EMB_ABI_A2A_HAS_COUNTS] = 1;
  void *cbufs[] = {send, NULL, sendCounts, recvCounts, host};
  EXPECT_EQ_INT(embrtCompiledAllToAllCounts(ctx, attrs, cbufs, dims), 3);
  EXPECT_EQ_INT(host[0], 3);
  EXPECT_EQ_INT(host[1], 3);
  memset(recv, 0, sizeof recv);
  cbufs[EMB_ABI_A2A_BUF_RECV] = recv;
  dims[EMB_ABI_A2A_DIM_RECV_ROWS] = 3;
  embrtCompiledAllToAll(ctx, attrs, cbufs, dims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  EXPECT_TRUE(memcmp(send, recv, 6 * sizeof(float)) == 0);
  EXPECT_TRUE(recv[6] == 0.0f);
  // The result's rows must be what the counts receive.
  dims[EMB_ABI_A2A_DIM_RECV_ROWS] = 4;
  embrtCompiledAllToAll(ctx, attrs, cbufs, dims);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.all_to_all: the result has 4 rows but recv_counts has "
                  "3 rows in all");
  embrtContextClearError(ctx);
  // Counts past the send buffer.
  sendCounts[0] = 5;
  dims[EMB_ABI_A2A_DIM_RECV_ROWS] = 3;
  EXPECT_EQ_INT(embrtCompiledAllToAllCounts(ctx, attrs, cbufs, dims), 0);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.all_to_all: send has 4 rows but the send counts sum to "
                  "5");
  EXPECT_EQ_INT(host[0], 0); // nothing is sent after a failed count
  embrtContextClearError(ctx);

  // reduce_scatter and all_gather: elements of both sides.
  int64_t cattrs[] = {
      [EMB_ABI_COLL_DTYPE] = EMBRT_F32, [EMB_ABI_COLL_WORLD_SIZE] = 1};
  void *rbufs[] = {send, recv};
  int64_t rdims[] = {[EMB_ABI_COLL_DIM_SEND] = 8, [EMB_ABI_COLL_DIM_RECV] = 8};
  memset(recv, 0, sizeof recv);
  embrtCompiledReduceScatter(ctx, cattrs, rbufs, rdims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  EXPECT_TRUE(memcmp(send, recv, sizeof send) == 0);
  memset(recv, 0, sizeof recv);
  embrtCompiledAllGather(ctx, cattrs, rbufs, rdims);
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_OK, ctx);
  EXPECT_TRUE(memcmp(send, recv, sizeof send) == 0);
  rdims[EMB_ABI_COLL_DIM_RECV] = 6;
  embrtCompiledReduceScatter(ctx, cattrs, rbufs, rdims);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.reduce_scatter: send has 8 elements but the result has "
                  "6: must be world_size (1) times as many");
  embrtContextClearError(ctx);
  embrtCompiledAllGather(ctx, cattrs, rbufs, rdims);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "emb.all_gather: the result has 6 elements but send has 8");
  embrtContextClearError(ctx);
  embrtContextDestroy(ctx);
}

#if defined(EMBRT_TEST_HAVE_CUDA) && !defined(EMBRT_TEST_HAVE_NCCL)
static void testCudaWithoutNccl(void) {
  TEST_CASE("cuda without nccl");
  embrtCommId id;
  EXPECT_EQ_INT(embrtCommGetUniqueId(EMBRT_DEVICE_CUDA, &id),
                EMBRT_UNSUPPORTED);
  embrtContext *ctx = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CUDA, 0, NULL, &ctx) != EMBRT_OK)
    return; // no GPU answers
  memset(&id, 0, sizeof id);
  EXPECT_STATUS(embrtContextSetCommunicator(ctx, 1, 0, &id), EMBRT_UNSUPPORTED,
                ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx),
                  "set communicator: this emb runtime was built without NCCL");
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "-DEMB_ENABLE_NCCL=ON");
  embrtContextClearError(ctx);
  // The failed join left no communicator, so a collective is refused first
  // for want of one.
  float x[4] = {0}, y[4];
  EXPECT_STATUS(embrtAllGather(ctx, x, y, EMBRT_F32, 4), EMBRT_INVALID_ARGUMENT,
                ctx);
  embrtContextDestroy(ctx);
}
#endif

int main(void) {
  testOneRank();
  testRefusals();
  testCompiled();
#if defined(EMBRT_TEST_HAVE_CUDA) && !defined(EMBRT_TEST_HAVE_NCCL)
  testCudaWithoutNccl();
#endif
  return harnessFinish();
}
