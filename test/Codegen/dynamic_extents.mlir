// emb-lower-to-runtime passes, besides the sizes a call computes with, the
// extents of the other operands and of the result, read from the memref
// descriptors where a dim is `?`; the runtime's decoder compares them
// before either backend runs (docs/runtime.md, "Compiled calls: checked
// extents"; run end to end by dynamic_extents_run.test).
// RUN: emb-opt --split-input-file --emb-lower-to-runtime %s | FileCheck %s
// REQUIRES: emb-compiler

// emb.embedding_bag: N from the ids, B from the static result, and as
// checked extents the offsets' and the per-sample weights' lengths (dims 3
// and 4, read at run time) and the result's rows and columns (5 and 6).
// attrs 11 says it is a bag (its errors name embedding_bag).
// CHECK-LABEL: func.func @bag
// CHECK-SAME: %[[IDS:[^:]+]]: memref<?xi64>, %[[OFFS:[^:]+]]: memref<?xi64>, %[[PSW:[^:]+]]: memref<?xf32>
// CHECK: %[[NDIM:.+]] = memref.dim %[[IDS]]
// CHECK-NEXT: %[[N:.+]] = arith.index_cast %[[NDIM]]
// CHECK: %[[ODIM:.+]] = memref.dim %[[OFFS]]
// CHECK-NEXT: %[[NOFF:.+]] = arith.index_cast %[[ODIM]]
// CHECK: %[[PDIM:.+]] = memref.dim %[[PSW]]
// CHECK-NEXT: %[[NPSW:.+]] = arith.index_cast %[[PDIM]]
// CHECK: %[[ATTRS:.+]] = llvm.alloca %{{.+}} x i64
// CHECK: %[[A10:.+]] = llvm.getelementptr %[[ATTRS]][10]
// CHECK-NEXT: llvm.store
// CHECK-NEXT: %[[IS_BAG:.+]] = arith.constant 1 : i64
// CHECK-NEXT: %[[A11:.+]] = llvm.getelementptr %[[ATTRS]][11]
// CHECK-NEXT: llvm.store %[[IS_BAG]], %[[A11]]
// CHECK: %[[NDIMS:.+]] = arith.constant 9 : i64
// CHECK-NEXT: %[[DIMS:.+]] = llvm.alloca %[[NDIMS]] x i64
// CHECK: %[[D0:.+]] = llvm.getelementptr %[[DIMS]][0]
// CHECK-NEXT: llvm.store %[[N]], %[[D0]]
// CHECK: %[[D3:.+]] = llvm.getelementptr %[[DIMS]][3]
// CHECK-NEXT: llvm.store %[[NOFF]], %[[D3]]
// CHECK-NEXT: %[[D4:.+]] = llvm.getelementptr %[[DIMS]][4]
// CHECK-NEXT: llvm.store %[[NPSW]], %[[D4]]
// CHECK-NEXT: %[[ROWS:.+]] = arith.constant 3 : i64
// CHECK-NEXT: %[[D5:.+]] = llvm.getelementptr %[[DIMS]][5]
// CHECK-NEXT: llvm.store %[[ROWS]], %[[D5]]
// CHECK-NEXT: %[[COLS:.+]] = arith.constant 4 : i64
// CHECK-NEXT: %[[D6:.+]] = llvm.getelementptr %[[DIMS]][6]
// CHECK-NEXT: llvm.store %[[COLS]], %[[D6]]
// CHECK: call @embrtCompiledTbe(%{{.+}}, %[[ATTRS]], %{{.+}}, %[[DIMS]])
func.func @bag(%w: tensor<10x4xf32>, %idx: tensor<?xi64>, %off: tensor<?xi64>, %psw: tensor<?xf32>) -> tensor<3x4xf32> {
  %0 = "emb.embedding_bag"(%w, %idx, %off, %psw) {mode = "sum"} : (tensor<10x4xf32>, tensor<?xi64>, tensor<?xi64>, tensor<?xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// emb.broadcast_add with a result of run-time size: B is cand_to_user's
// length (dim 2) and nro's rows its own (dim 5), so an nro of another length
// is an error, not a read past it. The result is the call's own allocation
// of B rows (dim 3 is B), handed to the caller through its
// embrtCompiledResult (the last argument): address, rank 2, B and 4.
// CHECK-LABEL: func.func @broadcast_add
// CHECK-SAME: %[[C2U:[^:]+]]: memref<?xi64>, %[[NRO:[^:]+]]: memref<?x4xf32>, %[[REC:[^:]+]]: !llvm.ptr)
// CHECK: %[[CDIM:.+]] = memref.dim %[[C2U]]
// CHECK-NEXT: %[[B:.+]] = arith.index_cast %[[CDIM]]
// CHECK: %[[NDIM:.+]] = memref.dim %[[NRO]]
// CHECK-NEXT: %[[NROWS:.+]] = arith.index_cast %[[NDIM]]
// CHECK: %[[OUT:.+]] = call @embrtCompiledAlloc(
// CHECK: %[[NDIMS:.+]] = arith.constant 7 : i64
// CHECK-NEXT: %[[DIMS:.+]] = llvm.alloca %[[NDIMS]] x i64
// CHECK: %[[D2:.+]] = llvm.getelementptr %[[DIMS]][2]
// CHECK-NEXT: llvm.store %[[B]], %[[D2]]
// CHECK-NEXT: %[[D3:.+]] = llvm.getelementptr %[[DIMS]][3]
// CHECK-NEXT: llvm.store %[[B]], %[[D3]]
// CHECK: %[[D5:.+]] = llvm.getelementptr %[[DIMS]][5]
// CHECK-NEXT: llvm.store %[[NROWS]], %[[D5]]
// CHECK: call @embrtCompiledBroadcastAdd(%{{.+}}, %{{.+}}, %{{.+}}, %[[DIMS]])
// CHECK-NEXT: %[[R0:.+]] = llvm.getelementptr %[[REC]][0]
// CHECK-NEXT: llvm.store %[[OUT]], %[[R0]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[R2:.+]] = llvm.getelementptr %[[REC]][2]
// CHECK-NEXT: llvm.store %[[B]], %[[R2]] : i64, !llvm.ptr
// CHECK-NOT: call @embrtCompiledFree(%{{.+}}, %[[OUT]])
// CHECK: return
func.func @broadcast_add(%ro: tensor<?x4xf32>, %c2u: tensor<?xi64>, %nro: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %0 = "emb.broadcast_add"(%ro, %c2u, %nro) : (tensor<?x4xf32>, tensor<?xi64>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
