// A model named @main, as torch-mlir's FX importer names every model:
// compiled ahead of time at build time (emb-run-aot-main, emb-aot-call-main)
// and linked into programs that have a main of their own. A sum bag of two
// bags over a 4x2 table.
func.func @main(%table: tensor<4x2xf32>, %ids: tensor<5xi64>, %offsets: tensor<3xi64>) -> tensor<2x2xf32> {
  %0 = "emb.embedding_bag"(%table, %ids, %offsets) {mode = "sum"} : (tensor<4x2xf32>, tensor<5xi64>, tensor<3xi64>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
