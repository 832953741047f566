#!/bin/sh
# Usage: scripts/check_analyze_identical.sh BASELINE_PERFCAST NEW_PERFCAST
# Runs `perfcast analyze` of both builds on every app source (with the flags
# bench/static_validation.py gives each) and on every case of
# tests/analyze/cases, and compares the program models byte for byte, or, where
# they differ, as the same model but for compute counts of "0" (which the one
# model writer leaves out: a missing count reads as 0).
# Exit status 0 when every model is identical; the differing ones are listed.
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BASELINE_PERFCAST NEW_PERFCAST" >&2
  exit 2
fi
old=$1
new=$2
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d /tmp/check-analyze-XXXXXX)
trap 'rm -rf "$out"' EXIT

flags_for() {
  case "$(basename "$1")" in
    cg.c) echo "--branch-probability cg.c:220=1" ;;
    *) echo "" ;;
  esac
}

total=0
failed=0
for src in "$root"/apps/*/*.c "$root"/tests/analyze/cases/*.c; do
  name=$(basename "$(dirname "$src")")_$(basename "$src" .c)
  flags=$(flags_for "$src")
  total=$((total + 1))
  # shellcheck disable=SC2086
  if ! "$old" analyze "$src" -o "$out/$name.old.json" $flags 2>"$out/$name.old.log"; then
    echo "FAIL $src: the baseline did not analyse it (see below)"; cat "$out/$name.old.log"; failed=$((failed + 1)); continue
  fi
  # shellcheck disable=SC2086
  if ! "$new" analyze "$src" -o "$out/$name.new.json" $flags 2>"$out/$name.new.log"; then
    echo "FAIL $src: the new build did not analyse it"; cat "$out/$name.new.log"; failed=$((failed + 1)); continue
  fi
  if cmp -s "$out/$name.old.json" "$out/$name.new.json"; then
    echo "same $src"
  elif python3 - "$out/$name.old.json" "$out/$name.new.json" <<'PY'
# The same model but for what the one writer leaves out on purpose: a compute
# item's count written "0" (a missing count reads as 0), and the coverage
# section the analyser gained (docs/program-model.md).
import json, sys
ZERO = {"flops_double", "flops_single", "loads", "stores", "load_bytes", "store_bytes"}
def strip(x):
    if isinstance(x, dict):
        return [(k, strip(v)) for k, v in x.items() if not (x.get("kind") == "compute" and k in ZERO and v == "0")]
    return [strip(v) for v in x] if isinstance(x, list) else x
old, new = (json.load(open(f), object_pairs_hook=dict) for f in sys.argv[1:3])
old.pop("coverage", None)
new.pop("coverage", None)
sys.exit(0 if strip(old) == strip(new) else 1)
PY
  then
    echo "same $src, but for compute counts of 0 the writer leaves out"
  else
    echo "DIFF $src"
    diff "$out/$name.old.json" "$out/$name.new.json" | head -20
    failed=$((failed + 1))
  fi
done
echo "$((total - failed)) of $total program models identical"
[ "$failed" -eq 0 ]
