#!/usr/bin/env bash
# Usage: scripts/check_predict_identical.sh BASELINE_PERFCAST NEW_PERFCAST [MODEL]
#
# Checks that two perfcast builds give the same figures for a program model
# (default: apps/wave3d/wave3d.model.json) on every bundled machine: `predict
# --json`, `predict --simulate --json` (n=128 and n=32, 100 steps; 1, 4 and 64
# ranks), the `model events` trace files and `simulate --json` of them (n=32). Fields that
# time the simulator's own run (wall_s, mpi_calls_per_s) are left out; every
# other value must be equal. Prints one line per difference and a summary;
# exits 1 if anything differs.
set -u
if [ $# -lt 2 ]; then
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
old=$1
new=$2
root=$(cd "$(dirname "$0")/.." && pwd)
model=${3:-$root/apps/wave3d/wave3d.model.json}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The baseline reads the model without its parameters' "integer" marks (a key it predates).
base_model="$work/base.model.json"
python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
for p in m.get("parameters", {}).values(): p.pop("integer", None)
json.dump(m, open(sys.argv[2], "w"), indent=1)' "$model" "$base_model"

# The JSON with the run-time fields removed, keys sorted: equal text means
# equal values (Python prints a double the shortest way that reads back exact).
normalise() {
  python3 -c '
import json, sys
# Run-time fields, and fields the report and the simulator gained on purpose
# (docs/json.md): left out on both sides; a simulated rank'"'"'s time_s is its end_s.
volatile = {"wall_s", "mpi_calls_per_s", "estimates", "instruction_flops", "warnings", "engine_bytes_per_rank",
            "nranks", "slowest", "slowest_component", "coverage", "placement", "mpi", "timed_region"}
def strip(v, in_simulated=False):
    if isinstance(v, dict):
        out = {}
        for k, x in v.items():
            if k in volatile or (in_simulated and k == "kinds"):
                continue
            out["end_s" if k == "time_s" and in_simulated else k] = strip(x, in_simulated or k == "simulated")
        return out
    if isinstance(v, list):
        return [strip(x, in_simulated) for x in v]
    return v
print(json.dumps(strip(json.load(sys.stdin)), sort_keys=True, indent=1))'
}

checked=0
differing=0
compare() {  # compare LABEL -- ARGS...: runs both builds with ARGS
  local label=$1
  shift 2
  checked=$((checked + 1))
  local old_args=() arg
  for arg in "$@"; do [[ $arg == "$model" ]] && old_args+=("$base_model") || old_args+=("$arg"); done
  "$old" "${old_args[@]}" >"$work/old.raw" 2>"$work/old.err"
  local old_rc=$?
  "$new" "$@" >"$work/new.raw" 2>"$work/new.err"
  local new_rc=$?
  if [ $old_rc -ne $new_rc ]; then
    echo "DIFFERS $label: exit $old_rc -> $new_rc ($(head -c 200 "$work/new.err"))"
    differing=$((differing + 1))
    return
  fi
  if [ $old_rc -ne 0 ]; then
    cmp -s "$work/old.err" "$work/new.err" || { echo "DIFFERS $label: errors differ"; differing=$((differing + 1)); }
    return
  fi
  normalise <"$work/old.raw" >"$work/old.json" && normalise <"$work/new.raw" >"$work/new.json"
  if ! cmp -s "$work/old.json" "$work/new.json"; then
    echo "DIFFERS $label:"
    diff "$work/old.json" "$work/new.json" | head -20
    differing=$((differing + 1))
  fi
}

for machine_file in "$root"/machines/*.toml; do
  machine=$(basename "$machine_file" .toml)
  for n in 128 32; do
    for np in 1 4 64; do
      params=(--param "n=$n" --param steps=100)
      compare "predict $machine n=$n np=$np" -- predict "$model" --machine "$machine_file" --np $np "${params[@]}" --json
      compare "predict --simulate $machine n=$n np=$np" -- \
        predict "$model" --machine "$machine_file" --np $np "${params[@]}" --simulate --json
    done
  done
done

# Each build simulates the trace it made, at the same path (the report names it).
for np in 1 4 64; do
  params=(--param n=32 --param steps=100)
  for build in old new; do
    rm -rf "$work/trace"
    m=$model && [[ $build == old ]] && m=$base_model
    "${!build}" model events "$m" --np $np "${params[@]}" -o "$work/trace" >/dev/null ||
      echo "model events np=$np failed with the $build build"
    for machine_file in "$root"/machines/*.toml; do
      "${!build}" simulate --machine "$machine_file" --json "$work/trace" 2>&1 | normalise \
        >"$work/$build.$(basename "$machine_file" .toml).json"
    done
    rm -rf "$work/trace_$build" && cp -r "$work/trace" "$work/trace_$build"
  done
  checked=$((checked + 1))
  # The streams byte for byte; the index but for when it was made.
  for build in old new; do
    python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); j.pop("created", None); j.pop("command", None); print(json.dumps(j))' \
      "$work/trace_$build/trace.json" >"$work/index.$build" && rm "$work/trace_$build/trace.json"
  done
  if ! diff -r "$work/trace_old" "$work/trace_new" >/dev/null || ! cmp -s "$work/index.old" "$work/index.new"; then
    echo "DIFFERS model events np=$np: the trace files"
    differing=$((differing + 1))
  fi
  for machine_file in "$root"/machines/*.toml; do
    machine=$(basename "$machine_file" .toml)
    checked=$((checked + 1))
    if ! cmp -s "$work/old.$machine.json" "$work/new.$machine.json"; then
      echo "DIFFERS simulate $machine np=$np (model events trace):"
      diff "$work/old.$machine.json" "$work/new.$machine.json" | head -20
      differing=$((differing + 1))
    fi
  done
done

echo "$checked outputs compared, $differing differ"
[ $differing -eq 0 ]
