#!/bin/sh
# The PyTorch suite in one call, on a machine with torch (the GPU machine):
#   test/PyTorch/run.sh LIB MODELS [DEVICES]
# LIB: libembrt.so; MODELS: the folder test/PyTorch/make_compiled_models.sh wrote (made where
# emb-compile runs); DEVICES: "cuda cpu" by default. With $EMB_TORCH_OPS_LIB naming
# libemb_torch_ops.so, test_compiled.py requires it to load (--torch-ops required). Prints each
# script's last line and exits nonzero if any failed.
lib=$1
models=$2
devices=${3:-"cuda cpu"}
here=$(cd "$(dirname "$0")" && pwd)
status=0
for device in $devices; do
  for t in tbe integration ikbo input_dist quantized quant_modules compiled; do
    extra=""
    [ "$t" = compiled ] && extra="--models $models"
    [ "$t" = compiled ] && [ -n "${EMB_TORCH_OPS_LIB:-}" ] && [ "$EMB_TORCH_OPS_LIB" != off ] &&
      extra="$extra --torch-ops required"
    out=$(PYTHONUNBUFFERED=1 timeout 600 python3 "$here/test_$t.py" --device "$device" \
      --lib "$lib" $extra 2>&1)
    rc=$?
    [ $rc -ne 0 ] && status=1 && echo "$out" | grep -v "^ok " | tail -n 40
    echo "== $t ($device): rc $rc: $(echo "$out" | tail -n 1)"
  done
done
exit $status
