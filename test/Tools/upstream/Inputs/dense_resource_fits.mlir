// dense_resource_blob.mlir: four f32 in a blob of four.
func.func @fits() -> tensor<4xf32> {
  %w = arith.constant dense_resource<weights> : tensor<4xf32>
  return %w : tensor<4xf32>
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
