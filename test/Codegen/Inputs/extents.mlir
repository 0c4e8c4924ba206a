// Ops whose operands share dynamic extents, in functions that MLIR's own
// pipeline lowers: test/Codegen/extents.test.
func.func @add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @rows(%a: tensor<?x2xf32>, %b: tensor<?x3xf32>) -> tensor<?x5xf32> {
  %r = tensor.concat dim(1) %a, %b : (tensor<?x2xf32>, tensor<?x3xf32>) -> tensor<?x5xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %r, %c0 : tensor<?x5xf32>
  %e = tensor.empty(%n) : tensor<?x5xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<?x5xf32>) outs(%e : tensor<?x5xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<?x5xf32>
  return %d : tensor<?x5xf32>
}

func.func @bmm(%a: tensor<?x2x3xf32>, %b: tensor<?x3x4xf32>) -> tensor<?x2x4xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x2x3xf32>
  %e = tensor.empty(%n) : tensor<?x2x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x2x4xf32>) -> tensor<?x2x4xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x2x3xf32>, tensor<?x3x4xf32>) outs(%z : tensor<?x2x4xf32>) -> tensor<?x2x4xf32>
  %s = tensor.empty(%n) : tensor<?x2x4xf32>
  %d = linalg.add ins(%r, %r : tensor<?x2x4xf32>, tensor<?x2x4xf32>) outs(%s : tensor<?x2x4xf32>) -> tensor<?x2x4xf32>
  return %d : tensor<?x2x4xf32>
}

func.func @sum2(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.add ins(%a, %b : tensor<?x4xf32>, tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %m = math.exp %r : tensor<?x4xf32>
  return %m : tensor<?x4xf32>
}
