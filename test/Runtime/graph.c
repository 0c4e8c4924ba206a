// RUN: %runtime_test_dir/graph
//
// The graph API's argument checks and the CPU backend's answer (no graphs:
// EMBRT_UNSUPPORTED with a message), on any machine. The capture and replay
// of real work is test/Runtime/cuda_graph.c, which needs a GPU.

#include "harness.h"

static void testCpu(void) {
  embrtContext *ctx = NULL;
  if (embrtContextCreate(EMBRT_DEVICE_CPU, 0, NULL, &ctx) != EMBRT_OK) {
    HARNESS_FAIL("no CPU context: %s", embrtGetCreateError());
    return;
  }

  TEST_CASE("the CPU has no graphs");
  EXPECT_STATUS(embrtContextBeginCapture(ctx, NULL), EMBRT_UNSUPPORTED, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "graphs need a CUDA context");
  EXPECT_EQ_INT(embrtContextIsCapturing(ctx), 0);
  // Not capturing: the context works as before (the failure is sticky).
  EXPECT_STATUS(embrtContextGetStatus(ctx), EMBRT_UNSUPPORTED, ctx);
  embrtContextClearError(ctx);
  EXPECT_STATUS(embrtSynchronize(ctx), EMBRT_OK, ctx);

  TEST_CASE("end without a capture");
  embrtGraph *graph = (embrtGraph *)&graph; // must be reset to NULL
  EXPECT_STATUS(embrtContextEndCapture(ctx, &graph), EMBRT_INVALID_ARGUMENT,
                ctx);
  EXPECT_TRUE(graph == NULL);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "not capturing");
  embrtContextClearError(ctx);

  TEST_CASE("bad options");
  embrtCaptureOptions options = {sizeof options - 1,
                                 EMBRT_CAPTURE_THREAD_LOCAL};
  EXPECT_STATUS(embrtContextBeginCapture(ctx, &options), EMBRT_INVALID_ARGUMENT,
                ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "options.structSize");
  embrtContextClearError(ctx);
  options.structSize = sizeof options;
  options.mode = (embrtCaptureMode)7;
  EXPECT_STATUS(embrtContextBeginCapture(ctx, &options), EMBRT_INVALID_ARGUMENT,
                ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "options.mode is 7");
  embrtContextClearError(ctx);
  // A valid mode reaches the backend, which has no graphs.
  options.mode = EMBRT_CAPTURE_RELAXED;
  EXPECT_STATUS(embrtContextBeginCapture(ctx, &options), EMBRT_UNSUPPORTED,
                ctx);
  embrtContextClearError(ctx);

  TEST_CASE("a context holding an error does not start a capture");
  EXPECT_STATUS(embrtMemcpy(ctx, NULL, NULL, 4, EMBRT_COPY_DEVICE_TO_DEVICE),
                EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_STATUS(embrtContextBeginCapture(ctx, NULL), EMBRT_INVALID_ARGUMENT,
                ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "embrtContextClearError");
  embrtContextClearError(ctx);

  TEST_CASE("launch and destroy checks");
  EXPECT_STATUS(embrtGraphLaunch(ctx, NULL), EMBRT_INVALID_ARGUMENT, ctx);
  EXPECT_CONTAINS(embrtContextGetLastError(ctx), "graph is NULL");
  embrtContextClearError(ctx);
  embrtGraphDestroy(ctx, NULL);

  TEST_CASE("null context");
  EXPECT_TRUE(embrtContextBeginCapture(NULL, NULL) == EMBRT_INVALID_ARGUMENT);
  EXPECT_TRUE(embrtContextEndCapture(NULL, &graph) == EMBRT_INVALID_ARGUMENT);
  EXPECT_TRUE(embrtGraphLaunch(NULL, NULL) == EMBRT_INVALID_ARGUMENT);
  EXPECT_EQ_INT(embrtContextIsCapturing(NULL), 0);
  embrtGraphDestroy(NULL, NULL);

  embrtContextDestroy(ctx);
}

int main(void) {
  testCpu();
  return harnessFinish();
}
