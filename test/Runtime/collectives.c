// RUN: %runtime_test_dir/collectives
//
// The communicator of a CPU context (one rank) and the collectives on it:
// all_to_all, reduce_scatter and all_gather copy rank 0's data to itself;
// a world of more than one rank is refused; malformed arguments and a
// collective without a communicator are refused with a message.

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

int main(void) {
  testOneRank();
  testRefusals();
  return harnessFinish();
}
