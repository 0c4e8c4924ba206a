#!/bin/sh
# Runs test/Runtime/collectives_nccl.c as N ranks, one process and one GPU
# each, and fails unless every rank passes. N = 0: one rank per GPU that
# nvidia-smi lists (1 without nvidia-smi).
# Usage: collectives_nccl.sh <collectives_nccl binary> <N>
set -u
bin=$1
n=$2
if [ "$n" -eq 0 ]; then
  n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  [ "$n" -ge 1 ] 2>/dev/null || n=1
fi
dir=$(mktemp -d)
pids=""
r=0
while [ "$r" -lt "$n" ]; do
  "$bin" "$r" "$n" "$dir/id" &
  pids="$pids $!"
  r=$((r + 1))
done
status=0
for p in $pids; do
  wait "$p" || status=1
done
rm -rf "$dir"
[ "$status" -eq 0 ] && echo "collectives_nccl: $n ranks ok"
exit "$status"
