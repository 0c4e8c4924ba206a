// A lookup of one f32 table passed in (test/Tools/emb-compile/packed_arguments.test).
func.func @lookup(%i: tensor<12xi64>, %o: tensor<5xi64>, %t: tensor<100x32xf32>) -> tensor<4x32xf32> {
  %h = "emb.table"(%t) : (tensor<100x32xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%i, %o, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<12xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}
