// A returned argument: one device-to-device copy of 8192 x 8192 f16
// (embrtCompiledCopy, cudaMemcpyAsync), the copy bandwidth the generated
// kernels are measured against (docs/codegen.md).
func.func @copy_f16_8192(%x: tensor<8192x8192xf16>) -> tensor<8192x8192xf16> {
  return %x : tensor<8192x8192xf16>
}
