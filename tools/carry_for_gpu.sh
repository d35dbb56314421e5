#!/usr/bin/env bash
# Prepare what tools/gpu_first_run.sh needs on a GPU machine but the repository does not hold.
#
# Run in the repository root on the development machine, before a GPU lease:
#
#     bash tools/carry_for_gpu.sh [--no-wheels]
#
# It fills .gpu_carry/ (ignored through .git/info/exclude, so it travels only when the device
# tool's `run` names it in `carry`):
#   conformance/chainer/  a copy of Chainer's conformance harness (../shared/conformance/chainer,
#                         or $CONFORMANCE_SRC), which does not travel with the repository;
#   wheels/               pure-Python wheels the GPU image lacks (mock, which Chainer's tests
#                         import, and pytest-reportlog, for per-test verdicts); the machine has
#                         no network, so pip fetches them here;
#   COMMIT                the commit and dirty-file count of this checkout, for the record.
# It prints the size of what will travel and fails above the device tool's 64 MiB.
set -eu
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
CARRY=.gpu_carry
SRC=${CONFORMANCE_SRC:-}
if [ -z "$SRC" ]; then
  for c in "$ROOT/../shared/conformance/chainer" "$ROOT/shared/conformance/chainer"; do
    [ -f "$c/chainer_shim.py" ] && SRC=$c && break
  done
fi

if [ -d .git ] && ! grep -qx '/.gpu_carry/' .git/info/exclude 2>/dev/null; then
  mkdir -p .git/info
  echo '/.gpu_carry/' >>.git/info/exclude
fi
rm -rf "$CARRY/conformance"
mkdir -p "$CARRY/conformance" "$CARRY/wheels"

if [ -n "$SRC" ]; then
  # a copy without caches; the harness itself is read-only, the copy must be writable
  tar -C "$(dirname "$SRC")" --exclude=__pycache__ --exclude='*.pyc' -cf - "$(basename "$SRC")" \
    | tar -C "$CARRY/conformance" -xf -
  chmod -R u+w "$CARRY/conformance"
  echo "conformance harness: $SRC -> $CARRY/conformance/$(basename "$SRC")"
else
  echo "no conformance harness found (set CONFORMANCE_SRC); stage2 will have nothing to run" >&2
fi

if [ "${1:-}" != --no-wheels ]; then
  # pure-Python wheels: the same files serve the GPU image's Python 3.12
  python3 -m pip download -q --no-deps --only-binary=:all: -d "$CARRY/wheels" \
      'mock==5.2.0' 'pytest-reportlog==1.0.0' \
    || echo "pip could not fetch the wheels; stage2 runs without per-test verdicts" >&2
fi

{ git rev-parse HEAD 2>/dev/null || echo unknown
  echo "$(git status --porcelain 2>/dev/null | wc -l) files differ from it"; } >"$CARRY/COMMIT"

carry_kb=$(du -sk "$CARRY" | cut -f1)
tree_kb=$( (git ls-files -z; git ls-files -z --others --exclude-standard) 2>/dev/null \
  | xargs -0 du -ck 2>/dev/null | tail -1 | cut -f1)
total_kb=$((carry_kb + ${tree_kb:-0}))
echo "$CARRY: ${carry_kb} KiB; working tree: ${tree_kb:-?} KiB; together ${total_kb} KiB of 65536"
ls "$CARRY/wheels"
[ "$total_kb" -lt 65536 ] || { echo "too large for the device tool (64 MiB)" >&2; exit 1; }
