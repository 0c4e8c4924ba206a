#!/bin/bash
# A/B of the sm90a IKBO LCE in one launch (user tiles first, candidate tiles
# waiting on ready flags) against the user and candidate products as two
# launches (--two-launches), on the GPU machine:
#
#   OUT=/tmp/ab SETS=main,heldout bench/ikbo_lce/launches_ab.sh
#
# Uses $BUILD/ikbo_lce_bench (default build-ikbo; bench/ikbo_lce/build.sh
# builds it). Runs each side three times, alternating, in this one call;
# writes $OUT/one.jsonl and $OUT/two.jsonl and prints, per shape, the median
# of the three medians of each side and their ratio.
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-ikbo}
OUT=${OUT:-/tmp/ab}
SETS=${SETS:-main,heldout}
mkdir -p "$OUT"
: >"$OUT/one.jsonl"
: >"$OUT/two.jsonl"
for run in 1 2 3; do
  "$BUILD/ikbo_lce_bench" --set "$SETS" >>"$OUT/one.jsonl"
  "$BUILD/ikbo_lce_bench" --set "$SETS" --two-launches >>"$OUT/two.jsonl"
done
python3 - "$OUT/one.jsonl" "$OUT/two.jsonl" <<'PY'
import json, statistics, sys
def load(path):
    rows = {}
    for line in open(path):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        key = (r["case"], r["dtype"], r["B"], r["U"], r["M"], r["Ku"], r["Kc"], r["N"])
        rows.setdefault(key, []).append(r)
    return rows
one, two = load(sys.argv[1]), load(sys.argv[2])
print(f"{'case':15} {'dtype':5} {'B':>5} {'U':>4} {'M':>4} {'Ku':>5} {'Kc':>5} "
      f"{'config':15} {'one ms (3 runs)':>27} {'two ms (3 runs)':>27} {'two/one':>7}")
for key in one:
    a = [r["ms"] for r in one[key]]
    b = [r["ms"] for r in two.get(key, [])]
    if not b:
        continue
    ma, mb = statistics.median(a), statistics.median(b)
    print(f"{key[0]:15} {key[1]:5} {key[2]:5} {key[3]:4} {key[4]:4} {key[5]:5} {key[6]:5} "
          f"{one[key][0]['config']:15} {ma:7.4f} ({','.join(f'{x:.4f}' for x in a)}) "
          f"{mb:7.4f} ({','.join(f'{x:.4f}' for x in b)}) {mb / ma:7.3f}")
PY
