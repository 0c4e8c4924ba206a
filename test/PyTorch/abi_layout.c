//===- test/PyTorch/abi_layout.c - The C layout of emb_torch's structs ----===//
//
// Prints the size of every C struct emb_torch declares with ctypes
// (python/emb_torch/_abi.py) and the offset and size of each of its fields,
// from the headers themselves; check_abi.py compares the two. A field listed
// here that the header lacks does not compile.
//
//===----------------------------------------------------------------------===//

#include "emb/compiled.h"
#include "emb/model.h"
#include "emb/runtime.h"

#include <stddef.h>
#include <stdio.h>

#define STRUCT(T) printf("%s %zu\n", #T, sizeof(T))
#define FIELD(T, f)                                                            \
  printf("%s.%s %zu %zu\n", #T, #f, offsetof(T, f), sizeof(((T *)0)->f))

int main(void) {
  STRUCT(embrtTbeArgs);
  FIELD(embrtTbeArgs, structSize);
  FIELD(embrtTbeArgs, pooling);
  FIELD(embrtTbeArgs, boundsCheck);
  FIELD(embrtTbeArgs, numTables);
  FIELD(embrtTbeArgs, tables);
  FIELD(embrtTbeArgs, tableRows);
  FIELD(embrtTbeArgs, tableDims);
  FIELD(embrtTbeArgs, tableDtype);
  FIELD(embrtTbeArgs, numFeatures);
  FIELD(embrtTbeArgs, featureTables);
  FIELD(embrtTbeArgs, batchSize);
  FIELD(embrtTbeArgs, numIndices);
  FIELD(embrtTbeArgs, indices);
  FIELD(embrtTbeArgs, indexDtype);
  FIELD(embrtTbeArgs, offsets);
  FIELD(embrtTbeArgs, offsetDtype);
  FIELD(embrtTbeArgs, perSampleWeights);
  FIELD(embrtTbeArgs, perSampleWeightDtype);
  FIELD(embrtTbeArgs, paddingIdx);
  FIELD(embrtTbeArgs, hasPaddingIdx);
  FIELD(embrtTbeArgs, output);
  FIELD(embrtTbeArgs, outputDtype);
  FIELD(embrtTbeArgs, configId);
  FIELD(embrtTbeArgs, workspace);
  FIELD(embrtTbeArgs, workspaceBytes);
  FIELD(embrtTbeArgs, featureEnds);
  FIELD(embrtTbeArgs, tablePrecisions);
  FIELD(embrtTbeArgs, maskedOffsets);
  STRUCT(embrtTbeBackwardArgs);
  FIELD(embrtTbeBackwardArgs, structSize);
  FIELD(embrtTbeBackwardArgs, lookup);
  FIELD(embrtTbeBackwardArgs, gradOutput);
  FIELD(embrtTbeBackwardArgs, gradDtype);
  FIELD(embrtTbeBackwardArgs, optimizer);
  FIELD(embrtTbeBackwardArgs, momentum1);
  FIELD(embrtTbeBackwardArgs, momentum2);
  FIELD(embrtTbeBackwardArgs, hyperParams);
  FIELD(embrtTbeBackwardArgs, step);
  FIELD(embrtTbeBackwardArgs, seed);
  FIELD(embrtTbeBackwardArgs, configId);
  FIELD(embrtTbeBackwardArgs, workspace);
  FIELD(embrtTbeBackwardArgs, workspaceBytes);
  FIELD(embrtTbeBackwardArgs, momentum1Precision);
  FIELD(embrtTbeBackwardArgs, momentum2Precision);
  FIELD(embrtTbeBackwardArgs, momentum1Scales);
  FIELD(embrtTbeBackwardArgs, momentum2Scales);
  FIELD(embrtTbeBackwardArgs, gradRowStride);
  STRUCT(embrtBroadcastArgs);
  FIELD(embrtBroadcastArgs, structSize);
  FIELD(embrtBroadcastArgs, ro);
  FIELD(embrtBroadcastArgs, numUsers);
  FIELD(embrtBroadcastArgs, rowElements);
  FIELD(embrtBroadcastArgs, dtype);
  FIELD(embrtBroadcastArgs, candToUser);
  FIELD(embrtBroadcastArgs, indexDtype);
  FIELD(embrtBroadcastArgs, batchSize);
  FIELD(embrtBroadcastArgs, nro);
  FIELD(embrtBroadcastArgs, output);
  STRUCT(embrtJaggedToPaddedArgs);
  FIELD(embrtJaggedToPaddedArgs, structSize);
  FIELD(embrtJaggedToPaddedArgs, values);
  FIELD(embrtJaggedToPaddedArgs, numValues);
  FIELD(embrtJaggedToPaddedArgs, rowElements);
  FIELD(embrtJaggedToPaddedArgs, dtype);
  FIELD(embrtJaggedToPaddedArgs, offsets);
  FIELD(embrtJaggedToPaddedArgs, indexDtype);
  FIELD(embrtJaggedToPaddedArgs, numUsers);
  FIELD(embrtJaggedToPaddedArgs, maxLength);
  FIELD(embrtJaggedToPaddedArgs, paddingValue);
  FIELD(embrtJaggedToPaddedArgs, padded);
  FIELD(embrtJaggedToPaddedArgs, lengths);
  STRUCT(embrtIkboLceArgs);
  FIELD(embrtIkboLceArgs, structSize);
  FIELD(embrtIkboLceArgs, dtype);
  FIELD(embrtIkboLceArgs, batchSize);
  FIELD(embrtIkboLceArgs, numUsers);
  FIELD(embrtIkboLceArgs, m);
  FIELD(embrtIkboLceArgs, kUser);
  FIELD(embrtIkboLceArgs, kCand);
  FIELD(embrtIkboLceArgs, n);
  FIELD(embrtIkboLceArgs, wUser);
  FIELD(embrtIkboLceArgs, wCand);
  FIELD(embrtIkboLceArgs, user);
  FIELD(embrtIkboLceArgs, cand);
  FIELD(embrtIkboLceArgs, candToUser);
  FIELD(embrtIkboLceArgs, indexDtype);
  FIELD(embrtIkboLceArgs, output);
  FIELD(embrtIkboLceArgs, configId);
  FIELD(embrtIkboLceArgs, workspace);
  FIELD(embrtIkboLceArgs, workspaceBytes);
  FIELD(embrtIkboLceArgs, wUserStride);
  FIELD(embrtIkboLceArgs, wCandStride);
  FIELD(embrtIkboLceArgs, numCandPieces);
  FIELD(embrtIkboLceArgs, candPieces);
  FIELD(embrtIkboLceArgs, candPieceK);
  FIELD(embrtIkboLceArgs, computeDtype);
  STRUCT(embrtAttentionArgs);
  FIELD(embrtAttentionArgs, structSize);
  FIELD(embrtAttentionArgs, dtype);
  FIELD(embrtAttentionArgs, batchSize);
  FIELD(embrtAttentionArgs, numUsers);
  FIELD(embrtAttentionArgs, lq);
  FIELD(embrtAttentionArgs, lk);
  FIELD(embrtAttentionArgs, heads);
  FIELD(embrtAttentionArgs, headDim);
  FIELD(embrtAttentionArgs, scale);
  FIELD(embrtAttentionArgs, q);
  FIELD(embrtAttentionArgs, k);
  FIELD(embrtAttentionArgs, v);
  FIELD(embrtAttentionArgs, candToUser);
  FIELD(embrtAttentionArgs, userLengths);
  FIELD(embrtAttentionArgs, indexDtype);
  FIELD(embrtAttentionArgs, output);
  FIELD(embrtAttentionArgs, configId);
  FIELD(embrtAttentionArgs, workspace);
  FIELD(embrtAttentionArgs, workspaceBytes);
  FIELD(embrtAttentionArgs, computeDtype);
  FIELD(embrtAttentionArgs, additiveMask);
  STRUCT(EmbArgSpec);
  FIELD(EmbArgSpec, dtype);
  FIELD(EmbArgSpec, rank);
  FIELD(EmbArgSpec, dims);
  FIELD(EmbArgSpec, role);
  FIELD(EmbArgSpec, lo);
  FIELD(EmbArgSpec, hi);
  FIELD(EmbArgSpec, ref);
  FIELD(EmbArgSpec, updated);
  STRUCT(EmbModelSpec);
  FIELD(EmbModelSpec, name);
  FIELD(EmbModelSpec, target);
  FIELD(EmbModelSpec, numInputs);
  FIELD(EmbModelSpec, numResults);
  FIELD(EmbModelSpec, inputs);
  FIELD(EmbModelSpec, results);
  FIELD(EmbModelSpec, invoke);
  STRUCT(EmbSharedModel);
  FIELD(EmbSharedModel, version);
  FIELD(EmbSharedModel, size);
  FIELD(EmbSharedModel, prefix);
  FIELD(EmbSharedModel, numEntries);
  FIELD(EmbSharedModel, entries);
  STRUCT(embrtCompiledResult);
  FIELD(embrtCompiledResult, data);
  FIELD(embrtCompiledResult, rank);
  FIELD(embrtCompiledResult, dims);
  STRUCT(embrtBucketizeArgs);
  FIELD(embrtBucketizeArgs, structSize);
  FIELD(embrtBucketizeArgs, indexDtype);
  FIELD(embrtBucketizeArgs, indices);
  FIELD(embrtBucketizeArgs, numIndices);
  FIELD(embrtBucketizeArgs, offsets);
  FIELD(embrtBucketizeArgs, numFeatures);
  FIELD(embrtBucketizeArgs, batchSize);
  FIELD(embrtBucketizeArgs, perSampleWeights);
  FIELD(embrtBucketizeArgs, weightDtype);
  FIELD(embrtBucketizeArgs, worldSize);
  FIELD(embrtBucketizeArgs, numSlots);
  FIELD(embrtBucketizeArgs, slotRanks);
  FIELD(embrtBucketizeArgs, slotFeatures);
  FIELD(embrtBucketizeArgs, slotRowBegin);
  FIELD(embrtBucketizeArgs, slotRowEnd);
  FIELD(embrtBucketizeArgs, ids);
  FIELD(embrtBucketizeArgs, idsCapacity);
  FIELD(embrtBucketizeArgs, weights);
  FIELD(embrtBucketizeArgs, lengths);
  FIELD(embrtBucketizeArgs, counts);
  FIELD(embrtBucketizeArgs, workspace);
  FIELD(embrtBucketizeArgs, workspaceBytes);
  STRUCT(embrtLengthsToOffsetsArgs);
  FIELD(embrtLengthsToOffsetsArgs, structSize);
  FIELD(embrtLengthsToOffsetsArgs, dtype);
  FIELD(embrtLengthsToOffsetsArgs, lengths);
  FIELD(embrtLengthsToOffsetsArgs, numLengths);
  FIELD(embrtLengthsToOffsetsArgs, numBlocks);
  FIELD(embrtLengthsToOffsetsArgs, offsets);
  FIELD(embrtLengthsToOffsetsArgs, blockSums);
  FIELD(embrtLengthsToOffsetsArgs, workspace);
  FIELD(embrtLengthsToOffsetsArgs, workspaceBytes);
  STRUCT(embrtQuantizeTableArgs);
  FIELD(embrtQuantizeTableArgs, structSize);
  FIELD(embrtQuantizeTableArgs, precision);
  FIELD(embrtQuantizeTableArgs, rows);
  FIELD(embrtQuantizeTableArgs, dim);
  FIELD(embrtQuantizeTableArgs, input);
  FIELD(embrtQuantizeTableArgs, denseDtype);
  FIELD(embrtQuantizeTableArgs, output);
  return 0;
}
