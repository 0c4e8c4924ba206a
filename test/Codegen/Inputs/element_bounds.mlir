// The model's own element reads and writes at indices from its inputs, for
// element_bounds_run.test.

// x[i, j] written into o[j].
func.func @gather(%x: tensor<?x3xf32>, %ij: tensor<2xi64>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.extract %ij[%c0] : tensor<2xi64>
  %b = tensor.extract %ij[%c1] : tensor<2xi64>
  %i = arith.index_cast %a : i64 to index
  %j = arith.index_cast %b : i64 to index
  %e = tensor.extract %x[%i, %j] : tensor<?x3xf32>
  %r = tensor.insert %e into %o[%j] : tensor<4xf32>
  return %r : tensor<4xf32>
}

// The table's rows at the ids, as torch-mlir writes an embedding_bag's read
// (no assert on the id).
#ids = affine_map<(d0, d1) -> (d0)>
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @rows(%table: tensor<?x2xf32>, %ids: tensor<3xi64>) -> tensor<3x2xf32> {
  %0 = tensor.empty() : tensor<3x2xf32>
  %1 = linalg.generic {indexing_maps = [#ids, #out], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<3xi64>) outs(%0 : tensor<3x2xf32>) {
  ^bb0(%id: i64, %acc: f32):
    %row = arith.index_cast %id : i64 to index
    %col = linalg.index 1 : index
    %x = tensor.extract %table[%row, %col] : tensor<?x2xf32>
    linalg.yield %x : f32
  } -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// A function returning a dynamically shaped tensor (which a cf.assert's
// failing path could not yield): x[i] written into x[0].
func.func @first(%x: tensor<?xf32>, %i: tensor<1xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %a = tensor.extract %i[%c0] : tensor<1xi64>
  %ia = arith.index_cast %a : i64 to index
  %e = tensor.extract %x[%ia] : tensor<?xf32>
  %r = tensor.insert %e into %x[%c0] : tensor<?xf32>
  return %r : tensor<?xf32>
}
