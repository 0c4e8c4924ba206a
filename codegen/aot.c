//===- codegen/aot.c - Ahead-of-time compilation --------------------------===//
//
// Turns a module lowered to the LLVM dialect into a relocatable object file
// for the host architecture (a generic CPU, position-independent, so that it
// links on other machines of that architecture), and writes the C header
// that declares its entries and describes them (EmbModelSpec). A C or C++
// program links the object with libembrt and needs no MLIR at run time.
//
// The object exports its entries alone, each under a prefixed name
// (`emb_<entry>` by default): torch-mlir names every model `main`, and a
// function the object exported under the model's own name would collide
// with the program's `main` (or with any C function of that name). Every
// other function it defines is internal.
//
//===----------------------------------------------------------------------===//

#define _POSIX_C_SOURCE 200809L

#include "ir.h"
#include "pass.h"

#include "emb/compiled.h"
#include "emb/emb.h"
#include "emb/runtime.h"

#include "mlir-c/Target/LLVMIR.h"

#include "llvm-c/Core.h"
#include "llvm-c/Target.h"
#include "llvm-c/TargetMachine.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

//===----------------------------------------------------------------------===//
// Object files
//===----------------------------------------------------------------------===//

/// Opens an output file (an object, a header, a descriptor) for writing, or
/// reports why it cannot.
static FILE *openOutput(const char *path, EmbErrorCallback onError,
                        void *userData) {
  FILE *f = fopen(path, "w");
  if (!f)
    embReportf(onError, userData, "cannot write '%s': %s", path,
               strerror(errno));
  errno = 0;
  return f;
}

/// Closes a file of openOutput, reporting a failed write or close (ENOSPC
/// shows at fclose when the data sits in stdio's buffer).
static MlirLogicalResult closeOutput(FILE *f, const char *path,
                                     EmbErrorCallback onError, void *userData) {
  bool ok = !ferror(f);
  int err = ok ? 0 : errno;
  if (fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    embReportf(onError, userData, "cannot write '%s': %s", path,
               err ? strerror(err) : "write failed");
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}

/// Writes `size` bytes to `path`; a truncated file is removed.
static MlirLogicalResult writeFile(const char *path, const char *data,
                                   size_t size, EmbErrorCallback onError,
                                   void *userData) {
  FILE *f = openOutput(path, onError, userData);
  if (!f)
    return mlirLogicalResultFailure();
  fwrite(data, 1, size, f);
  if (mlirLogicalResultIsFailure(closeOutput(f, path, onError, userData))) {
    // A truncated object must not pass for a build's output; a device or
    // link given as the path stays.
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
      remove(path);
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}

MlirLogicalResult embEmitObjectFile(MlirModule module, const char *path,
                                    EmbErrorCallback onError, void *userData) {
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) {
    if (onError)
      onError("LLVM has no code generator for this machine", userData);
    return mlirLogicalResultFailure();
  }
  LLVMContextRef llvmCtx = LLVMContextCreate();
  LLVMModuleRef llvmModule =
      mlirTranslateModuleToLLVMIR(mlirModuleGetOperation(module), llvmCtx);
  if (!llvmModule) {
    if (onError)
      onError("the module could not be translated to LLVM IR (is it fully "
              "lowered to the LLVM dialect?)",
              userData);
    LLVMContextDispose(llvmCtx);
    return mlirLogicalResultFailure();
  }
  char *triple = LLVMGetDefaultTargetTriple();
  char *error = NULL;
  LLVMTargetRef target;
  MlirLogicalResult result = mlirLogicalResultFailure();
  if (LLVMGetTargetFromTriple(triple, &target, &error)) {
    if (onError)
      onError(error, userData);
  } else {
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
        target, triple, "generic", "", LLVMCodeGenLevelDefault, LLVMRelocPIC,
        LLVMCodeModelDefault);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    char *layoutText = LLVMCopyStringRepOfTargetData(layout);
    LLVMSetTarget(llvmModule, triple);
    LLVMSetDataLayout(llvmModule, layoutText);
    // Emitted into memory and written here: LLVM's own file stream ends the
    // process with "LLVM ERROR" when a write fails (a full disk).
    LLVMMemoryBufferRef object = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, llvmModule, LLVMObjectFile,
                                            &error, &object)) {
      embReportf(onError, userData, "cannot compile the object file: %s",
                 error);
    } else {
      result = writeFile(path, LLVMGetBufferStart(object),
                         LLVMGetBufferSize(object), onError, userData);
      LLVMDisposeMemoryBuffer(object);
    }
    LLVMDisposeMessage(layoutText);
    LLVMDisposeTargetData(layout);
    LLVMDisposeTargetMachine(tm);
  }
  if (error)
    LLVMDisposeMessage(error);
  LLVMDisposeMessage(triple);
  LLVMDisposeModule(llvmModule);
  LLVMContextDispose(llvmCtx);
  return result;
}

//===----------------------------------------------------------------------===//
// Exported entries
//===----------------------------------------------------------------------===//

/// True if `s` is `[A-Za-z_][A-Za-z0-9_]*` (`first`) or `[A-Za-z0-9_]+`: a C
/// identifier, or what may follow one.
static bool isIdentifier(const char *s, bool first) {
  if (!*s || (first && isdigit((unsigned char)*s)))
    return false;
  for (; *s; ++s)
    if (!isalnum((unsigned char)*s) && *s != '_')
      return false;
  return true;
}

bool embIsSymbolPrefix(const char *prefix) {
  return prefix && isIdentifier(prefix, true);
}

static MlirOperation lookupFunction(MlirModule module, const char *name) {
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirAttribute sym = mlirOperationGetAttributeByName(op, embStr("sym_name"));
    if (!mlirAttributeIsNull(sym) && mlirAttributeIsAString(sym)) {
      MlirStringRef s = mlirStringAttrGetValue(sym);
      if (s.length == strlen(name) && !memcmp(s.data, name, s.length))
        return op;
    }
  }
  return (MlirOperation){NULL};
}

MlirLogicalResult embExportEntries(MlirModule module, const char *const *names,
                                   int numNames, const char *prefix,
                                   EmbErrorCallback onError, void *userData) {
  enum { MAX_ENTRIES = 8 };
  if (!embIsSymbolPrefix(prefix)) {
    embReportf(onError, userData,
               "the symbol prefix '%s' does not begin a C identifier (letters, "
               "digits and '_', not a digit first)",
               prefix ? prefix : "");
    return mlirLogicalResultFailure();
  }
  if (numNames < 0 || numNames > MAX_ENTRIES) {
    embReportf(onError, userData, "at most %d entries are exported",
               MAX_ENTRIES);
    return mlirLogicalResultFailure();
  }
  MlirOperation wrappers[MAX_ENTRIES];
  char name[512];
  for (int i = 0; i < numNames; ++i) {
    if (!isIdentifier(names[i], false)) {
      embReportf(onError, userData,
                 "@%s cannot be exported: the C name '%s%s' is not an "
                 "identifier (a function name of letters, digits and '_' "
                 "is)",
                 names[i], prefix, names[i]);
      return mlirLogicalResultFailure();
    }
    snprintf(name, sizeof name, "_mlir_ciface_%s", names[i]);
    wrappers[i] = lookupFunction(module, name);
    if (mlirOperationIsNull(wrappers[i])) {
      embReportf(onError, userData,
                 "@%s has no C interface in the lowered module (is it "
                 "lowered by emb-lower-to-llvm?)",
                 names[i]);
      return mlirLogicalResultFailure();
    }
    snprintf(name, sizeof name, "%s%s", prefix, names[i]);
    if (!mlirOperationIsNull(lookupFunction(module, name))) {
      embReportf(onError, userData,
                 "@%s cannot be exported as '%s': the module has a function "
                 "of that name (choose another symbol prefix)",
                 names[i], name);
      return mlirLogicalResultFailure();
    }
  }
  // Every function the object defines, but the entries' C interfaces, is
  // internal: the model's own functions (`main`, `main__reference`) and
  // their helpers may have any name.
  MlirContext ctx = mlirModuleGetContext(module);
  MlirAttribute internal =
      mlirAttributeParseGet(ctx, embStr("#llvm.linkage<internal>"));
  for (MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
       !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    if (!embOpIs(op, "llvm.func") ||
        mlirBlockIsNull(mlirRegionGetFirstBlock(mlirOperationGetRegion(op, 0))))
      continue;
    bool entry = false;
    for (int i = 0; i < numNames; ++i)
      entry |= mlirOperationEqual(op, wrappers[i]);
    if (!entry)
      mlirOperationSetInherentAttributeByName(op, embStr("linkage"), internal);
  }
  for (int i = 0; i < numNames; ++i) {
    snprintf(name, sizeof name, "%s%s", prefix, names[i]);
    mlirOperationSetAttributeByName(wrappers[i], embStr("sym_name"),
                                    mlirStringAttrGet(ctx, embStr(name)));
  }
  return mlirLogicalResultSuccess();
}

//===----------------------------------------------------------------------===//
// Headers
//===----------------------------------------------------------------------===//

static const char *const roleNames[] = {
    "EMB_ARG_DATA",         "EMB_ARG_IDS",        "EMB_ARG_OFFSETS",
    "EMB_ARG_INDEX",        "EMB_ARG_LENGTHS",    "EMB_ARG_WEIGHTS",
    "EMB_ARG_PACKED_TABLE", "EMB_ARG_ROW_OFFSETS"};

static const char *const dtypeNames[] = {"EMBRT_F32", "EMBRT_F16", "EMBRT_BF16",
                                         "EMBRT_I32", "EMBRT_I64", "EMBRT_F64",
                                         "EMBRT_I8"};

static void writeSpecs(FILE *f, const char *array, const EmbArgSpec *specs,
                       int n) {
  fprintf(f, "static const EmbArgSpec %s[] = {\n", array);
  for (int i = 0; i < n; ++i) {
    const EmbArgSpec *s = &specs[i];
    fprintf(f, "    {%s, %d, {", dtypeNames[s->dtype], s->rank);
    for (int d = 0; d < s->rank; ++d)
      fprintf(f, "%s%lld", d ? ", " : "", (long long)s->dims[d]);
    fprintf(f, "}, %s, %lldLL, %lldLL, %d, %d},\n", roleNames[s->role],
            (long long)s->lo, (long long)s->hi, s->ref, s->updated);
  }
  if (n == 0)
    fprintf(f, "    {0, 0, {0}, 0, 0, 0, -1, 0},\n");
  fprintf(f, "};\n");
}

/// `s` in upper case, for macro names.
static void upper(const char *s, char *out, size_t size) {
  size_t k = 0;
  for (; *s && k + 1 < size; ++s)
    out[k++] = isalnum((unsigned char)*s) ? (char)toupper(*s) : '_';
  out[k] = '\0';
}

MlirLogicalResult embEmitHeader(const EmbModelSpec *specs, int numSpecs,
                                const char *prefix, const char *path,
                                EmbErrorCallback onError, void *userData) {
  if (!embIsSymbolPrefix(prefix) || numSpecs < 1) {
    embReportf(onError, userData,
               "a header needs an entry and a symbol prefix that begins a C "
               "identifier");
    return mlirLogicalResultFailure();
  }
  FILE *f = openOutput(path, onError, userData);
  if (!f)
    return mlirLogicalResultFailure();
  // Every name the header defines starts with the prefix (its macros with
  // the prefix in upper case): headers of models compiled with different
  // prefixes go into one program, one translation unit even.
  char macro[512], macroPrefix[128], name[128];
  upper(prefix, macroPrefix, sizeof macroPrefix);
  upper(specs[0].name, name, sizeof name);
  snprintf(macro, sizeof macro, "%sMODEL_%s_H", macroPrefix, name);
  fprintf(f,
          "// Generated by emb-compile. Do not edit.\n"
          "//\n"
          "// Link the object file beside this header with libembrt and -lm\n"
          "// (and -lcudart -lcublas -lstdc++ when the runtime has CUDA). "
          "Entry @f\n"
          "// is the function %sf; it takes a runtime context, then one "
          "memref\n"
          "// descriptor per input and\n"
          "// per result: {void *allocated, *aligned; int64_t offset, "
          "sizes[rank],\n"
          "// strides[rank];} of a dense row-major buffer on the context's\n"
          "// device (device memory for target cuda). Results are written "
          "into\n"
          "// the result buffers, except a result with a dynamic shape: the "
          "call\n"
          "// fills an embrtCompiledResult (emb/compiled.h) with a buffer it\n"
          "// allocated, which the caller frees with embrtCompiledFree.\n"
          "// Errors stay in the context: check\n"
          "// embrtSynchronize and embrtContextGetStatus after a call.\n"
          "#ifndef %s\n#define %s\n\n"
          "#include \"emb/compiled.h\"\n#include \"emb/model.h\"\n"
          "#include \"emb/runtime.h\"\n\n"
          "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
          prefix, macro, macro);
  for (int s = 0; s < numSpecs; ++s) {
    const EmbModelSpec *m = &specs[s];
    int nargs = m->numInputs + m->numResults;
    fprintf(f, "/// @%s (target %s): %d inputs, %d results.\n", m->name,
            m->target, m->numInputs, m->numResults);
    fprintf(f, "void %s%s(embrtContext *ctx", prefix, m->name);
    for (int i = 0; i < nargs; ++i) {
      bool dynamic = false;
      for (int d = 0;
           i >= m->numInputs && d < m->results[i - m->numInputs].rank; ++d)
        dynamic |= m->results[i - m->numInputs].dims[d] < 0;
      fprintf(f, ", %s%s%d", dynamic ? "embrtCompiledResult *" : "void *",
              i < m->numInputs ? "in" : "out",
              i < m->numInputs ? i : i - m->numInputs);
    }
    fprintf(f, ");\n\n");
    fprintf(f, "static inline void %sinvoke_%s(void **args) {\n", prefix,
            m->name);
    fprintf(f, "  %s%s(*(embrtContext **)args[0]", prefix, m->name);
    for (int i = 0; i < nargs; ++i)
      fprintf(f, ", *(void **)args[%d]", i + 1);
    fprintf(f, ");\n}\n\n");
    char array[256];
    snprintf(array, sizeof array, "%sinputs_%s", prefix, m->name);
    writeSpecs(f, array, m->inputs, m->numInputs);
    snprintf(array, sizeof array, "%sresults_%s", prefix, m->name);
    writeSpecs(f, array, m->results, m->numResults);
    fprintf(f,
            "static const EmbModelSpec %smodel_%s = {\"%s\", \"%s\", %d, "
            "%d, %sinputs_%s, %sresults_%s, %sinvoke_%s};\n\n",
            prefix, m->name, m->name, m->target, m->numInputs, m->numResults,
            prefix, m->name, prefix, m->name, prefix, m->name);
  }
  fprintf(f, "/// Every entry of this object, for runners.\n");
  fprintf(f, "#define %sMODEL_LIST", macroPrefix);
  for (int s = 0; s < numSpecs; ++s)
    fprintf(f, "%s &%smodel_%s", s ? "," : "", prefix, specs[s].name);
  fprintf(f, "\n");
  // The runner (tools/emb-run/aot_main.c) reads EMB_MODEL_LIST.
  if (strcmp(macroPrefix, "EMB_"))
    fprintf(f,
            "#ifndef EMB_MODEL_LIST\n#define EMB_MODEL_LIST %sMODEL_LIST\n"
            "#endif\n",
            macroPrefix);
  fprintf(f, "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
  return closeOutput(f, path, onError, userData);
}

//===----------------------------------------------------------------------===//
// Shared objects: the descriptors
//===----------------------------------------------------------------------===//

/// An EmbArgSpec array as C data, numbers only (the descriptor source
/// includes no emb header: the shared object is linked where emb-compile
/// runs, which need not have them).
static void writeSharedSpecs(FILE *f, const char *array,
                             const EmbArgSpec *specs, int n) {
  fprintf(f, "static const ArgSpec %s[] = {\n", array);
  for (int i = 0; i < n; ++i) {
    const EmbArgSpec *s = &specs[i];
    fprintf(f, "    {%d, %d, {", s->dtype, s->rank);
    for (int d = 0; d < s->rank; ++d)
      fprintf(f, "%s%lld", d ? ", " : "", (long long)s->dims[d]);
    fprintf(f, "}, %d, %lldLL, %lldLL, %d, %d},\n", s->role, (long long)s->lo,
            (long long)s->hi, s->ref, s->updated);
  }
  if (n == 0)
    fprintf(f, "    {0, 0, {0}, 0, 0, 0, -1, 0},\n");
  fprintf(f, "};\n");
}

MlirLogicalResult embEmitSharedDescriptor(const EmbModelSpec *specs,
                                          int numSpecs, const char *prefix,
                                          const char *path,
                                          EmbErrorCallback onError,
                                          void *userData) {
  if (!embIsSymbolPrefix(prefix) || numSpecs < 1) {
    embReportf(onError, userData,
               "a shared object needs an entry and a symbol prefix that "
               "begins a C identifier");
    return mlirLogicalResultFailure();
  }
  FILE *f = openOutput(path, onError, userData);
  if (!f)
    return mlirLogicalResultFailure();
  // The structs of emb/model.h, field for field: the layout of
  // EMB_SHARED_MODEL_VERSION, which a loader checks before reading more.
  fprintf(f,
          "// Generated by emb-compile --shared. Do not edit.\n"
          "// What the shared object says about itself (emb/model.h,\n"
          "// EmbSharedModel version %d).\n"
          "#include <stdint.h>\n\n"
          "typedef struct ArgSpec {\n"
          "  int dtype, rank;\n  int64_t dims[%d];\n  int role;\n"
          "  int64_t lo, hi;\n  int ref, updated;\n} ArgSpec;\n"
          "typedef struct ModelSpec {\n"
          "  const char *name, *target;\n  int numInputs, numResults;\n"
          "  const ArgSpec *inputs, *results;\n"
          "  void (*invoke)(void **args);\n} ModelSpec;\n"
          "typedef struct SharedModel {\n"
          "  uint32_t version, size;\n  const char *prefix;\n"
          "  int32_t numEntries;\n  const ModelSpec *const *entries;\n"
          "} SharedModel;\n\n",
          EMB_SHARED_MODEL_VERSION, EMB_MODEL_MAX_RANK);
  for (int s = 0; s < numSpecs; ++s) {
    const EmbModelSpec *m = &specs[s];
    int nargs = m->numInputs + m->numResults;
    fprintf(f, "void %s%s(void *ctx", prefix, m->name);
    for (int i = 0; i < nargs; ++i)
      fprintf(f, ", void *a%d", i);
    fprintf(f, ");\n");
    fprintf(f, "static void invoke_%s(void **args) {\n  %s%s(*(void **)args[0]",
            m->name, prefix, m->name);
    for (int i = 0; i < nargs; ++i)
      fprintf(f, ", *(void **)args[%d]", i + 1);
    fprintf(f, ");\n}\n");
    char array[256];
    snprintf(array, sizeof array, "inputs_%s", m->name);
    writeSharedSpecs(f, array, m->inputs, m->numInputs);
    snprintf(array, sizeof array, "results_%s", m->name);
    writeSharedSpecs(f, array, m->results, m->numResults);
    fprintf(f,
            "const ModelSpec %smodel_%s = {\"%s\", \"%s\", %d, %d, inputs_%s, "
            "results_%s, invoke_%s};\n\n",
            prefix, m->name, m->name, m->target, m->numInputs, m->numResults,
            m->name, m->name, m->name);
  }
  fprintf(f, "static const ModelSpec *const entries[] = {");
  for (int s = 0; s < numSpecs; ++s)
    fprintf(f, "%s&%smodel_%s", s ? ", " : "", prefix, specs[s].name);
  fprintf(f,
          "};\n"
          "const SharedModel %smodels = {%d, sizeof(SharedModel), \"%s\", "
          "%d, entries};\n"
          "// The compiled ABI (emb/compiled.h) the code was lowered for.\n"
          "const uint32_t %sabi_version = %d;\n",
          prefix, EMB_SHARED_MODEL_VERSION, prefix, numSpecs, prefix,
          EMB_ABI_VERSION);
  return closeOutput(f, path, onError, userData);
}
