// examples/torch/embedding_bags.mlir written in the emb dialect: a sum bag
// and a mean bag, each with torch's offsets and the id count appended.
func.func @embedding_bags(%ta: tensor<100x16xf32>, %ia: tensor<40xi64>, %oa: tensor<8xi64>, %tb: tensor<50x16xf32>, %ib: tensor<24xi64>, %ob: tensor<8xi64>) -> tensor<8x32xf32> {
  %na = arith.constant dense<40> : tensor<1xi64>
  %nb = arith.constant dense<24> : tensor<1xi64>
  %ea = tensor.concat dim(0) %oa, %na : (tensor<8xi64>, tensor<1xi64>) -> tensor<9xi64>
  %eb = tensor.concat dim(0) %ob, %nb : (tensor<8xi64>, tensor<1xi64>) -> tensor<9xi64>
  %a = "emb.embedding_bag"(%ta, %ia, %ea) {mode = "sum"} : (tensor<100x16xf32>, tensor<40xi64>, tensor<9xi64>) -> tensor<8x16xf32>
  %b = "emb.embedding_bag"(%tb, %ib, %eb) {mode = "mean"} : (tensor<50x16xf32>, tensor<24xi64>, tensor<9xi64>) -> tensor<8x16xf32>
  %r = tensor.concat dim(1) %a, %b : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
