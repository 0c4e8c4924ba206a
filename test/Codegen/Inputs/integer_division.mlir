// Integer division and remainder whose divisors are the model's inputs
// (integer_division_run.test, integer_division.mlir).

func.func @divide(%a: tensor<3x2xi64>, %b: tensor<3x2xi64>, %c2u: tensor<4xi64>) -> tensor<4x2xi64> {
  %ba = "emb.broadcast"(%a, %c2u) : (tensor<3x2xi64>, tensor<4xi64>) -> tensor<4x2xi64>
  %bb = "emb.broadcast"(%b, %c2u) : (tensor<3x2xi64>, tensor<4xi64>) -> tensor<4x2xi64>
  %d = arith.divsi %ba, %bb : tensor<4x2xi64>
  return %d : tensor<4x2xi64>
}

// Every kind on tensors of i32, one result each.
func.func @kinds(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %q = arith.divsi %a, %b : tensor<4xi32>
  %r = arith.remsi %a, %b : tensor<4xi32>
  %qu = arith.divui %a, %b : tensor<4xi32>
  %ru = arith.remui %a, %b : tensor<4xi32>
  %c = arith.ceildivsi %a, %b : tensor<4xi32>
  %f = arith.floordivsi %a, %b : tensor<4xi32>
  return %q, %r, %qu, %ru, %c, %f : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// A linalg.generic whose body divides, by a divisor of a dynamic size.
#id = affine_map<(d0) -> (d0)>
func.func @generic(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?xi64>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xi64>, tensor<?xi64>) outs(%e : tensor<?xi64>) {
  ^bb0(%x: i64, %y: i64, %o: i64):
    %q = arith.remsi %x, %y : i64
    linalg.yield %q : i64
  } -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// Scalars read out of the inputs.
func.func @scalar(%a: tensor<2xi64>, %b: tensor<2xi64>) -> tensor<i64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tensor.extract %a[%c0] : tensor<2xi64>
  %y = tensor.extract %b[%c1] : tensor<2xi64>
  %q = arith.divui %x, %y : i64
  %t = tensor.from_elements %q : tensor<i64>
  return %t : tensor<i64>
}

// Constant divisors: 4 cannot be zero or -1 (nothing checked), -1 can
// overflow.
func.func @constants(%a: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>) {
  %four = arith.constant dense<4> : tensor<4xi64>
  %minus = arith.constant dense<-1> : tensor<4xi64>
  %q = arith.divsi %a, %four : tensor<4xi64>
  %n = arith.divsi %a, %minus : tensor<4xi64>
  return %q, %n : tensor<4xi64>, tensor<4xi64>
}
