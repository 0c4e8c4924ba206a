//===- other_abi.c - An object of another compiled ABI version ------------===//
//
// What an emb-compile of compiled ABI version OTHER_ABI (-DOTHER_ABI=N)
// writes, reduced to what the version check sees: a reference to the
// runtime's embrtCompiledAbi<N> (the lowering's internal constant that holds
// its address), and, for loaders, a descriptor (`emb_models`) that records
// N (`emb_abi_version`). With -DWITH_MAIN it is a program that links the
// runtime and exits 0 when the symbol it reached says N. abi_version.test
// builds it for this runtime's version (it links, loads and runs) and for
// the next one (it fails to link, dlopen fails, the loaders name both).
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "emb/model.h"

#define OTHER_ABI_SYMBOL EMB_ABI_CONCAT(embrtCompiledAbi, OTHER_ABI)

int32_t OTHER_ABI_SYMBOL(void);

/// A data reference, as the lowering's: resolved when the object is linked
/// or loaded, never lazily.
int32_t (*const emb_compiled_abi)(void) = OTHER_ABI_SYMBOL;

static void invoke(void **args) { (void)args; }

static const EmbArgSpec input = {EMBRT_F32, 1, {4}, EMB_ARG_DATA, 0, 0, -1, 0};
static const EmbModelSpec entry = {"f", "cpu", 1, 0, &input, NULL, invoke};
static const EmbModelSpec *const entries[] = {&entry};

EMB_EXPORTS_BEGIN
const EmbSharedModel emb_models = {EMB_SHARED_MODEL_VERSION,
                                   sizeof(EmbSharedModel), "emb_", 1, entries};
const uint32_t emb_abi_version = OTHER_ABI;
EMB_EXPORTS_END

#ifdef WITH_MAIN
int main(void) { return emb_compiled_abi() == OTHER_ABI ? 0 : 1; }
#endif
