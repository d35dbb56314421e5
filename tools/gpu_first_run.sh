#!/usr/bin/env bash
# First run on a real GPU (issue 18, steps 1-3) in one command per call of the device tool.
#
# Before the lease, on the development machine, in the repository root (once per session;
# copies Chainer's conformance harness and two small wheels into the ignored folder .gpu_carry):
#
#     bash tools/carry_for_gpu.sh
#
# On the lease: two calls of the device tool's `run`, each under its 10-minute limit (the second
# right after the first, while the machine is still warm):
#
#     run(command="bash tools/gpu_first_run.sh stage1", carry=[".gpu_carry"], timeout_s=600)
#     run(command="bash tools/gpu_first_run.sh stage2", carry=[".gpu_carry"], timeout_s=600)
#
# stage1: machine description, smoke test, chainlet's `gpu` suite (pytest -m gpu -n 16), the
#         benchmarks (benchmarks/bench_gpu.py), the examples with --device @cupy:0 (8 files);
# stage2: Chainer 7.8.1's GPU test variants through the carried conformance harness
#         (MARKS="gpu and not cudnn") (5 files).
# Each call leaves its logs and $OUT/gpu-YYYY-MM-DD.md in $OUT. Afterwards, on the development
# machine, merge the two calls' files (the `files_at` folders of the two replies) into the record:
#
#     python tools/gpu_first_run_report.py record FILES_AT_1 FILES_AT_2 \
#         --out benchmarks/results/gpu-YYYY-MM-DD.md
#
# Every step has its own time limit and the whole call keeps within GPU_FIRST_RUN_BUDGET seconds
# (default 560), so one hang costs that step only; the record is rewritten after each step, so a
# call cut short still returns what it did. The steps run in order of value.
#
# `bash tools/gpu_first_run.sh all` runs both stages in one go (over 10 minutes, 10 files: not
# for the device tool). GPU_FIRST_RUN_EMULATE=1 is a dry run on the CPU stand-in for CuPy
# (tools/cupy_emulator) with tiny subsets, for tests/test_gpu_first_run.py.
#
# Environment: OUT (default /tmp/gpu-first-run-out), PYTHON (default python3), WORKERS
# (pytest-xdist workers; default 16, 1 when emulated), GPU_FIRST_RUN_BUDGET, GPU_FIRST_RUN_SUITE
# (pytest targets of the gpu suite; default: all), GPU_FIRST_RUN_EXAMPLES (names to run; default:
# all six), GPU_FIRST_RUN_CONFORMANCE (the harness folder; default .gpu_carry/conformance/chainer,
# else ../shared/conformance/chainer), GPU_FIRST_RUN_CONF_TARGETS (default chainer_tests), MARKS
# (the conformance marker expression; default "gpu and not cudnn").
set -u
STAGE=${1:-stage1}
case "$STAGE" in stage1|stage2|all) ;; *) echo "usage: $0 [stage1|stage2|all]" >&2; exit 2;; esac

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
OUT=${OUT:-/tmp/gpu-first-run-out}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-python3}
BUDGET=${GPU_FIRST_RUN_BUDGET:-560}
DATE=$(date -u +%Y-%m-%d)
RECORD="$OUT/gpu-$DATE.md"
EMULATE=${GPU_FIRST_RUN_EMULATE:-}
if [ -n "$EMULATE" ]; then WORKERS=${WORKERS:-1}; else WORKERS=${WORKERS:-16}; fi
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/gpu-first-run.XXXXXX")
SITE="$SCRATCH/site"
DEADLINE=$BUDGET
MAX_LOG=15000000   # bytes kept of each log (the device tool returns files up to 16 MiB)

export PYTHONUNBUFFERED=1 PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
if [ -n "$EMULATE" ]; then
  export CHAINLET_EMULATE_CUPY=1 BENCH_GPU_NO_TORCH=1
  SUITE_DEFAULT="tests/gpu/test_devices_cpu.py"
  EXAMPLES_DEFAULT="train_digits"
  CONF_TARGETS_DEFAULT="chainer_tests/functions_tests/math_tests/test_exponential.py"
else
  SUITE_DEFAULT=""
  EXAMPLES_DEFAULT="train_digits convnet gradient_penalty train_digits_trainer crf_tagger train_vae"
  CONF_TARGETS_DEFAULT="chainer_tests"
fi
# Chainer's multi_gpu(n) tests skip when fewer than n GPUs are allowed (one H100: the cuda_device=1
# variants of inject_backend_tests skip instead of failing)
if [ -z "${CHAINER_TEST_GPU_LIMIT:-}" ]; then
  N_GPUS=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  [ "${N_GPUS:-0}" -gt 0 ] || N_GPUS=1
  export CHAINER_TEST_GPU_LIMIT=$N_GPUS
fi
SUITE=${GPU_FIRST_RUN_SUITE:-$SUITE_DEFAULT}
EXAMPLES=${GPU_FIRST_RUN_EXAMPLES:-$EXAMPLES_DEFAULT}
CONF_TARGETS=${GPU_FIRST_RUN_CONF_TARGETS:-$CONF_TARGETS_DEFAULT}

log() { echo "[$(date -u +%H:%M:%S) +${SECONDS}s] $*" | tee -a "$OUT/run.log"; }

# seconds a step may take: its own limit, cut to what is left of the budget less a reserve
limit() {
  local want=$1 left=$((BUDGET - SECONDS - 15))
  [ "$left" -lt "$want" ] && want=$left
  echo "$want"
}

# t CAP COMMAND...: COMMAND under `timeout`, at most CAP seconds and never past the step's end
t() {
  local cap=$1 left=$((DEADLINE - SECONDS))
  shift
  [ "$left" -lt "$cap" ] && cap=$left
  [ "$cap" -lt 1 ] && return 124
  timeout --kill-after=10 "$cap" "$@"
}

trim() {  # keep the tail of a log under the size the device tool returns
  local f=$1
  if [ -f "$f" ] && [ "$(wc -c <"$f")" -gt "$MAX_LOG" ]; then
    { echo "[log cut to its last $MAX_LOG bytes]"; tail -c "$MAX_LOG" "$f"; } >"$f.tmp" \
      && mv "$f.tmp" "$f"
  fi
}

record() {
  "$PY" tools/gpu_first_run_report.py record "$OUT" --date "$DATE" --out "$RECORD" \
    >>"$OUT/run.log" 2>&1 || log "record: could not be written"
}

# step NAME WANT_SECONDS COMMAND...: runs COMMAND under its time limit, notes the status
step() {
  local name=$1 want=$2 t0=$SECONDS rc
  shift 2
  local lim
  lim=$(limit "$want")
  if [ "$lim" -lt 20 ]; then
    log "step $name skipped: the call's budget is spent"
    echo "STAGE $name skipped 0" >>"$OUT/run.log"
    return
  fi
  log "step $name (limit ${lim}s)"
  DEADLINE=$((SECONDS + lim))
  "$@"
  rc=$?
  echo "STAGE $name $rc $((SECONDS - t0))" >>"$OUT/run.log"
  log "step $name: exit status $rc after $((SECONDS - t0))s"
  record
}

have() { "$PY" -c "import $1" >/dev/null 2>&1; }

# -- the steps ------------------------------------------------------------------------------

do_env() {
  t 60 "$PY" tools/gpu_first_run_report.py env >"$OUT/env.log" 2>&1
  { echo; echo "--- pip list"; t 30 "$PY" -m pip list 2>/dev/null | grep -i -E \
      'cupy|numpy|torch|pytest|xdist|mock|scipy|mpi4py|cuda|nccl|cudnn|hypothesis'; } \
      >>"$OUT/env.log" 2>&1
  return 0
}

do_smoke() {
  t 600 "$PY" tools/gpu_first_run_report.py smoke >"$OUT/smoke.log" 2>&1
}

do_suite() {
  # -v: one line per test, so that a run stopped by its time limit still tells what it did
  local args=(-m gpu -v -p no:randomly -p no:benchmark -rfEs --tb=short)
  have xdist && [ "$WORKERS" -gt 1 ] && args+=(-n "$WORKERS")
  have pytest_timeout && args+=(--timeout 120)
  echo "COMMAND: python -m pytest ${args[*]} $SUITE" >"$OUT/gpu-suite.log"
  # shellcheck disable=SC2086
  t 600 "$PY" -m pytest "${args[@]}" $SUITE >>"$OUT/gpu-suite.log" 2>&1
  local rc=$?
  trim "$OUT/gpu-suite.log"
  return $rc
}

do_bench() {
  local args=(--json "$OUT/bench.json")
  [ -n "$EMULATE" ] && args+=(--quick)
  t 600 "$PY" benchmarks/bench_gpu.py "${args[@]}" >"$OUT/bench.log" 2>&1
}

example_args() {
  local tmp=$SCRATCH/examples
  case $1 in
    train_digits) echo "--epochs 2 --out $tmp/digits_mlp.npz" ;;
    convnet) echo "--epochs 1" ;;
    gradient_penalty) echo "--steps 20" ;;
    train_digits_trainer) echo "--epochs 1 --progress-interval 1000 --out $tmp/trainer" ;;
    crf_tagger) echo "--epochs 1 --train-size 200 --test-size 50 --out $tmp/crf" ;;
    train_vae) echo "--epochs 1 --out $tmp/vae" ;;
  esac
}

do_examples() {
  mkdir -p "$SCRATCH/examples"
  : >"$OUT/examples.log"
  local name t0 rc last
  for name in $EXAMPLES; do
    t0=$SECONDS
    echo "=== $name $(example_args "$name") --device @cupy:0" >>"$OUT/examples.log"
    # shellcheck disable=SC2046
    (cd "$SCRATCH/examples" && t 75 "$PY" \
        "$ROOT/tools/emulated_run.py" "$ROOT/examples/$name.py" $(example_args "$name") \
        --device @cupy:0) >"$SCRATCH/example.out" 2>&1
    rc=$?
    cat "$SCRATCH/example.out" >>"$OUT/examples.log"
    last=$(grep -v '^\s*$' "$SCRATCH/example.out" | tail -1 | tr -d '\r' | cut -c1-200)
    echo "EXAMPLE $name rc=$rc seconds=$((SECONDS - t0)) last=$last" >>"$OUT/examples.log"
  done
  trim "$OUT/examples.log"
  ! grep -q '^EXAMPLE .* rc=[1-9]' "$OUT/examples.log"
}

find_conformance() {
  local c
  for c in "${GPU_FIRST_RUN_CONFORMANCE:-}" "$ROOT/.gpu_carry/conformance/chainer" \
      "$ROOT/../shared/conformance/chainer" "$ROOT/shared/conformance/chainer"; do
    if [ -n "$c" ] && [ -f "$c/chainer_shim.py" ]; then (cd "$c" && pwd); return 0; fi
  done
  return 1
}

do_wheels() {
  local wheels=$ROOT/.gpu_carry/wheels
  if ! ls "$wheels"/*.whl >/dev/null 2>&1; then
    echo "no carried wheels in $wheels" >>"$OUT/run.log"
    return 0
  fi
  t 60 "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$SITE" \
      "$wheels"/*.whl >>"$OUT/run.log" 2>&1
}

do_conformance() {
  local conf
  if ! conf=$(find_conformance); then
    echo "no conformance harness found: run tools/carry_for_gpu.sh before the lease" \
      >"$OUT/conformance.log"
    return 3
  fi
  local args=(-c "$conf/pytest.ini" --rootdir "$conf/tests" -p chainer_shim
              -p no:cacheprovider -p no:randomly -p no:benchmark -q --continue-on-collection-errors
              -m "${MARKS:-gpu and not cudnn}" -rfE --tb=short)
  local pp="$conf:$PYTHONPATH"
  [ -d "$SITE" ] && pp="$SITE:$pp"
  # (not on the emulator: it is installed in this process only, and xdist's workers are new ones)
  [ -z "$EMULATE" ] && PYTHONPATH=$pp "$PY" -c 'import xdist' >/dev/null 2>&1 \
    && [ "$WORKERS" -gt 1 ] && args+=(-n "$WORKERS")
  PYTHONPATH=$pp "$PY" -c 'import pytest_timeout' >/dev/null 2>&1 && args+=(--timeout 120)
  PYTHONPATH=$pp "$PY" -c 'import pytest_reportlog' >/dev/null 2>&1 \
    && args+=(--report-log="$SCRATCH/conformance.jsonl")
  { echo "harness: $conf"; echo "CHAINER_TEST_GPU_LIMIT=$CHAINER_TEST_GPU_LIMIT"
    echo "COMMAND: python -m pytest ${args[*]} $CONF_TARGETS"; } >"$OUT/conformance.log"
  # shellcheck disable=SC2086
  (cd "$conf/tests" && export PYTHONPATH=$pp && t 600 "$PY" "$ROOT/tools/emulated_run.py" -m pytest \
      "${args[@]}" $CONF_TARGETS) >>"$OUT/conformance.log" 2>&1
  local rc=$?
  trim "$OUT/conformance.log"
  [ -f "$SCRATCH/conformance.jsonl" ] && timeout 45 "$PY" "$ROOT/tools/gpu_first_run_report.py" \
    slim "$SCRATCH/conformance.jsonl" "$OUT/conformance.jsonl.gz"
  return $rc
}

# the conformance run stops 20 s before the step's end, to compress its report-log
do_conformance_reserving() {
  DEADLINE=$((DEADLINE - 20))
  do_conformance
}

stage1() {
  step env 60 do_env
  step smoke 90 do_smoke
  step gpu-suite 270 do_suite
  step bench 150 do_bench
  step examples 150 do_examples
}

stage2() {
  [ -f "$OUT/env.log" ] || step env 60 do_env
  step wheels 60 do_wheels
  step conformance 600 do_conformance_reserving
}

log "gpu_first_run.sh $STAGE: root $ROOT, out $OUT, python $PY, budget ${BUDGET}s${EMULATE:+, EMULATED}"
case "$STAGE" in
  stage1) stage1 ;;
  stage2) stage2 ;;
  all) BUDGET=$((BUDGET * 2)); stage1; stage2 ;;
esac
record
rm -rf "$SCRATCH"
log "done: $RECORD"
ls -la "$OUT" | tee -a "$OUT/run.log"
