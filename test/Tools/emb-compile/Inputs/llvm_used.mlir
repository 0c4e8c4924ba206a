// A module that keeps a global of its own with @llvm.used, where the
// lowering records the compiled ABI version (abi_version.test).
llvm.mlir.global internal constant @kept(0 : i32) : i32
llvm.mlir.global appending @llvm.used() {section = "llvm.metadata"} : !llvm.array<1 x ptr> {
  %0 = llvm.mlir.addressof @kept : !llvm.ptr
  %1 = llvm.mlir.undef : !llvm.array<1 x ptr>
  %2 = llvm.insertvalue %0, %1[0] : !llvm.array<1 x ptr>
  llvm.return %2 : !llvm.array<1 x ptr>
}
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
