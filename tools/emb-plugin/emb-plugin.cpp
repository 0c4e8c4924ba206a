//===- tools/emb-plugin/emb-plugin.cpp - emb as an MLIR tool plugin -------===//
//
// Loads emb into a stock MLIR tool built like mlir-opt (one command line; no
// backslashes here, which would continue this comment):
//
//   mlir-opt-22 --load-dialect-plugin=libEmbPlugin.so
//               --load-pass-plugin=libEmbPlugin.so
//               --allow-unregistered-dialect
//               --pass-pipeline='builtin.module(emb-raise,emb-ikbo)' model.mlir
//
// Why this file is C++: MLIR's plugin entry points, mlirGetDialectPluginInfo
// and mlirGetPassPluginInfo, hand the plugin a C++ DialectRegistry and take
// C++ callbacks that register passes in MLIR's C++ pass registry, which the C
// API cannot reach (it has no way to register a pass by name). Everything
// here only forwards to emb's C library: the dialect plugin loads emb's ops
// (embLoadDialect) into every context that loads func, as torch-mlir's output
// always does, and turns emb's remarks into MLIR remarks; the pass plugin
// registers each pass and pipeline of emb's registry under its own name, as
// a pipeline whose builder hands `name{options}` to embAddPassPipeline. The
// lowerings to emb's runtime are left out: the stock tool cannot run what
// they make.
//
// Linking: the tool already holds libMLIR.so; the plugin links libemb.so,
// which links that same libMLIR.so and carries the MLIR C API archives once,
// so there is one copy of MLIR's state in the process.
//
//===----------------------------------------------------------------------===//

#include "emb/emb.h"
#include "emb/version.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Pass.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include <string>

namespace {

/// emb's remarks, as MLIR remarks at the op's location.
void forwardRemark(MlirLocation loc, const char *message, void *) {
  mlir::emitRemark(unwrap(loc)) << message;
}

/// Loads emb's ops into a context that has just loaded func.
void loadEmb(mlir::MLIRContext *ctx, mlir::func::FuncDialect *) {
  if (mlirLogicalResultIsFailure(embLoadDialect(wrap(ctx))))
    mlir::emitError(mlir::UnknownLoc::get(ctx))
        << "cannot load the emb dialect";
}

void registerDialects(mlir::DialectRegistry *registry) {
  embSetRemarkHandler(forwardRemark, nullptr);
  registry->insert<mlir::func::FuncDialect>();
  registry->addExtension(loadEmb);
}

struct ErrorSink {
  llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)> report;
};

void reportError(const char *message, void *userData) {
  (void)static_cast<ErrorSink *>(userData)->report(message);
}

void registerPasses() {
  embSetRemarkHandler(forwardRemark, nullptr);
  for (intptr_t i = 0, n = embGetNumPasses(); i < n; ++i) {
    EmbPassInfo info = embGetPassInfo(i);
    std::string name = info.name;
    if (name.rfind("emb-lower-", 0) == 0)
      continue;
    mlir::registerPassPipeline(
        name, info.summary,
        [name](mlir::OpPassManager &pm, llvm::StringRef options,
               llvm::function_ref<mlir::LogicalResult(const llvm::Twine &)>
                   errorHandler) {
          std::string element = name;
          if (!options.empty())
            element += "{" + options.str() + "}";
          ErrorSink sink{errorHandler};
          return mlir::success(mlirLogicalResultIsSuccess(embAddPassPipeline(
              wrap(&pm), mlirStringRefCreate(element.data(), element.size()),
              /*verifyEach=*/false, reportError, &sink)));
        },
        [](llvm::function_ref<void(const mlir::detail::PassOptions &)>) {});
  }
}

} // namespace

// The two entry points the tool looks up by name: exported, where emb's
// libraries hide everything else by default.
extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT mlir::DialectPluginLibraryInfo
    mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "emb", EMB_VERSION_STRING, registerDialects};
}

extern "C" LLVM_ATTRIBUTE_WEAK
    LLVM_ATTRIBUTE_VISIBILITY_DEFAULT mlir::PassPluginLibraryInfo
    mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "emb", EMB_VERSION_STRING, registerPasses};
}
