// One emb.tbe over an int4, an int8, an fp8 and a dense f32 table (emb.table
// {precision, dim}), five features, three bags each (quantized_tbe_run.test).
func.func @quantized(%q4: tensor<5x16xi8>, %q8: tensor<5x16xi8>, %f8: tensor<5x16xi8>, %dense: tensor<5x2xf32>, %ids: tensor<?xi64>, %offsets: tensor<16xi64>) -> tensor<3x26xf32> {
  %h0 = "emb.table"(%q4) {precision = "int4", dim = 8 : i64} : (tensor<5x16xi8>) -> !emb.table_handle
  %h1 = "emb.table"(%q8) {precision = "int8", dim = 4 : i64} : (tensor<5x16xi8>) -> !emb.table_handle
  %h2 = "emb.table"(%f8) {precision = "fp8", dim = 4 : i64} : (tensor<5x16xi8>) -> !emb.table_handle
  %h3 = "emb.table"(%dense) : (tensor<5x2xf32>) -> !emb.table_handle
  %0 = "emb.tbe"(%ids, %offsets, %h0, %h1, %h2, %h3) {pooling = "sum", feature_tables = array<i64: 0, 1, 2, 3, 0>, operandSegmentSizes = array<i32: 1, 1, 4, 0>} : (tensor<?xi64>, tensor<16xi64>, !emb.table_handle, !emb.table_handle, !emb.table_handle, !emb.table_handle) -> tensor<3x26xf32>
  return %0 : tensor<3x26xf32>
}

// An int8 table alone, for random inputs (quantized_tbe_run.test).
func.func @quantized_only(%q8: tensor<50x16xi8>, %ids: tensor<12xi64>, %offsets: tensor<5xi64>) -> tensor<4x8xf32> {
  %h = "emb.table"(%q8) {precision = "int8", dim = 8 : i64} : (tensor<50x16xi8>) -> !emb.table_handle
  %0 = "emb.tbe"(%ids, %offsets, %h) {pooling = "sum", feature_tables = array<i64: 0>, operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (tensor<12xi64>, tensor<5xi64>, !emb.table_handle) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
