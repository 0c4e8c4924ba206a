# The environment and the build step every benchmark family's entry script
# (bench/<family>/run.sh) shares. A run.sh starts with
#
#   cd "$(dirname "$0")/../.."
#   source bench/common/env.sh <family> <default STEPS>
#
# and then has, whatever the family, these variables (docs/benchmarks.md,
# "Running a family"):
#
#   OUT       where the logs, the JSON lines and the results file go
#             (default /tmp/emb-bench/<family>)
#   BUILD     the CMake build folder, the runtime half (no MLIR:
#             -DEMB_ENABLE_COMPILER=OFF), sm_90 code only; one folder for
#             every family (default build-bench), incremental
#   STEPS     the steps to run, a comma list (spaces are taken as commas);
#             the family's run.sh lists its steps and its default
#   RUNS      runs a side, where the family alternates ours and the peers
#             (default 3)
#   ONLY      the cases to time, a comma list (default all)
#   DEADLINE  seconds after the start past which the optional late steps are
#             skipped (default 10000: none)
#   COMMIT    the commit recorded in the results (default git's short hash,
#             else EMB_COMMIT, else "uncommitted")
#   CMAKE_ARGS  more options for the configure step
#
# and these functions: has STEP (STEPS names it), stamp TEXT (a progress
# line with the seconds since the start), elapsed, bench_log_all (everything
# printed from here on also goes to $OUT/run.log), bench_gpu (the GPU's
# name, clocks, temperature and power), bench_build TARGET... (configures
# $BUILD and builds the targets; on failure prints the log's tail and
# returns 1), bench_sanitize TOOL SECONDS LABEL BINARY [ARGS...]
# (compute-sanitizer's TOOL on the binary, appended to $OUT/sanitizer.txt
# under "--- LABEL"; prints its exit status), bench_sanitizer_summary (the
# verdicts of $OUT/sanitizer.txt, counted), bench_late STEP (STEPS names
# the step and DEADLINE has not passed; else says it is skipped). onlyArgs is (--only "$ONLY")
# when ONLY is set.

bench_family=${1:?usage: source bench/common/env.sh FAMILY DEFAULT_STEPS}
OUT=${OUT:-/tmp/emb-bench/$bench_family}
BUILD=${BUILD:-build-bench}
STEPS=${STEPS:-${2:-}}
STEPS=${STEPS// /,}
RUNS=${RUNS:-3}
ONLY=${ONLY:-}
DEADLINE=${DEADLINE:-10000}
COMMIT=${COMMIT:-${EMB_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo uncommitted)}}
CMAKE_ARGS=${CMAKE_ARGS:-}
# Binaries built elsewhere (carried) find the CUDA libraries here; nvcc,
# cuobjdump, compute-sanitizer and ncu are on the path.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1
# The Python scripts' --commit defaults to EMB_COMMIT.
export OUT BUILD STEPS RUNS ONLY DEADLINE COMMIT EMB_COMMIT=$COMMIT
mkdir -p "$OUT"
LOG=$OUT/run.log
onlyArgs=()
[ -n "$ONLY" ] && onlyArgs=(--only "$ONLY")
bench_t0=$(date +%s)

has() { [[ ",$STEPS," == *",$1,"* ]]; }
elapsed() { echo $(($(date +%s) - bench_t0)); }
stamp() { echo "=== $1 ($(elapsed) s)"; }
bench_log_all() { exec > >(tee -a "$LOG") 2>&1; }
bench_gpu() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
    --format=csv,noheader
}
bench_build() {
  stamp "building ${*} (CMake in $BUILD, runtime half)"
  { cmake -G Ninja -S . -B "$BUILD" -DEMB_ENABLE_COMPILER=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90-real $CMAKE_ARGS >"$OUT/configure.log" 2>&1 &&
    ninja -C "$BUILD" "$@" >"$OUT/build.log" 2>&1; } ||
    { tail -n 40 "$OUT/configure.log" "$OUT/build.log"; return 1; }
}
bench_sanitize() {
  local tool=$1 seconds=$2 label=$3
  shift 3
  echo "--- $label" >>"$OUT/sanitizer.txt"
  timeout "$seconds" compute-sanitizer --tool "$tool" --error-exitcode 9 \
    "$@" >>"$OUT/sanitizer.txt" 2>&1
  echo "compute-sanitizer $label rc=$?"
}
bench_sanitizer_summary() {
  grep -E "^---|ERROR SUMMARY|RACECHECK SUMMARY|Invalid|Hazard|PASSED|FAILED" \
    "$OUT/sanitizer.txt" | sort | uniq -c | head -n 12
}
bench_late() {
  has "$1" || return 1
  [ "$(elapsed)" -lt "$DEADLINE" ] && return 0
  echo "$1 skipped: past the deadline"
  return 1
}
