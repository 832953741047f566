#!/usr/bin/env bash
# usage: scripts/check_simulate_identical.sh BASELINE_BUILD_DIR NEW_BUILD_DIR
#
# Checks that two builds of perfcast simulate the same skeletons identically:
# every app's skeleton (apps/*/skeleton/*.c) and the runtime's test skeletons
# (tests/skeleton/skeletons/*.c), each compiled once with the baseline's
# `perfcast cc`, run by `perfcast simulate --json` from both builds on
# machines/polus.toml and machines/generic-cluster.toml at 1, 4 and 64 ranks.
# The JSON document must hold the same values (but for the simulator's own
# timings and the fields added on purpose, see comparable below), the
# skeleton's lines and perfcast's messages must be the same lines, and the exit
# status the same. Arguments are those
# of the skeleton tests (tests/apps, tests/skeleton), cg's with 64 z-planes (it
# needs one per rank).
# Prints one line per case and a summary; exits 1 if any case differs.
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BASELINE_BUILD_DIR NEW_BUILD_DIR" >&2
  exit 2
fi
baseline=$(realpath "$1")
new=$(realpath "$2")
source_dir=$(realpath "$(dirname "$0")/..")
for build in "$baseline" "$new"; do
  [[ -x $build/bin/perfcast ]] || { echo "$build/bin/perfcast: not found" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name|source|extra cc flags|skeleton arguments
cases=(
  "wave3d_skel|apps/wave3d/skeleton/wave3d_skel.c|-Iapps/wave3d/skeleton|--n 12 --steps 4 --repeats 2"
  "cg_skel|apps/cg/skeleton/cg_skel.c|-Iapps/cg/skeleton|--nx 12 --ny 10 --nz 64 --iters 7 --repeats 2"
  "mg_skel|apps/mg/skeleton/mg_skel.c|-Iapps/mg/skeleton|--n 16 --cycles 3 --repeats 2"
  "nbody_skel|apps/nbody/skeleton/nbody_skel.c|-Iapps/nbody/skeleton|--bodies 203 --steps 5 --repeats 2"
  "bfs_skel|apps/bfs/skeleton/bfs_skel.c|-Iapps/bfs/skeleton|--scale 10 --roots 3 --seed 3 --repeats 2"
  "basic|tests/skeleton/skeletons/basic.c||"
  "collectives|tests/skeleton/skeletons/collectives.c||"
  "globals|tests/skeleton/skeletons/globals.c||"
  "errors|tests/skeleton/skeletons/errors.c||"
  "errors_mpi|tests/skeleton/skeletons/errors.c||mpi"
  "refusals|tests/skeleton/skeletons/refusals.c||"
  "stencil|tests/skeleton/skeletons/stencil.c||3"
  "probe|tests/skeleton/skeletons/probe.c||"
)
machines=(machines/polus.toml machines/generic-cluster.toml)
rank_counts=(1 4 64)

# The simulator's own timings: the only fields allowed to differ.
# One side's output as comparable text: the JSON document without the
# simulator's own timings and the fields it gained on purpose (its warnings
# block, and engine_bytes_per_rank, which grows with the per-rank state); then
# the skeleton's own lines and perfcast's messages, sorted: a skeleton's prints
# went to stdout before the JSON and go to stderr now, so --json stays one
# document.
comparable() {  # comparable OUT ERR
  python3 - "$1" "$2" <<'PY'
import json, sys
out = open(sys.argv[1]).read().split("\n")
start = out.index("{") if "{" in out else len(out)
lines = [l for l in out[:start] if l] + [l for l in open(sys.argv[2]).read().split("\n") if l]
try:
    doc = json.loads("\n".join(out[start:]))
    for k in ("wall_s", "mpi_calls_per_s", "warnings", "engine_bytes_per_rank", "placement", "timed_region"):
        doc.pop(k, None)
    print(json.dumps(doc, sort_keys=True, indent=1))
except ValueError:
    print("\n".join(out[start:]))
print("\n".join(sorted(lines)))
PY
}

same=0
different=0
cd "$source_dir"
for entry in "${cases[@]}"; do
  IFS='|' read -r name source cc_flags args <<<"$entry"
  # shellcheck disable=SC2086  # flags and arguments are word lists
  "$baseline/bin/perfcast" cc -O2 -g -Wall $cc_flags -Iapps/include "$source" -o "$work/$name"
  for machine in "${machines[@]}"; do
    for np in "${rank_counts[@]}"; do
      label="$name np=$np $(basename "$machine" .toml)"
      for side in baseline new; do
        build=${!side}
        set +e
        # shellcheck disable=SC2086
        timeout 600 "$build/bin/perfcast" simulate --machine "$machine" --json --np "$np" -- "$work/$name" $args \
          >"$work/$side.out" 2>"$work/$side.err"
        echo "exit status $?" >>"$work/$side.err"
        set -e
        comparable "$work/$side.out" "$work/$side.err" >"$work/$side.json"
      done
      if cmp -s "$work/baseline.json" "$work/new.json"; then
        same=$((same + 1))
        echo "same       $label ($(tail -n 1 "$work/new.err"))"
      else
        different=$((different + 1))
        echo "DIFFERENT  $label"
        diff "$work/baseline.json" "$work/new.json" | head -n 20 || true
      fi
    done
  done
done
echo "$same identical, $different different"
[[ $different -eq 0 ]]
