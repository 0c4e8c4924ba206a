//===- bad_descriptors.c - Descriptors a loader must refuse ---------------===//
//
// A shared object (built with the test suite, libemb-bad-descriptors.so)
// exporting descriptors that emb-compile --shared never writes, each under
// its own prefix, for shared.test: one of a newer layout, one too small
// for its version, one with a null entry, one with an argument of rank 9,
// and well-formed ones that record another compiled ABI version than the
// runtime's (abi_version.test) or none. Their entries are never called.
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "emb/model.h"
#include "emb/runtime.h"

static void invoke(void **args) { (void)args; }

static const EmbArgSpec input = {EMBRT_F32, 1, {4}, EMB_ARG_DATA, 0, 0, -1, 0};
static const EmbArgSpec rank9 = {EMBRT_F32, 9, {4}, EMB_ARG_DATA, 0, 0, -1, 0};
static const EmbModelSpec entry = {"f", "cpu", 1, 0, &input, NULL, invoke};
static const EmbModelSpec badRank = {"f", "cpu", 1, 0, &rank9, NULL, invoke};
static const EmbModelSpec *const entries[] = {&entry};
static const EmbModelSpec *const badRankEntries[] = {&badRank};
static const EmbModelSpec *const nullEntries[] = {NULL};

EMB_EXPORTS_BEGIN
/// What a later emb-compile might write: a version above this loader's, a
/// larger struct.
const EmbSharedModel newer_models = {EMB_SHARED_MODEL_VERSION + 1,
                                     sizeof(EmbSharedModel) + 8, "newer_", 1,
                                     entries};
const EmbSharedModel small_models = {EMB_SHARED_MODEL_VERSION, 8, "small_", 1,
                                     entries};
const EmbSharedModel null_models = {
    EMB_SHARED_MODEL_VERSION, sizeof(EmbSharedModel), "null_", 1, nullEntries};
const EmbSharedModel rank_models = {EMB_SHARED_MODEL_VERSION,
                                    sizeof(EmbSharedModel), "rank_", 1,
                                    badRankEntries};
// The ABI version is read before the entries.
const uint32_t null_abi_version = EMB_ABI_VERSION;
const uint32_t rank_abi_version = EMB_ABI_VERSION;

/// A model of another compiled ABI whose code reached a runtime of that
/// version (one linked into it, say): only its record says so.
const EmbSharedModel abi2_models = {
    EMB_SHARED_MODEL_VERSION, sizeof(EmbSharedModel), "abi2_", 1, entries};
const uint32_t abi2_abi_version = EMB_ABI_VERSION + 1;
/// A model of an emb-compile that recorded no ABI version.
const EmbSharedModel noabi_models = {
    EMB_SHARED_MODEL_VERSION, sizeof(EmbSharedModel), "noabi_", 1, entries};
EMB_EXPORTS_END
