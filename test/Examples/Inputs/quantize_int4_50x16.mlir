// A caller's one-off quantization of a table of the small16 ranking model
// (50 rows of 16, f16) to its packed int4 rows, as emb.quantize_table does in
// a call (test/Examples/ranking_model_int4.test).
func.func @quantize(%t: tensor<50x16xf16>) -> tensor<50x16xi8> {
  %q = "emb.quantize_table"(%t) {precision = "int4", dim = 16 : i64} : (tensor<50x16xf16>) -> tensor<50x16xi8>
  return %q : tensor<50x16xi8>
}
