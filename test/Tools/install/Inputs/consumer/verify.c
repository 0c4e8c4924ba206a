// libemb from a program built against an installed emb (emb/emb.h and MLIR's
// C API): a context with the emb dialect, and emb's verifier rejecting a
// broadcast whose index has the wrong length.

#include "emb/emb.h"

#include "mlir-c/IR.h"

#include <stdio.h>

static const char *const source =
    "func.func @f(%ro: tensor<4x8xf16>, %idx: tensor<15xi32>) -> "
    "tensor<16x8xf16> {\n"
    "  %0 = \"emb.broadcast\"(%ro, %idx) : (tensor<4x8xf16>, "
    "tensor<15xi32>) -> tensor<16x8xf16>\n"
    "  return %0 : tensor<16x8xf16>\n"
    "}\n";

int main(void) {
  MlirContext ctx = embContextCreate();
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "the module does not parse\n");
    mlirContextDestroy(ctx);
    return 1;
  }
  int rejected =
      mlirLogicalResultIsFailure(embVerify(mlirModuleGetOperation(module)));
  printf("passes: %s\n", embGetNumPasses() > 0 ? "some" : "none");
  printf("emb-verify: %s\n", rejected ? "rejected" : "accepted");
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return rejected ? 0 : 1;
}
