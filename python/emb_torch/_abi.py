"""The C structs emb_torch passes to the runtime and reads from compiled models, as ctypes
declares them: include/emb/runtime.h (the op arguments), include/emb/compiled.h
(embrtCompiledResult) and include/emb/model.h (a shared object's description of itself).

No torch here: test/PyTorch/abi.test checks every struct's size and every field's offset against
the C headers on machines without PyTorch.
"""
import ctypes

# embrtDtype
F32, F16, BF16, I32, I64, F64, I8 = 0, 1, 2, 3, 4, 5, 6
EMBRT_IKBO_LCE_MAX_PIECES = 4
MAX_RANK = 8  # EMBRT_MAX_RANK, EMB_MODEL_MAX_RANK

_p = ctypes.c_void_p
_i64 = ctypes.c_int64
_i64p = ctypes.POINTER(ctypes.c_int64)
_pp = ctypes.POINTER(ctypes.c_void_p)
_dtype = ctypes.c_int  # embrtDtype (a C enum: int)


class TbeArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("pooling", ctypes.c_int),
                ("boundsCheck", ctypes.c_int), ("numTables", ctypes.c_int64), ("tables", _pp),
                ("tableRows", _i64p), ("tableDims", _i64p), ("tableDtype", ctypes.c_int),
                ("numFeatures", ctypes.c_int64), ("featureTables", _i64p),
                ("batchSize", ctypes.c_int64), ("numIndices", ctypes.c_int64), ("indices", _p),
                ("indexDtype", ctypes.c_int), ("offsets", _p), ("offsetDtype", ctypes.c_int),
                ("perSampleWeights", _p), ("perSampleWeightDtype", ctypes.c_int),
                ("paddingIdx", ctypes.c_int64), ("hasPaddingIdx", ctypes.c_int), ("output", _p),
                ("outputDtype", ctypes.c_int), ("configId", ctypes.c_int64), ("workspace", _p),
                ("workspaceBytes", ctypes.c_size_t), ("featureEnds", _p),
                ("tablePrecisions", _i64p), ("maskedOffsets", ctypes.c_int)]


class TbeBackwardArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("lookup", TbeArgs), ("gradOutput", _p),
                ("gradDtype", ctypes.c_int), ("optimizer", ctypes.c_int), ("momentum1", _pp),
                ("momentum2", _pp), ("hyperParams", _p), ("step", _p), ("seed", ctypes.c_uint64),
                ("configId", ctypes.c_int64), ("workspace", _p), ("workspaceBytes", ctypes.c_size_t),
                ("momentum1Precision", ctypes.c_int), ("momentum2Precision", ctypes.c_int),
                ("momentum1Scales", _pp), ("momentum2Scales", _pp),
                ("gradRowStride", ctypes.c_int64)]


class BroadcastArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("ro", _p), ("numUsers", _i64),
                ("rowElements", _i64), ("dtype", _dtype), ("candToUser", _p),
                ("indexDtype", _dtype), ("batchSize", _i64), ("nro", _p), ("output", _p)]


class JaggedToPaddedArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("values", _p), ("numValues", _i64),
                ("rowElements", _i64), ("dtype", _dtype), ("offsets", _p),
                ("indexDtype", _dtype), ("numUsers", _i64), ("maxLength", _i64),
                ("paddingValue", ctypes.c_double), ("padded", _p), ("lengths", _p)]


class IkboLceArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("dtype", _dtype), ("batchSize", _i64),
                ("numUsers", _i64), ("m", _i64), ("kUser", _i64), ("kCand", _i64), ("n", _i64),
                ("wUser", _p), ("wCand", _p), ("user", _p), ("cand", _p), ("candToUser", _p),
                ("indexDtype", _dtype), ("output", _p), ("configId", _i64), ("workspace", _p),
                ("workspaceBytes", ctypes.c_size_t), ("wUserStride", _i64),
                ("wCandStride", _i64), ("numCandPieces", _i64),
                ("candPieces", _p * EMBRT_IKBO_LCE_MAX_PIECES),
                ("candPieceK", _i64 * EMBRT_IKBO_LCE_MAX_PIECES), ("computeDtype", _dtype)]


class AttentionArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("dtype", _dtype), ("batchSize", _i64),
                ("numUsers", _i64), ("lq", _i64), ("lk", _i64), ("heads", _i64),
                ("headDim", _i64), ("scale", ctypes.c_float), ("q", _p), ("k", _p), ("v", _p),
                ("candToUser", _p), ("userLengths", _p), ("indexDtype", _dtype), ("output", _p),
                ("configId", _i64), ("workspace", _p), ("workspaceBytes", ctypes.c_size_t),
                ("computeDtype", _dtype), ("additiveMask", ctypes.c_int)]


class ArgSpecStruct(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_int),
                ("dims", ctypes.c_int64 * MAX_RANK), ("role", ctypes.c_int),
                ("lo", ctypes.c_int64), ("hi", ctypes.c_int64), ("ref", ctypes.c_int),
                ("updated", ctypes.c_int)]


class ModelSpecStruct(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("target", ctypes.c_char_p),
                ("numInputs", ctypes.c_int), ("numResults", ctypes.c_int),
                ("inputs", ctypes.POINTER(ArgSpecStruct)), ("results", ctypes.POINTER(ArgSpecStruct)),
                ("invoke", ctypes.c_void_p)]


class SharedModelStruct(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("size", ctypes.c_uint32),
                ("prefix", ctypes.c_char_p), ("numEntries", ctypes.c_int32),
                ("entries", ctypes.POINTER(ctypes.POINTER(ModelSpecStruct)))]


class CompiledResultStruct(ctypes.Structure):
    """embrtCompiledResult (include/emb/compiled.h)."""
    _fields_ = [("data", ctypes.c_void_p), ("rank", ctypes.c_int64),
                ("dims", ctypes.c_int64 * MAX_RANK)]


class BucketizeArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("indexDtype", _dtype), ("indices", _p),
                ("numIndices", _i64), ("offsets", _p), ("numFeatures", _i64),
                ("batchSize", _i64), ("perSampleWeights", _p), ("weightDtype", _dtype),
                ("worldSize", _i64), ("numSlots", _i64), ("slotRanks", _i64p),
                ("slotFeatures", _i64p), ("slotRowBegin", _i64p), ("slotRowEnd", _i64p),
                ("ids", _p), ("idsCapacity", _i64), ("weights", _p), ("lengths", _p),
                ("counts", _p), ("workspace", _p), ("workspaceBytes", ctypes.c_size_t)]


class LengthsToOffsetsArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("dtype", _dtype), ("lengths", _p),
                ("numLengths", _i64), ("numBlocks", _i64), ("offsets", _p), ("blockSums", _p),
                ("workspace", _p), ("workspaceBytes", ctypes.c_size_t)]


class QuantizeTableArgs(ctypes.Structure):
    _fields_ = [("structSize", ctypes.c_size_t), ("precision", ctypes.c_int), ("rows", _i64),
                ("dim", _i64), ("input", _p), ("denseDtype", _dtype), ("output", _p)]


# Every struct, for test/PyTorch/check_abi.py: (the C type name, the ctypes class).
STRUCTS = [
    ("embrtTbeArgs", TbeArgs), ("embrtTbeBackwardArgs", TbeBackwardArgs),
    ("embrtBroadcastArgs", BroadcastArgs), ("embrtJaggedToPaddedArgs", JaggedToPaddedArgs),
    ("embrtIkboLceArgs", IkboLceArgs), ("embrtAttentionArgs", AttentionArgs),
    ("embrtBucketizeArgs", BucketizeArgs), ("embrtLengthsToOffsetsArgs", LengthsToOffsetsArgs),
    ("embrtQuantizeTableArgs", QuantizeTableArgs),
    ("EmbArgSpec", ArgSpecStruct), ("EmbModelSpec", ModelSpecStruct),
    ("EmbSharedModel", SharedModelStruct), ("embrtCompiledResult", CompiledResultStruct),
]
