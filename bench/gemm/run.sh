#!/bin/bash
# embrtGemm (cuBLASLt, bias + relu in the epilogue) against torch on the
# ranking model's MLP shapes, on the GPU machine (CUDA, CMake, Ninja,
# PyTorch; no MLIR needed):
#
#   bench/gemm/run.sh            # COMPILE=0 skips torch.compile max-autotune
#
# Builds the runtime (with its kernels) and the GPU test of the GEMM in
# $BUILD (kept, so a second run builds nothing), runs that test (cuBLASLt
# against the CPU reference), then the benchmark and the torch peers in the
# same run, and prints a table of medians of three runs (ms per call) with
# our speed-up over each peer. Writes $OUT/gemm.txt.
#
# The variables every family's run.sh has: bench/common/env.sh.
# STEPS (default all): test,bench. ITERS: calls a run (100).
set -euo pipefail
cd "$(dirname "$0")/../.."
source bench/common/env.sh gemm test,bench
ITERS=${ITERS:-100}
export TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache TRITON_CACHE_DIR=/tmp/triton-cache

bench_build embrt embrt-kernel-test-gemm || exit 1
cc -O2 -std=c11 -Iinclude bench/gemm/gemm_bench.c "$BUILD/runtime/libembrt.a" \
  -L/usr/local/cuda/lib64 -lcublasLt -lcublas -lnccl -lcudart -lstdc++ -lm -ldl \
  -lpthread -o "$BUILD/gemm_bench"

if has test; then
  echo "== GPU test: cuBLASLt against the CPU reference"
  "$BUILD/test/Kernels/gemm" 2>&1 | tail -3
fi

has bench || exit 0
echo "== benchmark (median of 3 runs of $ITERS calls)"
{
  "$BUILD/gemm_bench" "$ITERS"
  python3 bench/gemm/peers.py "$ITERS"
} | tee "$OUT/gemm.txt"

python3 - "$OUT/gemm.txt" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    impl, m, k, n, epi, ms = line.split()
    rows.setdefault((m, k, n, epi), {})[impl] = float(ms)
peers = ["torch_eager", "torch_compile"]
print(f"\n{'shape (M x K -> N)':<22}{'epilogue':<14}{'ours ms':>9}"
      + "".join(f"{p + ' ms':>19}{'x':>7}" for p in peers))
for (m, k, n, epi), r in rows.items():
    ours = r.get("ours")
    cells = ""
    for p in peers:
        if p in r and ours:
            cells += f"{r[p]:>19.4f}{r[p] / ours:>7.2f}"
        else:
            cells += f"{'-':>19}{'-':>7}"
    print(f"{m + 'x' + k + ' -> ' + n:<22}{epi:<14}"
          f"{(ours if ours else float('nan')):>9.4f}{cells}")
PY
