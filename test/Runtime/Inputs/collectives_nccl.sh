#!/bin/sh
# Runs test/Runtime/collectives_nccl.c as N ranks, one process each (on one
# GPU when there is one), and fails unless every rank passes.
# Usage: collectives_nccl.sh <collectives_nccl binary> <N>
set -u
bin=$1
n=$2
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
