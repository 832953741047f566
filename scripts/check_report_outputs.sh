#!/usr/bin/env bash
# Compares the outputs of two perfcast builds: predict (text, --json,
# --simulate, --simulate --json) on wave3d's model at n=128, 100 steps on
# every bundled machine at 1, 4 and 64 ranks, and simulate (text, --json) on
# the event streams `perfcast model events` makes of the same model (and that
# command's own summary, text and --json).
# JSON is compared field by field with sorted keys; each field that differs
# is named, and marked "on purpose" when it is one the report layer changed
# knowingly (ON_PURPOSE below, docs/json.md). The simulator's own timings
# (wall_s, mpi_calls_per_s, and the text line that prints them) change from
# run to run and are left out.
# Exit status: 0 when every difference is on purpose, 1 otherwise.
#
# usage: scripts/check_report_outputs.sh BASELINE_PERFCAST NEW_PERFCAST
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 BASELINE_PERFCAST NEW_PERFCAST" >&2
  exit 2
fi
base=$(realpath "$1")
new=$(realpath "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
model=apps/wave3d/wave3d.model.json
params=(--param n=128 --param steps=100)
work=$(mktemp -d)
base_model="$work/wave3d.base.model.json"
python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
for p in m.get("parameters", {}).values(): p.pop("integer", None)
json.dump(m, open(sys.argv[2], "w"), indent=1)' "$model" "$base_model"
trap 'rm -rf "$work"' EXIT

# Fields changed on purpose ("[*]" stands for any index). A field listed here
# that does not differ is fine too. Renamed fields are compared by value under
# their new name first (RENAMED), so only their old name shows as a change.
export ON_PURPOSE='
predict:estimates
predict:warnings
predict:coverage
predict:ranks[*].instruction_flops
predict:simulated.ranks[*].time_s
predict:simulated.slowest_component
predict:simulated.slowest.rank
predict:simulated.slowest.waited_on
predict:simulated.nranks
predict:simulated.kinds
predict:simulated.mpi_calls_per_s
predict:simulated.engine_bytes_per_rank
predict:simulated.warnings
simulate:warnings
simulate:engine_bytes_per_rank
predict:placement
predict:simulated.placement
simulate:placement
simulate:mpi
predict:simulated.timed_region
predict:baseline_simulated.timed_region
simulate:timed_region
'
summary="$work/fields"
: >"$summary"

compare_json() {  # KIND LABEL BASE_FILE NEW_FILE
  SUMMARY=$summary python3 - "$@" <<'PY'
import json, os, re, sys
kind, label, base_file, new_file = sys.argv[1:]
on_purpose = {l.split(":", 1)[1] for l in os.environ["ON_PURPOSE"].split() if l.startswith(kind + ":")}
varies = {"wall_s", "mpi_calls_per_s", "simulated.wall_s", "simulated.mpi_calls_per_s"}
base, new = json.load(open(base_file)), json.load(open(new_file))
# RENAMED: the baseline's predict --simulate block wrote a rank's end as
# time_s and the slowest rank's component at the top; the values must match
# under their new names (end_s, slowest.component).
sim = base.get("simulated") if kind == "predict" else None
if isinstance(sim, dict):
    for r in sim.get("ranks", []):
        if "time_s" in r and "end_s" not in r:
            r["end_s"] = r["time_s"]
    if "slowest_component" in sim and "slowest" not in sim:
        sim["slowest"] = {"component": sim["slowest_component"]}
diffs = {}
def note(path, what):
    key = re.sub(r"\[\d+\]", "[*]", path)
    diffs.setdefault(key, [0, what])[0] += 1
def walk(a, b, path):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            p = f"{path}.{k}" if path else k
            if p in varies:
                continue
            if k not in b: note(p, "only in the baseline")
            elif k not in a: note(p, "only in the new output")
            else: walk(a[k], b[k], p)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b): note(path, f"{len(a)} entries before, {len(b)} now")
        for i, (x, y) in enumerate(zip(a, b)): walk(x, y, f"{path}[{i}]")
    elif a != b or type(a) != type(b):
        note(path, f"{json.dumps(a)[:60]} -> {json.dumps(b)[:60]}")
walk(base, new, "")
unexpected = 0
with open(os.environ["SUMMARY"], "a") as summary:
    for key, (n, what) in sorted(diffs.items()):
        # A field is on purpose when it or a field containing it is listed.
        purpose = any(key == f or key.startswith(f + ".") or key.startswith(f + "[") for f in on_purpose)
        tag = "on purpose" if purpose else "UNEXPECTED"
        unexpected += not purpose
        print(f"  {label}: {key}: {what}{f' ({n} entries)' if n > 1 else ''} [{tag}]")
        summary.write(f"{kind} --json: {key}: {what.split(' -> ')[0] if purpose else what} [{tag}]\n")
sys.exit(1 if unexpected else 0)
PY
}

status=0
checked=0
run_both() {  # KIND LABEL FORMAT ARGS...   FORMAT: text | json
  local kind=$1 label=$2 format=$3
  shift 3
  # The baseline reads the model without its parameters' "integer" marks (a key it predates).
  local base_args=() arg
  for arg in "$@"; do [[ $arg == "$model" ]] && base_args+=("$base_model") || base_args+=("$arg"); done
  "$base" "${base_args[@]}" >"$work/base.out" 2>"$work/base.err" || { echo "  $label: the baseline failed: $(tail -1 "$work/base.err")"; status=1; return; }
  sed -i "s#$base_model#$model#g" "$work/base.out"  # the report names the model it read
  "$new" "$@" >"$work/new.out" 2>"$work/new.err" || { echo "  $label: the new build failed: $(tail -1 "$work/new.err")"; status=1; return; }
  checked=$((checked + 1))
  if [[ $format == json ]]; then
    compare_json "$kind" "$label" "$work/base.out" "$work/new.out" || status=1
  else
    # The simulator's own run time in simulate's last line changes from run to run.
    sed -i -E 's/^(simulated [0-9]+ events \([0-9]+ MPI calls\) in ).*$/\1(wall time)/' "$work/base.out" "$work/new.out"
    # The placement line is new on purpose (docs/json.md, the placement object).
    sed -i '/^placement: /d' "$work/new.out"
    if ! diff -u "$work/base.out" "$work/new.out" >"$work/diff"; then
      echo "  $label: text differs [UNEXPECTED]"
      echo "$kind text: differs [UNEXPECTED]" >>"$summary"
      head -40 "$work/diff" | sed 's/^/    /'
      status=1
    fi
  fi
}

for machine in machines/*.toml; do
  name=$(basename "$machine" .toml)
  for np in 1 4 64; do
    args=(predict "$model" --machine "$machine" --np "$np" "${params[@]}")
    run_both predict "predict $name np=$np text" text "${args[@]}"
    run_both predict "predict $name np=$np --json" json "${args[@]}" --json
    run_both predict "predict $name np=$np --simulate" text "${args[@]}" --simulate
    run_both predict "predict $name np=$np --simulate --json" json "${args[@]}" --simulate --json
  done
done

for np in 4 64; do
  trace="$work/wave3d_np$np.trace"
  events_args=(model events "$model" --np "$np" "${params[@]}" -o "$work/summary.trace")
  run_both model-events "model events np=$np text" text "${events_args[@]}"
  run_both model-events "model events np=$np --json" json "${events_args[@]}" --json
  "$new" model events "$model" --np "$np" "${params[@]}" -o "$trace" >/dev/null
  for machine in machines/*.toml; do
    name=$(basename "$machine" .toml)
    run_both simulate "simulate $name np=$np text" text simulate --machine "$machine" "$trace"
    run_both simulate "simulate $name np=$np --json" json simulate --machine "$machine" "$trace" --json
  done
done

echo
echo "fields that differ, over every output compared:"
sort "$summary" | uniq -c | sed 's/^/  /'
if [[ $status -eq 0 ]]; then
  echo "$checked outputs compared: identical but for the fields changed on purpose"
else
  echo "$checked outputs compared: some differ where nothing should (above)"
fi
exit $status
